// Who may change what in a message (PATCH /messages/{id}): Zulip's payload validation, content editing
// permission and time limit, topic moves, resolving, channel moves and their time limits.
import { errors } from '../../errors.js';
import { RESOLVED_TOPIC_PREFIX } from '../../narrow/index.js';
import type { StoredMessage } from '../../model/messages.js';
import { canAdminister, inChannelSetting } from '../access/channels.js';
import type { Channel } from '../../model/channels.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import { ROLE, type User } from '../../model/realm.js';

/** Zulip allows content edits this many seconds past the limit (client-side countdown slack). */
export const EDIT_LIMIT_BUFFER_SECONDS = 20;

export type PropagateMode = 'change_one' | 'change_later' | 'change_all';

export function checkPayload(m: StoredMessage, change: { content?: string; topic?: string; channelId?: number; propagateMode: PropagateMode }): void {
  if (change.topic === undefined && change.content === undefined && change.channelId === undefined) throw errors.nothingToChange();
  if (m.kind !== 'stream') {
    if (change.channelId !== undefined) throw errors.directMessageMove();
    if (change.topic !== undefined) throw errors.directMessageTopic();
  }
  if (change.propagateMode !== 'change_one' && change.topic === undefined && change.channelId === undefined) {
    throw errors.propagateModeWithoutMove();
  }
  if (change.channelId !== undefined && change.content !== undefined) throw errors.contentAndChannelEdit();
}

/** Zulip's validate_user_can_edit_message: editing on, one's own message, within the limit. */
export function checkContentEdit(state: RealmState, user: User, m: StoredMessage, now: number): void {
  if (!realmSetting(state, 'allow_message_editing')) throw errors.messageEditingDisabled();
  if (m.senderId !== user.id) throw errors.cannotEditMessage();
  const limit = realmSetting(state, 'message_content_edit_limit_seconds');
  if (limit !== null && now - m.dateSent > limit + EDIT_LIMIT_BUFFER_SECONDS) throw errors.editTimeLimitPassed();
}

function stripResolved(topic: string): string {
  let t = topic;
  while (t.startsWith(RESOLVED_TOPIC_PREFIX)) t = t.slice(RESOLVED_TOPIC_PREFIX.length);
  return t;
}

/** Whether the change only adds or removes the resolved-topic prefix. */
export function isResolveToggle(oldTopic: string, newTopic: string): boolean {
  const oldResolved = oldTopic.startsWith(RESOLVED_TOPIC_PREFIX);
  const newResolved = newTopic.startsWith(RESOLVED_TOPIC_PREFIX);
  return oldResolved !== newResolved && stripResolved(oldTopic) === stripResolved(newTopic);
}

const isModerator = (u: User) => u.role <= ROLE.MODERATOR;

/** Renaming a topic (or resolving it) in a channel. */
export function checkTopicChange(state: RealmState, user: User, ch: Channel, oldTopic: string, newTopic: string): void {
  if (isResolveToggle(oldTopic, newTopic)) {
    const ok = state.userHasRealmPermission(user.id, 'can_resolve_topics_group') || inChannelSetting(state, user, ch, 'can_resolve_topics_group');
    if (!ok) throw errors.cannotResolveTopic();
    return;
  }
  const ok =
    state.userHasRealmPermission(user.id, 'can_move_messages_between_topics_group') ||
    inChannelSetting(state, user, ch, 'can_move_messages_within_channel_group') ||
    canAdminister(state, user, ch);
  if (!ok) throw errors.cannotEditMessage();
}

/** Moving messages out of a channel. */
export function checkChannelMove(state: RealmState, user: User, from: Channel): void {
  const ok =
    state.userHasRealmPermission(user.id, 'can_move_messages_between_channels_group') ||
    inChannelSetting(state, user, from, 'can_move_messages_out_of_channel_group') ||
    canAdminister(state, user, from);
  if (!ok) throw errors.cannotMoveMessage();
}

/**
 * The time limits on moves (moderators and above have none): the target message must be recent enough; with
 * change_all, every moved message must be (else MOVE_MESSAGES_TIME_LIMIT_EXCEEDED with what may be moved).
 */
export function checkMoveTimeLimit(
  state: RealmState,
  user: User,
  target: StoredMessage,
  moved: StoredMessage[],
  kind: 'topic' | 'channel',
  mode: PropagateMode,
  now: number,
): void {
  if (isModerator(user)) return;
  const limit =
    kind === 'topic' ? realmSetting(state, 'move_messages_within_stream_limit_seconds') : realmSetting(state, 'move_messages_between_streams_limit_seconds');
  if (limit === null) return;
  const tooOld = (m: StoredMessage) => now - m.dateSent > limit;
  if (mode === 'change_all') {
    const allowed = moved.filter((m) => !tooOld(m));
    if (allowed.length < moved.length) throw errors.moveTimeLimitExceeded(allowed.length, moved.length, allowed[0]?.id ?? null);
    return;
  }
  if (tooOld(target)) throw kind === 'topic' ? errors.topicMoveTimeLimitPassed() : errors.channelMoveTimeLimitPassed();
}
