// Users: list and fetch user records, create accounts, change role and name, deactivate and reactivate.
import { hashNewPassword } from '../../auth/password-policy.js';
import { requireAdmin, targetUserByIdOrEmail } from '../../realm/access/roles.js';
import { accessibleUsersOf, requireUserAccess, unknownUser } from '../../realm/access/users.js';
import { profileValue } from '../../realm/people/profile-fields.js';
import { checkNewAccount } from '../../realm/people/users.commands.js';
import { ROLES, type User } from '../../model/realm.js';
import { formatUser } from '../../realm/user-format.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, int, intEnum, list, nullable, object, optional, required, str, withDefault } from '../../params.js';
import { deactivate } from '../deactivation.js';
import { requestRealmUrl } from '../context.js';

export const getOwnUser = endpoint({
  method: 'GET',
  path: '/users/me',
  auth: 'user',
  params: {},
  async handle(ctx) {
    const { bot_type, ...me } = formatUser(ctx.user, { includeDeliveryEmail: true, emailDomain: ctx.realm.state.emailDomain });
    // As in the reference: bot_type only for bots; the highest id of a message the user has received.
    const maxMessageId = await ctx.services.db.userMessages.maxMessageId(ctx.user.id);
    return { ...me, ...(ctx.user.isBot ? { bot_type } : {}), max_message_id: maxMessageId };
  },
});

export const getUsers = endpoint({
  method: 'GET',
  path: '/users',
  auth: 'user',
  params: {
    client_gravatar: withDefault(bool(), true),
    include_custom_profile_fields: withDefault(bool(), false),
    user_ids: optional(list(int(), { maxItems: 100_000 })),
  },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    let users: User[];
    if (p.user_ids) {
      users = p.user_ids.map((id) => {
        const u = state.usersById.get(id);
        if (!u) throw errors.invalidUserId(id);
        return u;
      });
    } else users = [...state.usersById.values()];
    // Users the realm's can_access_all_users_group keeps from the viewer are "Unknown user" placeholders.
    const accessible = await accessibleUsersOf(ctx.services.db, state, ctx.user);
    const emailDomain = state.emailDomain;
    const opts = { viewer: ctx.user, clientGravatar: p.client_gravatar, emailDomain, includeCustomProfileFields: p.include_custom_profile_fields };
    return {
      members: users.map((u) => (accessible && !accessible.has(u.id) ? unknownUser(u.id, emailDomain) : formatUser(u, opts))),
    };
  },
});

export const getUser = endpoint({
  method: 'GET',
  path: '/users/{user_id}',
  auth: 'user',
  params: {
    user_id: required(str({ maxLength: 254 })),
    client_gravatar: withDefault(bool(), true),
    include_custom_profile_fields: withDefault(bool(), false),
  },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const user = targetUserByIdOrEmail(state, ctx.user, p.user_id, { allowDeactivated: true });
    await requireUserAccess(ctx.services.db, state, ctx.user, user);
    const includeCustomProfileFields = p.include_custom_profile_fields;
    return { user: formatUser(user, { viewer: ctx.user, clientGravatar: p.client_gravatar, emailDomain: state.emailDomain, includeCustomProfileFields }) };
  },
});

export const createUserEndpoint = endpoint({
  method: 'POST',
  path: '/users',
  auth: 'user',
  params: {
    email: required(str({ maxLength: 254 })),
    password: required(str({ maxLength: 1024 })),
    full_name: required(str({ maxLength: 1000 })),
  },
  async handle(ctx, p) {
    // Refuse early, before the (slow) password hash; the realm actor checks everything again.
    requireAdmin(ctx.user);
    if (!ctx.user.canCreateUsers) throw errors.badRequest('User not authorized to create users');
    checkNewAccount(ctx.realm.state, p.email, p.full_name);
    const passwordHash = await hashNewPassword(p.password, ctx.services.config.passwordHashCost);
    const created = await ctx.realm.dispatch('users.create', {
      actorId: ctx.user.id,
      email: p.email,
      fullName: p.full_name,
      passwordHash,
      defaultChannels: true,
    });
    return { user_id: created.user.id };
  },
});

export const updateUser = endpoint({
  method: 'PATCH',
  path: '/users/{user_id}',
  auth: 'user',
  params: {
    user_id: required(int()),
    full_name: optional(str({ maxLength: 1000 })),
    role: optional(intEnum(ROLES)),
    profile_data: optional(list(object({ id: required(int()), value: required(nullable(profileValue)) }), { maxItems: 1000 })),
  },
  async handle(ctx, p) {
    // An empty value removes the user's value, as null does (the reference's rule for this endpoint).
    const profileData = p.profile_data?.map((e) => ({ id: e.id, value: e.value === '' || (Array.isArray(e.value) && e.value.length === 0) ? null : e.value }));
    await ctx.realm.dispatch('users.update', {
      actorId: ctx.user.id,
      userId: p.user_id,
      role: p.role,
      fullName: p.full_name,
      profileData,
      realmUrl: requestRealmUrl(ctx),
    });
    return {};
  },
});

export const deactivateOwnUser = endpoint({
  method: 'DELETE',
  path: '/users/me',
  auth: 'user',
  params: {},
  handle: (ctx) => deactivate(ctx, ctx.user.id, null, { own: true }),
});

export const deactivateUser = endpoint({
  method: 'DELETE',
  path: '/users/{user_id}',
  auth: 'user',
  params: {
    user_id: required(int()),
    deactivation_notification_comment: optional(nullable(str({ maxLength: 2000 }))),
  },
  handle: (ctx, p) => deactivate(ctx, p.user_id, p.deactivation_notification_comment ?? null),
});

export const reactivateUser = endpoint({
  method: 'POST',
  path: '/users/{user_id}/reactivate',
  auth: 'user',
  params: { user_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('users.reactivate', { actorId: ctx.user.id, userId: p.user_id });
    return {};
  },
});

export const userEndpoints = [
  getOwnUser,
  deactivateOwnUser,
  getUsers,
  createUserEndpoint,
  getUser,
  updateUser,
  deactivateUser,
  reactivateUser,
];
