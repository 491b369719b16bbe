// Realm commands on a user's synchronized drafts: create (several at once), replace, delete; and dropping them
// all when the user turns enable_drafts_synchronization off.
import type { DraftsEvent, RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import type { Tx } from '../../persistence/db.js';
import type { DraftType, NewDraft, StoredDraft } from '../../model/drafts.js';
import { visibleChannel } from '../access/channels.js';
import type { CommandDef } from '../commands.js';
import { normalizeContent } from '../messages/send.js';
import { truncate } from '../messages/topic-rules.js';
import { actor } from '../access/roles.js';
import { userSetting } from '../people/user-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';

/** A draft as a client sends it (the Draft object without `id`). */
export interface DraftInput {
  type: DraftType;
  to: number[];
  topic: string;
  content: string;
  /** Seconds; the server's clock when absent. */
  timestamp?: number;
}

/** The user, if they keep drafts on the server. */
export function draftsUser(state: RealmState, userId: number): User {
  const user = actor(state, userId);
  if (userSetting(user, 'enable_drafts_synchronization') !== true) throw errors.draftsSyncDisabled();
  return user;
}

/** Zulip's further_validated_draft_dict: checks a draft against the realm and gives what is stored. */
export function validateDraft(state: RealmState, user: User, d: DraftInput, now: number): NewDraft {
  if (d.content.includes('\u0000')) throw errors.nullBytes('Content');
  if (d.topic.includes('\u0000')) throw errors.nullBytes('Topic');
  const content = normalizeContent(d.content);
  const timestamp = Math.round((d.timestamp ?? now) * 1e6) / 1e6;
  if (timestamp < 0) throw errors.negativeTimestamp();
  const base = { userId: user.id, content, lastEditTime: timestamp };
  if (d.type === 'stream') {
    if (d.to.length !== 1) throw errors.draftNeedsOneChannel();
    const ch = visibleChannel(state, user, d.to[0]!, 'content');
    return { ...base, type: 'stream', to: [ch.id], topic: truncate(d.topic.trim(), LIMITS.max_topic_length, '...') };
  }
  if (d.type === 'private' && d.to.length > 0) {
    const ids = [...new Set(d.to)].sort((a, b) => a - b);
    for (const id of ids) if (!state.usersById.has(id)) throw errors.invalidRecipientUserId(id);
    // The conversation as the user sees it: the others, or only themselves for notes to self.
    const others = ids.filter((id) => id !== user.id);
    return { ...base, type: 'private', to: others.length > 0 ? others : [user.id], topic: '' };
  }
  // Unaddressed (a direct draft without recipients is unaddressed too, as in Zulip).
  return { ...base, type: '', to: [], topic: '' };
}

const nowSeconds = () => Date.now() / 1000;

const draftEvent = (userId: number, event: DraftsEvent): RealmEvent => ({ event, users: [userId] });

const createDrafts: CommandDef<{ userId: number; drafts: DraftInput[] }, NewDraft[], StoredDraft[]> = {
  batchable: true,
  check(state, input) {
    const user = draftsUser(state, input.userId);
    const now = nowSeconds();
    return input.drafts.map((d) => validateDraft(state, user, d, now));
  },
  write: (t, drafts, state) => t.drafts.insert(state.realm.id, drafts),
  events(_state, created) {
    if (created.length === 0) return [];
    return [draftEvent(created[0]!.userId, { kind: 'drafts', op: 'add', drafts: created })];
  },
};

const editDraft: CommandDef<{ userId: number; draftId: number; draft: DraftInput }, StoredDraft, StoredDraft> = {
  batchable: true,
  check(state, input) {
    const user = draftsUser(state, input.userId);
    return { id: input.draftId, ...validateDraft(state, user, input.draft, nowSeconds()) };
  },
  async write(t, draft) {
    const updated = await t.drafts.replace(draft);
    if (!updated) throw errors.draftNotFound();
    return updated;
  },
  events: (_state, d) => [draftEvent(d.userId, { kind: 'drafts', op: 'update', draft: d })],
};

const deleteDraft: CommandDef<{ userId: number; draftId: number }, { userId: number; draftId: number }, { userId: number; draftId: number }> = {
  batchable: true,
  check(state, input) {
    draftsUser(state, input.userId);
    return input;
  },
  async write(t, plan) {
    if (!(await t.drafts.delete(plan.userId, plan.draftId))) throw errors.draftNotFound();
    return plan;
  },
  events: (_state, r) => [draftEvent(r.userId, { kind: 'drafts', op: 'remove', draftId: r.draftId })],
};

/**
 * Called from the settings command's write: turning enable_drafts_synchronization off deletes the user's
 * server-side drafts in the same transaction. No drafts events: clients keep their local copies.
 */
export async function dropDraftsIfSyncTurnedOff(t: Tx, userId: number, changed: Record<string, unknown>): Promise<void> {
  if (changed.enable_drafts_synchronization === false) await t.drafts.deleteAllOf(userId);
}

export const draftCommands = {
  'drafts.create': createDrafts,
  'drafts.edit': editDraft,
  'drafts.delete': deleteDraft,
};
