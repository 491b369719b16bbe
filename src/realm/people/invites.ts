// Invitations: reusable links (who may create them and with what, their API record, create/revoke commands) and the
// checks and events both kinds share with email invitations (email-invites.ts).
import { randomBytes } from 'node:crypto';
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { MultiuseInvite, NewInvite, EmailInvite } from '../../model/people.js';
import { canAddSubscribers, hasContentAccess } from '../access/channels.js';
import type { CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import { ROLE, type Role, type User } from '../../model/realm.js';
import { activeAdminIds, actor, isAdmin } from '../access/roles.js';
import { canManageGroup, hasGroupPermission } from './groups.js';

export const WELCOME_MESSAGE_MAX = 8000;

/** 24 characters of lowercase letters and digits. */
export function newInviteKey(): string {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  return [...randomBytes(24)].map((b) => alphabet[b % 36]).join('');
}

export function inviteLink(realmUrl: string, key: string): string {
  return `${realmUrl}/join/${key}/`;
}

/** The link that finishes a sign-up: mailed to confirm an address given on a link's page, or with an email invitation. */
export function confirmationLink(realmUrl: string, key: string): string {
  return `${realmUrl}/accounts/do_confirm/${key}/`;
}

export function formatInvite(i: MultiuseInvite, realmUrl: string): Record<string, unknown> {
  return {
    id: i.id,
    invited_by_user_id: i.referredBy,
    invited: i.createdAt,
    expiry_date: i.expiresAt,
    invited_as: i.invitedAs,
    notify_referrer_on_join: false,
    link_url: inviteLink(realmUrl, i.key),
    is_multiuse: true,
  };
}

/** An email invitation as GET /invites lists it. */
export function formatEmailInvite(i: EmailInvite): Record<string, unknown> {
  return {
    id: i.id,
    email: i.email,
    invited_by_user_id: i.referredBy,
    invited: i.invitedAt,
    expiry_date: i.expiresAt,
    invited_as: i.invitedAs,
    notify_referrer_on_join: i.notifyReferrerOnJoin,
    is_multiuse: false,
  };
}

export type InviteState = 'valid' | 'expired' | 'revoked' | 'used';

/**
 * Whether a link or an email invitation may still be used. Beyond its own revocation, use and expiry, its creator
 * must still be active (the reference revokes a user's invitations when they are deactivated; this also covers a
 * deactivation made outside the server) and still hold a role at least as high as the one it gives, so an
 * invitation cannot outlive the rights it was made with.
 */
export function inviteState(state: RealmState, i: MultiuseInvite | EmailInvite, now = Math.floor(Date.now() / 1000)): InviteState {
  const status = 'status' in i ? i.status : i.revoked ? 'revoked' : 'active';
  if (status !== 'active') return status;
  const creator = state.usersById.get(i.referredBy);
  if (!creator?.isActive || creator.role > i.invitedAs) return 'revoked';
  if (i.expiresAt !== null && i.expiresAt <= now) return 'expired';
  return 'valid';
}

/** invites_changed, to the administrators and the invitations' creators. */
export function invitesChanged(state: RealmState, invite: { referredBy: number } | { referredBy: number }[]): RealmEvent[] {
  const referrers = (Array.isArray(invite) ? invite : [invite]).map((i) => i.referredBy);
  return [{ event: { kind: 'invites_changed' }, users: [...new Set([...activeAdminIds(state), ...referrers])] }];
}

export interface CreateInviteInput {
  actorId: number;
  invitedAs: Role;
  /** Minutes; null never expires. */
  expiresInMinutes: number | null;
  channelIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  welcomeMessageCustomText: string | null;
  /** Seconds. */
  now: number;
}

/**
 * What every invitation (link or email) is checked for: the role it grants is no higher than the inviter's own, the
 * channels exist, are reachable and the inviter may subscribe others to them (default channels always), and the
 * groups are ones the inviter may add members to. Returns the channel and group IDs without repeats.
 */
export function checkInviteTargets(
  state: RealmState,
  caller: User,
  input: { invitedAs: Role; channelIds: number[]; groupIds: number[] },
): { channelIds: number[]; groupIds: number[] } {
  if (input.invitedAs < caller.role) throw errors.insufficientPermission();
  const channelIds = [...new Set(input.channelIds)];
  for (const id of channelIds) {
    const ch = state.channels.byId.get(id);
    if (!ch || ch.isArchived || !hasContentAccess(state, caller, ch)) {
      throw errors.badRequest(`Invalid channel ID ${id}. No invites were sent.`);
    }
  }
  const mayAddSubscribers = state.userHasRealmPermission(caller.id, 'can_add_subscribers_group');
  for (const id of channelIds) {
    const ch = state.channels.byId.get(id)!;
    if (!mayAddSubscribers || (!state.channels.defaultChannelIds.has(id) && !canAddSubscribers(state, caller, ch))) {
      throw errors.badRequest('You do not have permission to subscribe other users to channels.');
    }
  }
  const groupIds = [...new Set(input.groupIds)];
  for (const id of groupIds) {
    const g = state.groupsById.get(id);
    if (!g || g.deactivated) throw errors.invalidUserGroup();
    const may = !g.isSystemGroup && (canManageGroup(state, caller.id, g) || hasGroupPermission(state, caller.id, g, 'can_add_members_group'));
    if (!may) throw errors.insufficientPermission();
  }
  return { channelIds, groupIds };
}

/** What a new invitation of either kind holds, with a fresh key, once its targets passed checkInviteTargets. */
export function plannedInvite(
  state: RealmState,
  caller: User,
  input: Omit<CreateInviteInput, 'actorId' | 'channelIds' | 'groupIds'>,
  targets: { channelIds: number[]; groupIds: number[] },
): NewInvite {
  return {
    realmId: state.realm.id,
    key: newInviteKey(),
    referredBy: caller.id,
    invitedAs: input.invitedAs,
    ...targets,
    includeRealmDefaultSubscriptions: input.includeRealmDefaultSubscriptions,
    // Only administrators may set a custom welcome message; for others it is always null.
    welcomeMessageCustomText: isAdmin(caller) ? input.welcomeMessageCustomText : null,
    expiresAt: input.expiresInMinutes === null ? null : input.now + input.expiresInMinutes * 60,
  };
}

const create: CommandDef<CreateInviteInput, NewInvite, MultiuseInvite> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    if (caller.role === ROLE.GUEST || !state.userHasRealmPermission(caller.id, 'create_multiuse_invite_group')) {
      throw errors.insufficientPermission();
    }
    return plannedInvite(state, caller, input, checkInviteTargets(state, caller, input));
  },
  write: (t, plan) => t.invites.insert(plan),
  events: invitesChanged,
};

/** Revoking (or resending)  someone else's invitation: administrators, and owners for invitations as owner. */
export function requireInviteManager(caller: User, invite: { referredBy: number; invitedAs: Role }): void {
  if (invite.referredBy === caller.id) return;
  if (invite.invitedAs === ROLE.OWNER && caller.role !== ROLE.OWNER) throw errors.mustBeOwner();
  if (!isAdmin(caller)) throw errors.mustBeAdmin();
}

const revoke: CommandDef<{ actorId: number; invite: MultiuseInvite }, MultiuseInvite, MultiuseInvite> = {
  check(state, { actorId, invite }) {
    const caller = actor(state, actorId);
    requireInviteManager(caller, invite);
    if (invite.revoked) throw errors.invitationRevoked();
    return invite;
  },
  async write(t, invite) {
    await t.invites.revoke(invite.id);
    return invite;
  },
  events: invitesChanged,
};

export const inviteCommands = { 'invites.create': create, 'invites.revoke': revoke };
