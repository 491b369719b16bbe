// Reusable invitation links: create (E12), list, revoke.
import { formatInvite, inviteLink, WELCOME_MESSAGE_MAX } from '../../realm/people/invites.js';
import type { MultiuseInvite } from '../../persistence/repos/invites.js';
import { isAdmin } from '../../realm/people/access.js';
import { ROLES } from '../../realm/types.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../errors.js';
import { bool, int, intEnum, list, nullable, optional, required, str, withDefault } from '../params.js';
import { requestRealmUrl } from './channels.js';

export const createMultiuseInvite = endpoint({
  method: 'POST',
  path: '/invites/multiuse',
  auth: 'user',
  params: {
    invite_expires_in_minutes: optional(nullable(int({ min: 1, max: 100 * 365 * 24 * 60 }))),
    invite_as: withDefault(intEnum(ROLES), 400),
    stream_ids: withDefault(list(int(), { maxItems: 10_000 }), [] as number[]),
    group_ids: withDefault(list(int(), { maxItems: 10_000 }), [] as number[]),
    include_realm_default_subscriptions: withDefault(bool(), false),
    welcome_message_custom_text: optional(nullable(str({ maxLength: WELCOME_MESSAGE_MAX }))),
  },
  async handle(ctx, p) {
    const invite = await ctx.realm.dispatch<MultiuseInvite>('invites.create', {
      actorId: ctx.user.id,
      invitedAs: p.invite_as,
      expiresInMinutes: p.invite_expires_in_minutes === undefined ? ctx.services.config.invitationLinkValidityMinutes : p.invite_expires_in_minutes,
      streamIds: p.stream_ids,
      groupIds: p.group_ids,
      includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
      welcomeMessageCustomText: p.welcome_message_custom_text ?? null,
      now: Math.floor(Date.now() / 1000),
    });
    return { invite_link: inviteLink(requestRealmUrl(ctx), invite.key) };
  },
});

export const getInvites = endpoint({
  method: 'GET',
  path: '/invites',
  auth: 'user',
  params: {},
  async handle(ctx) {
    const state = ctx.realm.state;
    const now = Math.floor(Date.now() / 1000);
    // Administrators see every live invitation; others their own.
    const live = await ctx.services.db.invites.live(state.realm.id, now, isAdmin(ctx.user) ? undefined : ctx.user.id);
    const url = requestRealmUrl(ctx);
    return { invites: live.map((i) => formatInvite(i, url)) };
  },
});

export const revokeMultiuseInvite = endpoint({
  method: 'DELETE',
  path: '/invites/multiuse/{invite_id}',
  auth: 'user',
  params: { invite_id: required(int()) },
  async handle(ctx, p) {
    const invite = await ctx.services.db.invites.byId(ctx.realm.state.realm.id, p.invite_id);
    if (!invite) throw errors.noSuchInvitation();
    await ctx.realm.dispatch('invites.revoke', { actorId: ctx.user.id, invite });
    return {};
  },
});

export const inviteEndpoints = [createMultiuseInvite, getInvites, revokeMultiuseInvite];
