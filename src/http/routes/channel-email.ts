// GET /streams/{stream_id}/email_address: a channel's incoming-email address. Without an incoming email gateway
// (Palaver has none) the reference answers the empty string, after the same access and sender checks.
import { visibleChannel } from '../../realm/access/channels.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { int, optional, required } from '../../params.js';

export const channelEmailAddress = endpoint({
  method: 'GET',
  path: '/streams/{stream_id}/email_address',
  auth: 'user',
  params: { stream_id: required(int()), sender_id: optional(int()) },
  handle(ctx, p) {
    const state = ctx.realm.state;
    visibleChannel(state, ctx.user, p.stream_id, 'content');
    if (p.sender_id !== undefined && p.sender_id !== ctx.user.id) {
      // Otherwise only a bot the caller owns may appear as the sender.
      const sender = state.usersById.get(p.sender_id);
      if (!sender || !sender.isBot || sender.botOwnerId !== ctx.user.id) throw errors.badRequest('Invalid user ID');
    }
    return { email: '' };
  },
});
