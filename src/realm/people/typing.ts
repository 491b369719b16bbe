// Typing notifications: checked against the sender's and recipients' settings and published through the realm
// actor without a database write (nothing about typing is stored).
import type { RealmEvent, TypingEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { visibleChannel } from '../access/channels.js';
import { activeSubscriberIds } from '../channels/format.js';
import type { CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import { normalizeTopic } from '../topics.js';
import { actor } from '../access/roles.js';
import { userSetting } from './user-settings.js';

export type TypingInput =
  | { kind: 'direct'; senderId: number; op: 'start' | 'stop'; to: number[] }
  | { kind: 'stream'; senderId: number; op: 'start' | 'stop'; channelId: number; topic: string };

function receivers(state: RealmState, ids: Iterable<number>): number[] {
  const out: number[] = [];
  for (const id of new Set(ids)) {
    const u = state.usersById.get(id);
    if (u?.isActive && userSetting(u, 'receives_typing_notifications') !== false) out.push(id);
  }
  return out.sort((a, b) => a - b);
}

const notify: CommandDef<TypingInput, RealmEvent[], RealmEvent[]> = {
  batchable: true,
  answeredAtOnce: true,
  check(state, input) {
    const sender = actor(state, input.senderId);
    const who = { userId: sender.id, email: state.apiEmailOf(sender) };
    if (input.kind === 'direct') {
      if (userSetting(sender, 'send_private_typing_notifications') === false) {
        throw errors.badRequest('User has disabled typing notifications for direct messages');
      }
      if (input.to.length === 0) throw errors.badRequest("Empty 'to' list");
      for (const id of input.to) {
        const u = state.usersById.get(id);
        if (!u || !u.isActive) throw errors.invalidRecipientUserId(id);
      }
      const all = [...new Set([...input.to, sender.id])].sort((a, b) => a - b);
      const recipients = all.map((id) => ({ userId: id, email: state.apiEmailOf(state.usersById.get(id)!) }));
      return [{ event: { kind: 'typing', op: input.op, sender: who, to: 'direct', recipients }, users: receivers(state, all) }];
    }
    if (userSetting(sender, 'send_stream_typing_notifications') === false) {
      throw errors.badRequest('User has disabled typing notifications for channel messages');
    }
    const ch = visibleChannel(state, sender, input.channelId, 'content');
    const event: TypingEvent = { kind: 'typing', op: input.op, sender: who, to: 'stream', channelId: ch.id, topic: normalizeTopic(state, input.topic) };
    const users = receivers(state, activeSubscriberIds(state, ch.id)).filter((id) => id !== sender.id);
    // Clients without the stream_typing_notifications capability get no channel typing events.
    return [{ event, users, legacy: { stream_typing_notifications: [] } }];
  },
  events: (_state, events) => events,
};

export interface EditTypingInput {
  senderId: number;
  op: 'start' | 'stop';
  messageId: number;
  /** Who would hear of the edit: the message's direct recipients (its rows), or its channel and topic. */
  to: { kind: 'direct'; userIds: number[] } | { kind: 'stream'; channelId: number; topic: string };
}

/** typing_edit_message: someone is editing a message, told to those who would see the edit. */
const notifyEdit: CommandDef<EditTypingInput, RealmEvent[], RealmEvent[]> = {
  batchable: true,
  answeredAtOnce: true,
  check(state, input) {
    const sender = actor(state, input.senderId);
    const base = { kind: 'typing_edit', op: input.op, senderId: sender.id, messageId: input.messageId } as const;
    if (input.to.kind === 'direct') {
      const userIds = [...new Set(input.to.userIds)].sort((a, b) => a - b);
      return [{ event: { ...base, to: { kind: 'direct' as const, userIds } }, users: receivers(state, userIds) }];
    }
    const { channelId, topic } = input.to;
    const users = receivers(state, activeSubscriberIds(state, channelId)).filter((id) => id !== sender.id);
    return [{ event: { ...base, to: { kind: 'stream' as const, channelId, topic } }, users }];
  },
  events: (_state, events) => events,
};

export const typingCommands = { 'typing.notify': notify, 'typing.editMessage': notifyEdit };
