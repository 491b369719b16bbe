// Invitations: reusable links (E12) and email invitations (send, revoke, resend); listing shows both.
import { formatEmailInvite, formatInvite, inviteLink, WELCOME_MESSAGE_MAX } from '../../realm/people/invites.js';
import type { EmailInvite } from '../../model/people.js';
import { INVITEE_EMAILS_MAX_CHARS, parseInviteeEmails } from '../../realm/people/email-invites.js';
import { isAdmin, requireMemberOrAdmin } from '../../realm/access/roles.js';
import { ROLES, type User } from '../../model/realm.js';
import { endpoint, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, int, intEnum, list, nullable, optional, required, str, withDefault } from '../../params.js';
import { requestRealmUrl } from '../context.js';

/** Minutes an invitation lasts: null never expires; absent, the server's default. */
const expiresInMinutes = () => optional(nullable(int({ min: 1, max: 100 * 365 * 24 * 60 })));

export const createMultiuseInvite = endpoint({
  method: 'POST',
  path: '/invites/multiuse',
  auth: 'user',
  params: {
    invite_expires_in_minutes: expiresInMinutes(),
    invite_as: withDefault(intEnum(ROLES), 400),
    stream_ids: withDefault(list(int(), { maxItems: 10_000 }), [] as number[]),
    group_ids: withDefault(list(int(), { maxItems: 10_000 }), [] as number[]),
    include_realm_default_subscriptions: withDefault(bool(), false),
    welcome_message_custom_text: optional(nullable(str({ maxLength: WELCOME_MESSAGE_MAX }))),
  },
  async handle(ctx, p) {
    const invite = await ctx.realm.dispatch('invites.create', {
      actorId: ctx.user.id,
      invitedAs: p.invite_as,
      expiresInMinutes: p.invite_expires_in_minutes === undefined ? ctx.services.config.invitationLinkValidityMinutes : p.invite_expires_in_minutes,
      channelIds: p.stream_ids,
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
    requireMemberOrAdmin(ctx.user);
    const state = ctx.realm.state;
    const now = Math.floor(Date.now() / 1000);
    // Administrators see every live invitation; others their own. Email invitations first, as the reference lists.
    const mine = isAdmin(ctx.user) ? undefined : ctx.user.id;
    const [emails, links] = await Promise.all([
      ctx.services.db.emailInvites.live(state.realm.id, now, mine),
      ctx.services.db.invites.live(state.realm.id, now, mine),
    ]);
    const url = requestRealmUrl(ctx);
    return { invites: [...emails.map(formatEmailInvite), ...links.map((i) => formatInvite(i, url))] };
  },
});

export const sendInvites = endpoint({
  method: 'POST',
  path: '/invites',
  auth: 'user',
  params: {
    invitee_emails: required(str({ maxLength: INVITEE_EMAILS_MAX_CHARS })),
    invite_expires_in_minutes: expiresInMinutes(),
    invite_as: withDefault(intEnum(ROLES), 400),
    stream_ids: required(list(int(), { maxItems: 10_000 })),
    group_ids: withDefault(list(int(), { maxItems: 10_000 }), [] as number[]),
    include_realm_default_subscriptions: withDefault(bool(), false),
    notify_referrer_on_join: withDefault(bool(), true),
    welcome_message_custom_text: optional(nullable(str({ maxLength: WELCOME_MESSAGE_MAX }))),
  },
  async handle(ctx, p) {
    const config = ctx.services.config;
    const sent = await ctx.realm.dispatch('invites.send', {
      actorId: ctx.user.id,
      emails: parseInviteeEmails(p.invitee_emails),
      invitedAs: p.invite_as,
      expiresInMinutes: p.invite_expires_in_minutes === undefined ? config.invitationLinkValidityMinutes : p.invite_expires_in_minutes,
      channelIds: p.stream_ids,
      groupIds: p.group_ids,
      includeRealmDefaultSubscriptions: p.include_realm_default_subscriptions,
      notifyReferrerOnJoin: p.notify_referrer_on_join,
      welcomeMessageCustomText: p.welcome_message_custom_text ?? null,
      realmUrl: requestRealmUrl(ctx),
      dailyMax: config.invitesDailyMax,
      now: Math.floor(Date.now() / 1000),
    });
    if (sent.skipped.length) {
      // The others were invited (and committed); the reference still answers with an error naming the skipped.
      throw errors.invitationFailed(
        "Some of those addresses are already using Palaver, so we didn't send them an invitation. We did send invitations to everyone else!",
        sent.skipped,
        { sent: true },
      );
    }
    return {};
  },
});

/** An email invitation of the caller's realm by ID. */
async function emailInvite(ctx: RequestContext, user: User, id: number): Promise<EmailInvite> {
  requireMemberOrAdmin(user);
  const invite = await ctx.services.db.emailInvites.byId(ctx.realm.state.realm.id, id);
  if (!invite) throw errors.noSuchInvitation();
  return invite;
}

export const revokeEmailInvite = endpoint({
  method: 'DELETE',
  path: '/invites/{invite_id}',
  auth: 'user',
  params: { invite_id: required(int()) },
  async handle(ctx, p) {
    const invite = await emailInvite(ctx, ctx.user, p.invite_id);
    await ctx.realm.dispatch('invites.revokeEmail', { actorId: ctx.user.id, invite });
    return {};
  },
});

export const resendEmailInvite = endpoint({
  method: 'POST',
  path: '/invites/{invite_id}/resend',
  auth: 'user',
  params: { invite_id: required(int()) },
  async handle(ctx, p) {
    const invite = await emailInvite(ctx, ctx.user, p.invite_id);
    await ctx.realm.dispatch('invites.resend', {
      actorId: ctx.user.id,
      invite,
      realmUrl: requestRealmUrl(ctx),
      dailyMax: ctx.services.config.invitesDailyMax,
      now: Math.floor(Date.now() / 1000),
    });
    return {};
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

export const inviteEndpoints = [createMultiuseInvite, getInvites, revokeMultiuseInvite, sendInvites, revokeEmailInvite, resendEmailInvite];
