// Default channels for new users: POST and DELETE /default_streams (administrators).
import { endpoint } from '../endpoint.js';
import { int, required } from '../../params.js';

export const addDefaultStream = endpoint({
  method: 'POST',
  path: '/default_streams',
  auth: 'user',
  params: { stream_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('defaultChannels.set', { actorId: ctx.user.id, channelId: p.stream_id, isDefault: true });
    return {};
  },
});

export const removeDefaultStream = endpoint({
  method: 'DELETE',
  path: '/default_streams',
  auth: 'user',
  params: { stream_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('defaultChannels.set', { actorId: ctx.user.id, channelId: p.stream_id, isDefault: false });
    return {};
  },
});

export const defaultStreamEndpoints = [addDefaultStream, removeDefaultStream];
