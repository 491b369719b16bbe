// Muted users: POST and DELETE /users/me/muted_users/{muted_user_id}.
import { endpoint } from '../endpoint.js';
import { int, required } from '../params.js';

function changeMute(method: 'POST' | 'DELETE', kind: 'mutedUsers.mute' | 'mutedUsers.unmute') {
  return endpoint({
    method,
    path: '/users/me/muted_users/{muted_user_id}',
    auth: 'user',
    params: { muted_user_id: required(int()) },
    async handle(ctx, p) {
      await ctx.realm.dispatch(kind, { userId: ctx.user.id, mutedUserId: p.muted_user_id, now: Math.floor(Date.now() / 1000) });
      return {};
    },
  });
}

export const mutedUserEndpoints = [changeMute('POST', 'mutedUsers.mute'), changeMute('DELETE', 'mutedUsers.unmute')];
