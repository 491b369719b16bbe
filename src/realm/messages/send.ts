// Sending a message (batchable: group commit): addressing, permissions, rendering, per-user flags; one statement
// inserting the message and its recipients' rows (for a whole batch of sends: one for all of them), then the
// message event with each one's flags.
import type { RealmEvent } from '../../bus/events.js';
import type { ImageRenderData } from '../../markdown/index.js';
import { ApiError, errors } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import { FLAG_BITS } from '../../narrow/index.js';
import type { Tx } from '../../persistence/db.js';
import {
  conversationIdOf,
  directRecipientId,
  newMessage,
  storedMessage,
  type InsertedMessage,
  type NewMessage,
  type StoredMessage,
  type UserMessageRow,
} from '../../model/messages.js';
import { byUser, valueOfOutcome, type AheadWriter, type CommandDef, type Outcome } from '../commands.js';
import { activeSubscriberIds } from '../channels/format.js';
import { linkAttachments, uploadPathIds } from '../files/index.js';
import { actor } from '../access/roles.js';
import { accessRestricted, userAccessTest } from '../access/users.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { flagNames, IS_PRIVATE_BIT, messageEvent } from './format.js';
import { conversationKey } from './messages-state.js';
import { checkCanPost, directRecipients, targetChannel, type RawTo } from './recipients.js';
import { alertedUsers, mentionedUsers, prerendered, renderAs, type Prerendered } from './render.js';
import { checkTopicPolicy, cleanTopic, truncate } from './topic-rules.js';
import { applyAutomaticVisibility, keepsVisibility, userTopicEvent, type VisibilityChange } from './visibility.js';

/** Zulip's WILDCARD_MENTION_THRESHOLD: above this many recipients, wildcard mentions need permission. */
export const WILDCARD_MENTION_THRESHOLD = 15;

/** Clients whose messages count as read by their sender when read_by_sender is absent (Zulip's list). */
const HUMAN_CLIENTS = new Set([
  'zulipandroid', 'zulipios', 'zulipdesktop', 'zulipmobile', 'zulipelectron', 'zulipterminal', 'snipe', 'website', 'ios', 'android',
]);

export function defaultReadBySender(client: string): boolean {
  const name = client.toLowerCase();
  return HUMAN_CLIENTS.has(name) || name.includes('desktop app');
}

export interface SendInput {
  senderId: number;
  type: 'direct' | 'stream';
  to: RawTo;
  /** Required for channel messages; ignored for direct ones. */
  topic?: string;
  content: string;
  readBySender?: boolean;
  /** The sending client's name (User-Agent). */
  client: string;
  queueId?: string;
  localId?: string;
  realmUrl: string;
  /** Inline image previews (the caller reads the linked uploads' thumbnails first); none without. */
  images?: ImageRenderData;
  /** The content rendered on the worker pool before the command reached the actor (its prepare). */
  rendered?: Prerendered;
}

interface SendPlan {
  message: NewMessage;
  /** The message's ID when the batch took it before its writes (withMessageId); null: the insert draws it. */
  id: number | null;
  sender: User;
  recipients: number[];
  flags: Map<number, number>;
  /** Topic wildcard in a channel: participants are known only to the database. */
  topicWildcard: boolean;
  /** Recipients a restricted sender (can_access_all_users_group) may reach only through an earlier direct
   *  conversation the working set does not know of: the database must show one. */
  unverifiedRecipients: number[];
  /** The sender must already have this conversation (direct_message_initiator_group). */
  mustExist: boolean;
  senderQueue?: { queueId: string; localId: string };
}

export interface SendResult {
  message: StoredMessage;
  rows: UserMessageRow[];
  visibility: VisibilityChange | null;
  senderQueue?: { queueId: string; localId: string };
}

/** Zulip's normalize_body: trailing whitespace and leading newlines go; empty or NUL is refused; long is cut. */
export function normalizeContent(content: string): string {
  const body = content.trimEnd().replace(/^\n+/, '');
  if (body.length === 0) throw errors.messageEmpty();
  if (body.includes('\u0000')) throw errors.messageNullBytes();
  return truncate(body, LIMITS.max_message_length, '\n[message truncated]');
}

/**
 * A command's prepare step for message content: the content as it will be stored, rendered on the worker pool as
 * its author sees the realm, into `input.rendered`. At once (no promise) when nothing is left to render (it was
 * rendered already, or the check will refuse the content) or the content is plain text (markdown/plain.ts).
 */
export function prerender<I extends { rendered?: Prerendered; images?: ImageRenderData }>(
  state: RealmState,
  input: I,
  authorId: number,
  realmUrl: string,
  raw: string,
): I | Promise<I> {
  let content: string;
  try {
    content = normalizeContent(raw);
  } catch {
    return input;
  }
  if (input.rendered?.content === content) return input;
  const author = state.usersById.get(authorId) ?? null;
  const rendered = renderAs(state, author, realmUrl, content, input.images);
  // Object.assign, not `{ ...input, rendered }`: a key the spread's source lacks takes V8's slow path (storedMessage).
  if (!(rendered instanceof Promise)) return Object.assign({}, input, { rendered: { content, rendered } });
  return rendered.then((done) => Object.assign({}, input, { rendered: { content, rendered: done } }));
}


function checkDirectPermissions(state: RealmState, sender: User, participants: number[]): boolean {
  const others = participants.filter((id) => id !== sender.id);
  if (others.length > 0 && !participants.some((id) => state.userHasRealmPermission(id, 'direct_message_permission_group'))) {
    throw errors.directMessageNotAuthorized();
  }
  return others.length > 0 && !state.userHasRealmPermission(sender.id, 'direct_message_initiator_group');
}

function address(state: RealmState, sender: User, input: SendInput) {
  if (input.type === 'direct') {
    const others = directRecipients(state, sender, input.to);
    const participants = [...new Set([sender.id, ...others.map((u) => u.id)])].sort((a, b) => a - b);
    const mustExist = checkDirectPermissions(state, sender, participants);
    const unverifiedRecipients = accessRestricted(state, sender) ? others.filter((u) => !userAccessTest(state, u)(sender)).map((u) => u.id) : [];
    return { kind: 'direct' as const, channelId: null, topic: '', directRecipients: participants, recipients: participants, mustExist, unverifiedRecipients };
  }
  const ch = targetChannel(state, input.to);
  checkCanPost(state, sender, ch, input.to);
  if (input.topic === undefined) throw errors.missingTopic();
  const topic = cleanTopic(state, input.topic);
  checkTopicPolicy(state, ch, topic);
  // Ascending, the sender among them (a fresh array: activeSubscriberIds makes one).
  const recipients = activeSubscriberIds(state, ch.id);
  if (!recipients.includes(sender.id)) {
    const at = recipients.findIndex((id) => id > sender.id);
    recipients.splice(at < 0 ? recipients.length : at, 0, sender.id);
  }
  return { kind: 'stream' as const, channelId: ch.id, topic, directRecipients: [], recipients, mustExist: false, unverifiedRecipients: [] };
}

/** A topic wildcard mention (@**topic**) in a channel: refused above the threshold without permission;
 *  otherwise flags the topic's participants (with the sender). */
function markTopicWildcard(state: RealmState, m: NewMessage, flags: Map<number, number>, participants: Set<number>): void {
  participants.add(m.senderId);
  if (participants.size > WILDCARD_MENTION_THRESHOLD && !state.userHasRealmPermission(m.senderId, 'can_mention_many_users_group')) {
    throw errors.topicWildcardNotAllowed();
  }
  for (const [id, f] of flags) if (participants.has(id)) flags.set(id, f | FLAG_BITS.topic_wildcard_mentioned);
}

function recipientFlags(plan: SendPlan, flags: Map<number, number>): { userId: number; flags: number }[] {
  return plan.recipients.map((userId) => ({ userId, flags: flags.get(userId)! }));
}

function recipientRows(plan: SendPlan, messageId: number, flags: Map<number, number>): UserMessageRow[] {
  return plan.recipients.map((userId) => ({ userId, messageId, flags: flags.get(userId)! }));
}

function sent(plan: SendPlan, m: NewMessage, id: number, rows: UserMessageRow[], visibility: VisibilityChange | null): SendResult {
  return { message: storedMessage(m, id), rows, visibility, senderQueue: plan.senderQueue };
}

/** A send that passed its database checks, with its conversation and final flags. */
interface Accepted {
  index: number;
  plan: SendPlan;
  message: NewMessage;
  flags: Map<number, number>;
}

/**
 * Writes sends in order, all in as few statements as possible: the checks that need the database first (an
 * existing conversation, topic participants for @topic), then one statement inserting the messages and their
 * recipients' rows (cut before an @topic, whose participants must include the earlier sends), then automatic
 * topic visibility, which only writes when a topic starts. A refused send gets its error; the others go on.
 */
async function writeSends(t: Tx, plans: SendPlan[], state: RealmState): Promise<Outcome<SendResult>[]> {
  const outcomes: Outcome<SendResult>[] = new Array(plans.length);
  const conversations = new Map<string, number>();
  let pending: Accepted[] = [];
  const inserted: { a: Accepted; row: InsertedMessage }[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const rows = await t.messages.insertWithRecipients(
      pending.map((a) => a.message),
      pending.map((a) => recipientFlags(a.plan, a.flags)),
      pending.map((a) => a.plan.id),
    );
    if (rows.length !== pending.length) throw new Error(`${rows.length} message IDs for ${pending.length} messages`);
    pending.forEach((a, i) => inserted.push({ a, row: rows[i]! }));
    pending = [];
  };
  for (const [index, plan] of plans.entries()) {
    const m = { ...plan.message };
    const flags = new Map(plan.flags);
    try {
      if (m.kind === 'direct') {
        if (plan.unverifiedRecipients.length > 0) {
          const partners = new Set((await t.userMessages.recentDirectConversations(m.senderId, 1000)).flatMap((c) => c.members));
          if (plan.unverifiedRecipients.some((id) => !partners.has(id))) throw errors.cannotAccessRecipients();
        }
        const key = conversationKey(m.directRecipients);
        let convId = state.messages.conversationId(m.directRecipients) ?? conversations.get(key);
        if (plan.mustExist && convId === undefined && !(await t.messages.directConversationExists(m.realmId, m.directRecipients))) {
          throw errors.cannotInitiateDirectMessages();
        }
        convId ??= await t.messages.directConversationId(m.realmId, m.directRecipients);
        conversations.set(key, convId);
        m.recipientId = directRecipientId(convId);
      } else if (plan.topicWildcard) {
        await flush();
        markTopicWildcard(state, m, flags, new Set(await t.messages.topicParticipantIds(m.channelId!, m.topic)));
      }
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      outcomes[index] = { ok: false, error: err };
      continue;
    }
    pending.push({ index, plan, message: m, flags });
  }
  await flush();
  // A topic starts with the first message it ever had: none before its statement, none earlier in these sends, none
  // in an earlier batch still committing (pipelined group commit: topicsStartedBefore waits for those; only topics
  // new to the statement are asked).
  const firsts = new Map<string, { channelId: number; topicKey: string; beforeId: number }>();
  for (const { a, row } of inserted) {
    const key = `${a.message.channelId}\u0000${row.topicKey}`;
    if (a.message.kind === 'stream' && !row.topicExisted && !firsts.has(key)) firsts.set(key, { channelId: a.message.channelId!, topicKey: row.topicKey, beforeId: row.id });
  }
  const startedBefore = await t.messages.topicsStartedBefore([...firsts.values()]);
  const starts = new Set([...firsts.values()].filter((_, i) => !startedBefore[i]).map((f) => f.beforeId));
  const toChannels = inserted.filter(({ a }) => a.message.kind === 'stream');
  const changes = await applyAutomaticVisibility(
    t,
    state,
    toChannels.map(({ a, row }) => ({
      sender: a.plan.sender,
      channelId: a.message.channelId!,
      topic: a.message.topic,
      topicKey: row.topicKey,
      now: new Date(a.message.dateSent * 1000),
      startsTopic: starts.has(row.id),
    })),
  );
  const visibility = new Map(toChannels.map(({ row }, i) => [row.id, changes[i]!]));
  for (const { a, row } of inserted) {
    const m = a.message;
    // Uploads linked in the message become readable by whoever can read the message.
    await linkAttachments(t, state, row.id, m.content, m.senderId);
    outcomes[a.index] = { ok: true, value: sent(a.plan, m, row.id, recipientRows(a.plan, row.id, a.flags), visibility.get(row.id) ?? null) };
  }
  return outcomes;
}

/**
 * writeSends while earlier batches may still write, when the sends need nothing but their insert with the IDs the
 * batch took: none refers to an upload, none is an @topic, each direct one goes to a conversation memory knows (no
 * lookup, no new row) and needs no check of the sender's earlier conversations, and each channel one changes no
 * topic visibility of its sender's there; whether each channel one goes to a topic that already has a committed
 * message only the database tells (the statement inserts nothing otherwise: insertIfTopicsExist). Null when memory
 * shows they need more.
 */
function writeSendsAhead(plans: SendPlan[], state: RealmState): AheadWriter<SendResult> | null {
  const messages: NewMessage[] = [];
  for (const plan of plans) {
    const m = plan.message;
    if (uploadPathIds(m.content).length > 0) return null;
    if (m.kind === 'direct') {
      const convId = state.messages.conversationId(m.directRecipients);
      if (convId === undefined || plan.unverifiedRecipients.length > 0) return null;
      messages.push({ ...m, recipientId: directRecipientId(convId) });
    } else {
      if (plan.topicWildcard || !keepsVisibility(state, plan.sender, m.channelId!)) return null;
      messages.push(m);
    }
  }
  return async (t, ids) => {
    const written = await t.messages.insertIfTopicsExist(
      messages,
      plans.map((p) => recipientFlags(p, p.flags)),
      ids,
    );
    if (written !== 'written') return written;
    return plans.map((plan, i) => ({ ok: true, value: sent(plan, messages[i]!, ids[i]!, recipientRows(plan, ids[i]!, plan.flags), null) }));
  };
}

export const sendMessage: CommandDef<SendInput, SendPlan, SendResult> = {
  batchable: true,
  // Nothing a send checks is changed by another command that says what it touches (sends, flags, reactions); its
  // writes insert new rows (a new message's, topic visibility, attachments) no such command reads, and where one
  // meets an earlier batch's uncommitted row (a new direct conversation) PostgreSQL waits for that commit; whether
  // it starts its topic waits for an earlier batch that started it (topicsStartedBefore). What a send's write reads
  // without waiting: a guest's recent conversations miss a message still committing in an earlier batch, as if this
  // send had come just before it (its author could not have seen it yet either). An @topic reads the topic's
  // reactions (its participants): that send cannot say what it touches.
  touches: (_state, input) => (input.rendered?.rendered.wildcards.topic === false || input.type === 'direct' ? [] : undefined),
  prepare: (state, input) => prerender(state, input, input.senderId, input.realmUrl, input.content),
  orderKey: (input) => byUser(input.senderId),
  check(state, input) {
    const sender = actor(state, input.senderId);
    const content = normalizeContent(input.content);
    const to = address(state, sender, input);
    const rendered = prerendered(input.rendered, content);
    const canMentionMany = state.userHasRealmPermission(sender.id, 'can_mention_many_users_group');
    if (to.kind === 'stream' && rendered.wildcards.stream && !canMentionMany && to.recipients.length > WILDCARD_MENTION_THRESHOLD) {
      throw errors.streamWildcardNotAllowed();
    }
    const mentioned = mentionedUsers(state, rendered, to.recipients);
    const alerted = alertedUsers(state, content, to.recipients);
    const readBySender = input.readBySender ?? defaultReadBySender(input.client);
    let base = to.kind === 'direct' ? IS_PRIVATE_BIT : 0;
    if (rendered.wildcards.stream) base |= FLAG_BITS.stream_wildcard_mentioned;
    if (rendered.wildcards.topic && to.kind === 'direct') base |= FLAG_BITS.topic_wildcard_mentioned;
    const flags = new Map<number, number>();
    for (const id of to.recipients) {
      let f = base;
      if (id === sender.id && readBySender) f |= FLAG_BITS.read;
      // Messages from a user the recipient muted arrive read (no unread count, no notifications).
      if (state.people.hasMuted(id, sender.id)) f |= FLAG_BITS.read;
      if (mentioned.has(id)) f |= FLAG_BITS.mentioned;
      if (alerted.has(id)) f |= FLAG_BITS.has_alert_word;
      flags.set(id, f);
    }
    const message = newMessage(state.realm.id, sender.id, to, content, rendered, input.client);
    const senderQueue = input.queueId && input.localId ? { queueId: input.queueId, localId: input.localId } : undefined;
    return {
      message,
      id: null,
      sender,
      recipients: to.recipients,
      flags,
      topicWildcard: to.kind === 'stream' && rendered.wildcards.topic,
      mustExist: to.mustExist,
      unverifiedRecipients: to.unverifiedRecipients,
      senderQueue,
    };
  },

  async write(t, plan, state) {
    return valueOfOutcome((await writeSends(t, [plan], state))[0]);
  },

  writeBatch: writeSends,

  withMessageId: (plan, id) => ({ ...plan, id }),

  writeAhead: writeSendsAhead,

  apply(state, r) {
    const m = r.message;
    state.messages.noteNew(m.id);
    if (m.kind === 'direct') state.messages.noteConversation(m.directRecipients, conversationIdOf(m.recipientId));
    else state.channels.noteMessage(m.channelId!, m.id, m.dateSent);
  },

  events(state, r) {
    const m = r.message;
    const events: RealmEvent[] = [];
    if (r.visibility) events.push(userTopicEvent(state, r.visibility));
    const event = messageEvent(state, m);
    events.push({
      event,
      users: r.rows.map((row) => ({ id: row.userId, flags: flagNames(row.flags) })),
      ...(event.facts.channelIsPublic ? { allPublicStreams: true } : {}),
      ...(r.senderQueue ? { senderQueue: r.senderQueue } : {}),
    });
    return events;
  },
};
