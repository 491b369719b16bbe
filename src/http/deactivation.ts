// Deactivating an account over HTTP (a user's own, another user, a bot): the realm actor deactivates, then the
// event queues of every account that went are closed.
import type { RequestContext } from './endpoint.js';

/** Deactivates through the realm actor, then closes the event queues of every account that went. */
export async function deactivate(
  ctx: RequestContext<'user'>,
  userId: number,
  notificationComment: string | null,
  target: { own?: boolean; bot?: boolean } = {},
) {
  const { ids } = await ctx.realm.dispatch('users.deactivate', {
    actorId: ctx.user.id,
    userId,
    notificationComment,
    ...target,
  });
  const queues = ctx.services.queues;
  for (const id of ids) for (const q of queues.byUser(id)) queues.delete(q.queueId);
  return {};
}
