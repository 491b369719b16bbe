// Deleting a message (DELETE /messages/{id}): who may (any message, or one's own within the time limit), and the
// delete_message event (bulk message_ids, or one event per message for queues without bulk_message_deletion).
import type { DeletedFrom, RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { StoredMessage } from '../../model/messages.js';
import { inChannelSetting } from '../access/channels.js';
import { streamUpdate } from '../channels/events.js';
import type { CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { accessMessage, changeAudience } from '../access/messages.js';

/**
 * The delete_message event telling users that messages are gone (deleted, or moved where they cannot follow):
 * from a channel's topic, or direct messages when `channel` is null.
 */
export function messagesDeleted(state: RealmState, channel: { channelId: number; topic: string } | null, messageIds: number[], users: number[]): RealmEvent {
  const from: DeletedFrom = channel ? { kind: 'stream', ...channel, emptyTopicDisplayName: realmSetting(state, 'empty_topic_display_name') } : { kind: 'direct' };
  const ids = [...messageIds].sort((a, b) => a - b);
  return {
    event: { kind: 'delete_message', from, messageIds: ids },
    users,
    legacy: { bulk_message_deletion: ids.map((messageId) => ({ kind: 'delete_message', from, messageId })) },
  };
}

/** Zulip's validate_can_delete_message. */
export function checkCanDelete(state: RealmState, user: User, m: StoredMessage, now: number): void {
  const ch = m.kind === 'stream' ? state.channels.byId.get(m.channelId!) : undefined;
  if (state.userHasRealmPermission(user.id, 'can_delete_any_message_group') || (ch !== undefined && inChannelSetting(state, user, ch, 'can_delete_any_message_group'))) return;
  const sender = state.usersById.get(m.senderId);
  if (m.senderId !== user.id && sender?.botOwnerId !== user.id) throw errors.cannotDeleteMessage();
  if (!state.userHasRealmPermission(user.id, 'can_delete_own_message_group') && !(ch !== undefined && inChannelSetting(state, user, ch, 'can_delete_own_message_group'))) {
    throw errors.cannotDeleteMessage();
  }
  const limit = realmSetting(state, 'message_content_delete_limit_seconds');
  if (limit !== null && now - m.dateSent > limit) throw errors.deleteTimeLimitPassed();
}

export interface DeleteResult {
  message: StoredMessage;
  audience: number[];
  /** The channel's oldest message after the deletion, when the deleted one was its first. */
  firstMessageId?: number | null;
}

export const deleteMessage: CommandDef<{ userId: number; messageId: number }, { user: User; messageId: number }, DeleteResult> = {
  check(state, input) {
    return { user: actor(state, input.userId), messageId: input.messageId };
  },

  async write(t, p, state) {
    const { message } = await accessMessage(t, state, p.user, p.messageId);
    checkCanDelete(state, p.user, message, Math.floor(Date.now() / 1000));
    const holders = (await t.userMessages.rowsFor([message.id])).map((r) => r.userId);
    const audience = changeAudience(state, holders, message.channelId);
    await t.messages.delete([message.id]);
    const result: DeleteResult = { message, audience };
    if (message.kind === 'stream' && state.channels.byId.get(message.channelId!)?.firstMessageId === message.id) {
      result.firstMessageId = await t.channels.firstMessageId(message.channelId!);
    }
    return result;
  },

  apply(state, r) {
    if (r.firstMessageId === undefined) return;
    const ch = state.channels.byId.get(r.message.channelId!);
    if (ch) ch.firstMessageId = r.firstMessageId;
  },

  events(state, r) {
    const m = r.message;
    const events = [messagesDeleted(state, m.kind === 'stream' ? { channelId: m.channelId!, topic: m.topic } : null, [m.id], r.audience)];
    const ch = m.channelId === null ? undefined : state.channels.byId.get(m.channelId);
    if (r.firstMessageId !== undefined && ch) events.push(streamUpdate(state, ch, 'first_message_id', r.firstMessageId));
    return events;
  },
};
