// Muted users: POST and DELETE /users/me/muted_users/{muted_user_id}.
import { requireUserAccess } from '../../realm/access/users.js';
import { endpoint } from '../endpoint.js';
import { int, required } from '../../params.js';

function changeMute(method: 'POST' | 'DELETE', kind: 'mutedUsers.mute' | 'mutedUsers.unmute') {
  return endpoint({
    method,
    path: '/users/me/muted_users/{muted_user_id}',
    auth: 'user',
    params: { muted_user_id: required(int()) },
    async handle(ctx, p) {
      // A user the realm keeps from the caller is "Insufficient permission" (the reference's access_user_by_id).
      const target = ctx.realm.state.usersById.get(p.muted_user_id);
      if (target && target.id !== ctx.user.id) await requireUserAccess(ctx.services.db, ctx.realm.state, ctx.user, target);
      await ctx.realm.dispatch(kind, { userId: ctx.user.id, mutedUserId: p.muted_user_id, now: Math.floor(Date.now() / 1000) });
      return {};
    },
  });
}

export const mutedUserEndpoints = [changeMute('POST', 'mutedUsers.mute'), changeMute('DELETE', 'mutedUsers.unmute')];
