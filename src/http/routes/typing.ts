// POST /typing: typing notifications for direct messages and channel topics.
import { requireRecipientsAccess } from '../../realm/people/user-access.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../errors.js';
import { enumOf, int, list, optional, required, str, withDefault } from '../params.js';

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
      await ctx.realm.dispatch('typing.notify', { kind: 'stream', senderId: ctx.user.id, op: p.op, streamId: p.stream_id, topic: p.topic });
    }
    return {};
  },
});

export const typingEndpoints = [typing];
