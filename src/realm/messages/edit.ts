// Editing a message (PATCH /messages/{id}): new content (re-rendered, mention flags recomputed), a new topic
// (with propagate_mode), a move to another channel; edit history, row changes for a move, and the events.
import { createHash } from 'node:crypto';
import type { RealmEvent, UpdateMessageEvent } from '../../bus/events.js';
import type { ImageRenderData } from '../../markdown/index.js';
import { errors } from '../../errors.js';
import { FLAG_BITS } from '../../narrow/index.js';
import type { Tx } from '../../persistence/db.js';
import type { EditHistoryEntry, StoredMessage } from '../../model/messages.js';
import { visibleChannel } from '../access/channels.js';
import { activeSubscriberIds } from '../channels/format.js';
import type { Channel } from '../../model/channels.js';
import { byUser, type CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { linkAttachments } from '../files/index.js';
import { accessMessage, canReadChannelHistory, changeAudience } from '../access/messages.js';
import { checkChannelMove, checkContentEdit, checkMoveTimeLimit, checkPayload, checkTopicChange, isResolveToggle, type PropagateMode } from './edit-rules.js';
import { flagNames } from './format.js';
import { checkCanPost } from './recipients.js';
import { alertedUsers, mentionedUsers, prerendered, topicLinks, type Prerendered } from './render.js';
import { normalizeContent, prerender, WILDCARD_MENTION_THRESHOLD } from './send.js';
import { checkTopicPolicy, cleanTopic, effectiveTopicsPolicy } from './topic-rules.js';
import { messagesDeleted } from './delete.js';

export interface EditInput {
  userId: number;
  messageId: number;
  content?: string;
  /** The SHA-256 (hex) of the content the client edited; refused when the content has changed since. */
  prevContentSha256?: string;
  topic?: string;
  channelId?: number;
  propagateMode: PropagateMode;
  realmUrl: string;
  /** Inline image previews for new content (see SendInput.images). */
  images?: ImageRenderData;
  /** The new content rendered on the worker pool (the command's prepare), as the editor sees the realm. */
  rendered?: Prerendered;
}

export interface EditResult {
  userId: number;
  editTime: number;
  propagateMode: PropagateMode;
  target: StoredMessage;
  /** The target before the edit. */
  before: StoredMessage;
  movedIds: number[];
  topic?: string;
  newChannel?: Channel;
  contentChanged: boolean;
  /** Users told with update_message, each with their flags for the target. */
  audience: { id: number; flags: string[] }[];
  /** Users who lost access through a channel move: told with delete_message. */
  lostAccess: number[];
}

const CONTENT_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned | FLAG_BITS.has_alert_word;

/** New content: rendered as its sender, mention and alert flags recomputed for everyone holding a row. */
async function editContent(t: Tx, state: RealmState, user: User, m: StoredMessage, raw: string, rendering: Prerendered | undefined) {
  const content = normalizeContent(raw);
  const r = prerendered(rendering, content);
  const rows = await t.userMessages.rowsFor([m.id]);
  const holders = rows.map((x) => x.userId);
  const mentioned = mentionedUsers(state, r, holders);
  const alerted = alertedUsers(state, content, holders);
  const participants = r.wildcards.topic && m.kind === 'stream' ? new Set([...(await t.messages.topicParticipantIds(m.channelId!, m.topic)), m.senderId]) : null;
  if (m.kind === 'stream' && !state.userHasRealmPermission(user.id, 'can_mention_many_users_group')) {
    if (r.wildcards.stream && activeSubscriberIds(state, m.channelId!).length > WILDCARD_MENTION_THRESHOLD) throw errors.streamWildcardNotAllowed();
    if (participants && participants.size > WILDCARD_MENTION_THRESHOLD) throw errors.topicWildcardNotAllowed();
  }
  for (const row of rows) {
    let bits = 0;
    if (mentioned.has(row.userId)) bits |= FLAG_BITS.mentioned;
    if (r.wildcards.stream) bits |= FLAG_BITS.stream_wildcard_mentioned;
    if (r.wildcards.topic && (participants === null || participants.has(row.userId))) bits |= FLAG_BITS.topic_wildcard_mentioned;
    if (alerted.has(row.userId)) bits |= FLAG_BITS.has_alert_word;
    if ((row.flags & CONTENT_BITS) !== bits) await t.userMessages.setBits(row.userId, m.id, CONTENT_BITS, bits);
  }
  // The uploads the new content links replace the earlier links (downloads follow what the message shows).
  await linkAttachments(t, state, m.id, content, m.senderId, { edit: true });
  return { content, renderedContent: r.html, hasLink: r.hasLink, hasAttachment: r.hasAttachment, hasImage: r.hasImage, isMeMessage: r.isMeMessage };
}

/** The messages a topic or channel change applies to, oldest first (only those the user may see). */
async function movedMessages(t: Tx, state: RealmState, user: User, m: StoredMessage, ch: Channel, mode: PropagateMode): Promise<StoredMessage[]> {
  if (mode === 'change_one') return [m];
  const ids = await t.messages.topicMessageIds(ch.id, m.topic, mode === 'change_later' ? m.id : null);
  let messages = await t.messages.byIds(ids);
  if (!canReadChannelHistory(state, user, ch)) {
    const mine = await t.userMessages.flagsFor(user.id, ids);
    messages = messages.filter((x) => mine.has(x.id));
  }
  return messages;
}

export const editMessage: CommandDef<EditInput, EditInput & { user: User }, EditResult> = {
  prepare: (state, input) => (input.content === undefined ? input : prerender(state, input, input.userId, input.realmUrl, input.content)),
  orderKey: (input) => byUser(input.userId),
  check(state, input) {
    return { ...input, user: actor(state, input.userId) };
  },

  async write(t, p, state) {
    const now = Math.floor(Date.now() / 1000);
    const { message: m } = await accessMessage(t, state, p.user, p.messageId);
    if (p.content !== undefined) checkContentEdit(state, p.user, m, now);
    if (p.prevContentSha256 !== undefined && createHash('sha256').update(m.content).digest('hex') !== p.prevContentSha256) {
      throw errors.prevContentMismatch();
    }
    let topic = p.topic === undefined ? undefined : cleanTopic(state, p.topic);
    if (topic === m.topic) topic = undefined;
    const channelId = p.channelId === m.channelId ? undefined : p.channelId;
    checkPayload(m, { content: p.content, topic, channelId, propagateMode: p.propagateMode });
    const oldChannel = m.kind === 'stream' ? state.channels.byId.get(m.channelId!) : undefined;
    let newChannel: Channel | undefined;
    if (channelId !== undefined) {
      newChannel = visibleChannel(state, p.user, channelId, 'content');
      checkChannelMove(state, p.user, oldChannel!);
      checkCanPost(state, p.user, newChannel);
    }
    if (topic !== undefined) {
      checkTopicChange(state, p.user, oldChannel!, m.topic, topic);
      if (topic === '' && effectiveTopicsPolicy(state, newChannel ?? oldChannel!) === 'disable_empty_topic') throw errors.topicEmptyOnEdit();
    }
    if (newChannel || topic !== undefined) checkTopicPolicy(state, newChannel ?? oldChannel!, topic ?? m.topic);
    const moving = topic !== undefined || newChannel !== undefined;
    const moved = moving ? await movedMessages(t, state, p.user, m, oldChannel!, p.propagateMode) : [m];
    if (topic !== undefined && !isResolveToggle(m.topic, topic)) checkMoveTimeLimit(state, p.user, m, moved, 'topic', p.propagateMode, now);
    if (newChannel) checkMoveTimeLimit(state, p.user, m, moved, 'channel', p.propagateMode, now);

    const content = p.content === undefined ? undefined : await editContent(t, state, p.user, m, p.content, p.rendered);
    const editTime = new Date(now * 1000);
    const movedIds = moved.map((x) => x.id).sort((a, b) => a - b);
    const isMove = newChannel !== undefined || (topic !== undefined && !isResolveToggle(m.topic, topic));
    for (const x of moved.length > 0 ? moved : [m]) {
      const entry: EditHistoryEntry = { user_id: p.user.id, timestamp: now };
      if (x.id === m.id && content) Object.assign(entry, { prev_content: m.content, prev_rendered_content: m.renderedContent });
      if (topic !== undefined) Object.assign(entry, { prev_topic: x.topic, topic });
      if (newChannel) Object.assign(entry, { prev_stream: x.channelId, stream: newChannel.id });
      await t.messages.update({
        id: x.id,
        content: x.id === m.id ? content : undefined,
        topic,
        channelId: newChannel?.id,
        editHistory: [entry, ...(x.editHistory ?? [])],
        editTime,
        moved: isMove,
      });
    }
    let lostAccess: number[] = [];
    if (newChannel) {
      const holders = new Set((await t.userMessages.rowsFor(movedIds)).map((r) => r.userId));
      const subscribers = new Set(activeSubscriberIds(state, newChannel.id));
      const losing = [...holders].filter((id) => !subscribers.has(id));
      await t.userMessages.deleteRows(losing, movedIds);
      // Subscribers holding none of the moved messages get a row for each (those holding some keep theirs as they are).
      const gaining = [...subscribers].filter((id) => !holders.has(id));
      await t.userMessages.insertMissing(gaining.flatMap((userId) => movedIds.map((messageId) => ({ userId, messageId, flags: FLAG_BITS.read }))));
      lostAccess = losing.filter((id) => {
        const u = state.usersById.get(id);
        return u?.isActive && !canReadChannelHistory(state, u, newChannel!);
      });
    }
    const target = (await t.messages.byId(m.id))!;
    const rows = await t.userMessages.rowsFor([m.id]);
    const flagsOf = new Map(rows.map((r) => [r.userId, r.flags]));
    const audienceIds = changeAudience(state, flagsOf.keys(), target.channelId).filter((id) => !lostAccess.includes(id));
    const audience = audienceIds.map((id) => ({ id, flags: flagNames(flagsOf.get(id) ?? 0) }));
    return { userId: p.user.id, editTime: now, propagateMode: p.propagateMode, target, before: m, movedIds, topic, newChannel, contentChanged: content !== undefined, audience, lostAccess };
  },

  events(state, r) {
    const m = r.before;
    const event: UpdateMessageEvent = { kind: 'update_message', editorId: r.userId, editTime: r.editTime, messageId: m.id, messageIds: r.movedIds, renderingOnly: false };
    if (m.kind === 'stream') event.channel = { id: m.channelId!, name: state.channels.byId.get(m.channelId!)?.name ?? '' };
    if (r.contentChanged) {
      const t = r.target;
      event.content = { before: { content: m.content, rendered: m.renderedContent }, content: t.content, rendered: t.renderedContent, isMeMessage: t.isMeMessage };
    }
    if (r.topic !== undefined || r.newChannel) {
      event.move = { propagateMode: r.propagateMode, origTopic: m.topic, emptyTopicDisplayName: realmSetting(state, 'empty_topic_display_name') };
      if (r.topic !== undefined) event.move.topic = { name: r.topic, links: topicLinks(state, r.topic) };
      if (r.newChannel) event.move.newChannelId = r.newChannel.id;
    }
    const events: RealmEvent[] = [{ event, users: r.audience.map((a) => ({ id: a.id, flags: a.flags })) }];
    if (r.lostAccess.length > 0 && m.kind === 'stream') {
      events.push(messagesDeleted(state, { channelId: m.channelId!, topic: m.topic }, r.movedIds, r.lostAccess));
    }
    return events;
  },
};
