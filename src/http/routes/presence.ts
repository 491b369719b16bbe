// Presence: report your own (and fetch everyone's), read one user's, read the realm's.
import { targetUserByIdOrEmail } from '../../realm/access/roles.js';
import { legacyPresence, presenceResponse, presenceVisible } from '../../realm/people/presence.js';
import { accessibleUsersOf, requireUserAccess } from '../../realm/access/users.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, enumOf, int, optional, required, str, withDefault } from '../../params.js';

export const updatePresence = endpoint({
  method: 'POST',
  path: '/users/me/presence',
  auth: 'user',
  bots: 'none',
  params: {
    status: required(enumOf(['active', 'idle'] as const)),
    last_update_id: optional(int({ min: -1 })),
    history_limit_days: optional(int({ min: 0, max: 36500 })),
    new_user_input: withDefault(bool(), false),
    ping_only: withDefault(bool(), false),
    slim_presence: withDefault(bool(), false),
  },
  async handle(ctx, p) {
    const presence = ctx.services.presence;
    await presence.ping(ctx.realm, ctx.user.id, p.status);
    if (p.ping_only) return { presence_last_update_id: p.last_update_id ?? -1, zephyr_mirror_active: false };
    const { presences, lastUpdateId } = presenceResponse(ctx.realm.state, await presence.all(ctx.realm), {
      accessible: await accessibleUsersOf(ctx.services.db, ctx.realm.state, ctx.user),
      lastUpdateId: p.last_update_id,
      historyDays: p.history_limit_days,
      modern: p.last_update_id !== undefined || p.slim_presence,
      now: presence.now(),
    });
    return {
      presences,
      server_timestamp: Date.now() / 1000,
      presence_last_update_id: lastUpdateId,
      zephyr_mirror_active: false,
    };
  },
});

export const getUserPresence = endpoint({
  method: 'GET',
  path: '/users/{user_id}/presence',
  auth: 'user',
  params: { user_id: required(str({ maxLength: 254 })) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const user = targetUserByIdOrEmail(state, ctx.user, p.user_id);
    await requireUserAccess(ctx.services.db, state, ctx.user, user);
    if (user.isBot) throw errors.badRequest('Presence is not supported for bot users.');
    const record = await ctx.services.presence.of(ctx.realm, user.id);
    if (!record || record.lastConnected === 0 || !presenceVisible(state, user)) {
      throw errors.badRequest(`No presence data for ${p.user_id}`);
    }
    return { presence: legacyPresence(user.dateJoined, record) };
  },
});

export const getRealmPresence = endpoint({
  method: 'GET',
  path: '/realm/presence',
  auth: 'user',
  params: {},
  async handle(ctx) {
    const presence = ctx.services.presence;
    const { presences } = presenceResponse(ctx.realm.state, await presence.all(ctx.realm), {
      accessible: await accessibleUsersOf(ctx.services.db, ctx.realm.state, ctx.user),
      modern: false,
      now: presence.now(),
    });
    return { presences, server_timestamp: Date.now() / 1000 };
  },
});

export const presenceEndpoints = [updatePresence, getUserPresence, getRealmPresence];
