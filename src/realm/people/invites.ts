// Reusable invitation links: who may create them and with what, their API record, and create/revoke commands.
import { randomBytes } from 'node:crypto';
import type { RealmEvent } from '../../events/hub.js';
import { errors } from '../../http/errors.js';
import type { MultiuseInvite, NewInvite } from '../../persistence/repos/invites.js';
import { canAddSubscribers, hasContentAccess } from '../channels/access.js';
import type { CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import { ROLE, type Role } from '../types.js';
import { activeAdminIds, actor, isAdmin } from './access.js';
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

export type InviteState = 'valid' | 'expired' | 'revoked';

/**
 * Whether a link may still be used. Beyond its own revocation and expiry, its creator must still be active (the
 * reference revokes a user's invitations when they are deactivated; this also covers a deactivation made outside
 * the server) and still hold a role at least as high as the one the link gives, so a link cannot outlive the
 * rights it was made with.
 */
export function inviteState(state: RealmState, i: MultiuseInvite, now = Math.floor(Date.now() / 1000)): InviteState {
  const creator = state.usersById.get(i.referredBy);
  if (i.revoked || !creator?.isActive || creator.role > i.invitedAs) return 'revoked';
  if (i.expiresAt !== null && i.expiresAt <= now) return 'expired';
  return 'valid';
}

/** invites_changed, to the administrators and the invitation's creator. */
function invitesChanged(state: RealmState, invite: MultiuseInvite): RealmEvent[] {
  return [{ event: { type: 'invites_changed' }, users: [...new Set([...activeAdminIds(state), invite.referredBy])] }];
}

export interface CreateInviteInput {
  actorId: number;
  invitedAs: Role;
  /** Minutes; null never expires. */
  expiresInMinutes: number | null;
  streamIds: number[];
  groupIds: number[];
  includeRealmDefaultSubscriptions: boolean;
  welcomeMessageCustomText: string | null;
  /** Seconds. */
  now: number;
}

const create: CommandDef<CreateInviteInput, NewInvite, MultiuseInvite> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    if (caller.role === ROLE.GUEST || !state.userHasRealmPermission(caller.id, 'create_multiuse_invite_group')) {
      throw errors.insufficientPermission();
    }
    if (input.invitedAs < caller.role) throw errors.insufficientPermission();
    const streamIds = [...new Set(input.streamIds)];
    for (const id of streamIds) {
      const ch = state.channels.byId.get(id);
      if (!ch || ch.isArchived || !hasContentAccess(state, caller, ch)) {
        throw errors.badRequest(`Invalid channel ID ${id}. No invites were sent.`);
      }
    }
    const mayAddSubscribers = state.userHasRealmPermission(caller.id, 'can_add_subscribers_group');
    for (const id of streamIds) {
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
    return {
      realmId: state.realm.id,
      key: newInviteKey(),
      referredBy: caller.id,
      invitedAs: input.invitedAs,
      streamIds,
      groupIds,
      includeRealmDefaultSubscriptions: input.includeRealmDefaultSubscriptions,
      // Only administrators may set a custom welcome message; for others it is always null.
      welcomeMessageCustomText: isAdmin(caller) ? input.welcomeMessageCustomText : null,
      expiresAt: input.expiresInMinutes === null ? null : input.now + input.expiresInMinutes * 60,
    };
  },
  write: (t, plan) => t.invites.insert(plan),
  events: invitesChanged,
};

const revoke: CommandDef<{ actorId: number; invite: MultiuseInvite }, MultiuseInvite, MultiuseInvite> = {
  check(state, { actorId, invite }) {
    const caller = actor(state, actorId);
    if (invite.referredBy !== caller.id && !isAdmin(caller)) throw errors.mustBeAdmin();
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
