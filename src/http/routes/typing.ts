// POST /typing: typing notifications for direct messages and channel topics; POST /messages/{id}/typing for edits.
import { accessMessage } from '../../realm/access/messages.js';
import { requireRecipientsAccess } from '../../realm/access/users.js';
import type { EditTypingInput } from '../../realm/people/typing.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { enumOf, int, list, optional, required, str, withDefault } from '../../params.js';

export const typing = endpoint({
  method: 'POST',
  path: '/typing',
  auth: 'user',
  params: {
    type: withDefault(enumOf(['direct', 'stream', 'channel'] as const), 'direct'),
    op: required(enumOf(['start', 'stop'] as const)),
    to: optional(list(int(), { maxItems: 1000 })),
    stream_id: optional(int()),
    topic: optional(str({ maxLength: 1000 })),
  },
  async handle(ctx, p) {
    if (p.type === 'direct') {
      if (p.to === undefined) throw errors.missingArgument('to');
      // Typing to users one may not write to (can_access_all_users_group) is refused as the message would be.
      await requireRecipientsAccess(ctx.services.db, ctx.realm.state, ctx.user, p.to);
      await ctx.realm.dispatch('typing.notify', { kind: 'direct', senderId: ctx.user.id, op: p.op, to: p.to });
    } else {
      if (p.stream_id === undefined) throw errors.badRequest('Missing channel ID');
      if (p.topic === undefined) throw errors.missingTopic();
      await ctx.realm.dispatch('typing.notify', { kind: 'stream', senderId: ctx.user.id, op: p.op, channelId: p.stream_id, topic: p.topic });
    }
    return {};
  },
});


/** POST /messages/{message_id}/typing: typing in a message being edited, told to those who would see the edit. */
export const editTyping = endpoint({
  method: 'POST',
  path: '/messages/{message_id}/typing',
  auth: 'user',
  params: { message_id: required(int()), op: required(enumOf(['start', 'stop'] as const)) },
  async handle(ctx, p) {
    const db = ctx.services.db;
    const { message: m } = await accessMessage(db, ctx.realm.state, ctx.user, p.message_id);
    const to: EditTypingInput['to'] =
      m.kind === 'stream'
        ? { kind: 'stream', channelId: m.channelId!, topic: m.topic }
        : { kind: 'direct', userIds: (await db.userMessages.rowsFor([m.id])).map((r) => r.userId) };
    await ctx.realm.dispatch('typing.editMessage', { senderId: ctx.user.id, op: p.op, messageId: m.id, to });
    return {};
  },
});

export const typingEndpoints = [typing, editTyping];
