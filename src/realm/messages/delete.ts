// Deleting a message (DELETE /messages/{id}): who may (any message, or one's own within the time limit), and the
// delete_message event (bulk message_ids, or one event per message for queues without bulk_message_deletion).
import type { RealmEvent } from '../../bus/events.js';
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
    const base: Record<string, unknown> =
      m.kind === 'stream'
        ? { type: 'delete_message', message_type: 'stream', stream_id: m.channelId, topic: m.topic, empty_topic_display_name: realmSetting(state, 'empty_topic_display_name') }
        : { type: 'delete_message', message_type: 'private' };
    const events: RealmEvent[] = [
      {
        event: { ...base, type: 'delete_message', message_ids: [m.id] },
        users: r.audience,
        legacy: { bulk_message_deletion: [{ ...base, type: 'delete_message', message_id: m.id }] },
      },
    ];
    const ch = m.channelId === null ? undefined : state.channels.byId.get(m.channelId);
    if (r.firstMessageId !== undefined && ch) events.push(streamUpdate(state, ch, 'first_message_id', r.firstMessageId));
    return events;
  },
};
