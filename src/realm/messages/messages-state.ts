// The messages domain's part of a realm's working set: linkifiers, users' alert words and conversation IDs.
import type { Repos } from '../../persistence/db.js';
import type { Linkifier } from '../../model/messages.js';

export type { Linkifier };

/** A direct conversation's key: its sorted participant IDs joined by ','. */
export const conversationKey = (participants: readonly number[]): string => participants.join(',');

export class MessagesState {
  constructor(
    /** In matching order. */
    public linkifiers: Linkifier[] = [],
    /** User ID → words in the order added. */
    readonly alertWords: Map<number, string[]> = new Map(),
    /** Direct conversation (conversationKey of its sorted participant IDs) → its ID, filled as messages are sent. */
    private readonly directConversations: Map<string, number> = new Map(),
    /**
     * The realm's newest message in this working set: the newest in the database when it was loaded (-1: none),
     * then each new message's as it is applied (with its events routed in the same step). register cuts its snapshot
     * here: every later message reaches its queue as an event.
     */
    public lastId = -1,
  ) {}

  /** A new message applied to the working set. */
  noteNew(id: number): void {
    if (id > this.lastId) this.lastId = id;
  }

  static async load(db: Repos, realmId: number): Promise<MessagesState> {
    const linkifiers = await db.linkifiers.forRealm(realmId);
    const alertWords = await db.alertWords.forRealm(realmId);
    return new MessagesState(linkifiers, alertWords, new Map(), await db.messages.lastIdInRealm(realmId));
  }

  /** The ID of the direct conversation of these (sorted) participants, if the working set knows it. */
  conversationId(participants: readonly number[]): number | undefined {
    return this.directConversations.get(conversationKey(participants));
  }

  noteConversation(participants: readonly number[], id: number): void {
    this.directConversations.set(conversationKey(participants), id);
  }

  /** The participants of each direct conversation the working set knows. */
  *conversations(): Iterable<number[]> {
    for (const key of this.directConversations.keys()) yield key.split(',').map(Number);
  }

  wordsOf(userId: number): string[] {
    return this.alertWords.get(userId) ?? [];
  }
}
