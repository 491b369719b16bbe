// User status: set your own, an administrator sets another user's, anyone reads one.
import { targetUser } from '../../realm/access/roles.js';
import { STATUS_TEXT_MAX, formatStatus } from '../../realm/people/status.js';
import { requireUserAccess } from '../../realm/access/users.js';
import { endpoint, type RequestContext } from '../endpoint.js';
import { bool, int, optional, required, str } from '../../params.js';

const statusParams = {
  status_text: optional(str({ maxLength: STATUS_TEXT_MAX, trim: true })),
  emoji_name: optional(str({ maxLength: 100 })),
  emoji_code: optional(str({ maxLength: 100 })),
  reaction_type: optional(str({ maxLength: 100 })),
};

type StatusParams = { status_text?: string; away?: boolean; emoji_name?: string; emoji_code?: string; reaction_type?: string };

async function setStatus(ctx: RequestContext<'user'>, userId: number, p: StatusParams) {
  await ctx.realm.dispatch('status.update', {
    actorId: ctx.user.id,
    userId,
    statusText: p.status_text,
    away: p.away,
    emojiName: p.emoji_name,
    emojiCode: p.emoji_code,
    reactionType: p.reaction_type,
  });
  return {};
}

export const updateOwnStatus = endpoint({
  method: 'POST',
  path: '/users/me/status',
  auth: 'user',
  params: { ...statusParams, away: optional(bool()) },
  handle: (ctx, p) => setStatus(ctx, ctx.user.id, p),
});

export const updateUserStatus = endpoint({
  method: 'POST',
  path: '/users/{user_id}/status',
  auth: 'user',
  params: { user_id: required(int()), ...statusParams },
  handle: (ctx, p) => setStatus(ctx, p.user_id, p),
});

export const getUserStatus = endpoint({
  method: 'GET',
  path: '/users/{user_id}/status',
  auth: 'user',
  params: { user_id: required(int()) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const user = targetUser(state, p.user_id);
    await requireUserAccess(ctx.services.db, state, ctx.user, user);
    return { status: formatStatus(state, user.id) };
  },
});

export const statusEndpoints = [updateOwnStatus, updateUserStatus, getUserStatus];
