// Realm commands on user accounts: create, deactivate (others or oneself), reactivate, change role or name.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { Tx } from '../../persistence/db.js';
import type { CommandDef } from '../commands.js';
import { createUser, isValidEmail } from '../provision.js';
import type { RealmState } from '../state.js';
import { roleGroup } from '../system-groups.js';
import { ROLE, type Role, type User } from '../../model/realm.js';
import { planSubscriptions, applySubscriptions, subscriptionAddedEvents, writeSubscriptions, type NewSubscription } from '../channels/subscribing.js';
import type { Subscription } from '../../model/channels.js';
import { emailRefusal } from '../admin/domains.js';
import { activeOwnerCount, activeUserIds, actor, requireAdmin, targetUser } from '../access/roles.js';
import { checkFullName } from './names.js';
import { accessBot, realmBotUpdate } from './bots.js';
import { groupMembership, realmUserAdd, realmUserUpdate } from './events.js';
import {
  applyProfileChanges, planProfileChanges, prerenderProfileValues, profileChangeEvents, writeProfileChanges, type ProfileChange, type ProfileEntry,
} from './profile-fields.commands.js';
import type { RenderedDescriptions } from '../channels/render.js';
import { inviteState, invitesChanged } from './invites.js';
import { deactivationNotice } from './mail-templates.js';
import { settingsForNewUser } from './user-settings.js';

export interface CreateUserInput {
  /** The administrator creating the account (POST /users); absent for sign-ups through an invitation. */
  actorId?: number;
  email: string;
  fullName: string;
  passwordHash: string | null;
  role?: Role;
  /** Groups to join besides the role's system group (invitations). */
  groupIds?: number[];
  /** Re-checked inside the transaction: the invitation must still be usable. */
  inviteId?: number;
  /** An email invitation: re-checked like inviteId, then marked used (and the address's other invitations revoked). */
  emailInviteId?: number;
  /** The sign-up confirmation followed (used up in the same transaction). */
  confirmationId?: number;
  /** Join the realm's default channels (POST /users always; invitations by include_realm_default_subscriptions). */
  defaultChannels?: boolean;
  /** Further channels to join (invitations). */
  channelIds?: number[];
}

export interface CreatedUser {
  user: User;
  /** Who sent the email invitation the account was created with. */
  invitedBy?: number;
  groupIds: number[];
  subscriptions?: { plan: NewSubscription[]; rows: Subscription[] };
}

/** A new account's email address, trimmed: valid and not in use in the working set. */
export function checkNewEmail(state: RealmState, email: string): string {
  const trimmed = email.trim();
  if (!isValidEmail(trimmed)) throw errors.badRequest(`Invalid email address '${trimmed}'`);
  if (state.userByEmail(trimmed)) throw errors.emailInUse();
  const refusal = emailRefusal(state, trimmed);
  if (refusal) throw errors.badRequest(refusal);
  return trimmed;
}

/** Validates a new account's email and name against the working set (also used before hashing a password). */
export function checkNewAccount(state: RealmState, email: string, fullName: string): { email: string; fullName: string } {
  return { email: checkNewEmail(state, email), fullName: checkFullName(fullName, state) };
}

export function applyCreatedUser(state: RealmState, created: CreatedUser): void {
  state.putUser(created.user);
  state.systemGroup(roleGroup(created.user.role)).directMembers.add(created.user.id);
  for (const g of created.groupIds) state.groupsById.get(g)?.directMembers.add(created.user.id);
}

const create: CommandDef<CreateUserInput, CreateUserInput & { settings: Record<string, unknown> }, CreatedUser> = {
  check(state, input) {
    if (input.actorId !== undefined) {
      const caller = actor(state, input.actorId);
      requireAdmin(caller);
      if (!caller.canCreateUsers) throw errors.badRequest('User not authorized to create users');
    }
    const { email, fullName } = checkNewAccount(state, input.email, input.fullName);
    const groupIds = (input.groupIds ?? []).filter((g) => {
      const group = state.groupsById.get(g);
      return group && !group.deactivated && !group.isSystemGroup;
    });
    return { ...input, email, fullName, groupIds, settings: settingsForNewUser(state) };
  },
  async write(t: Tx, plan, state) {
    const invite =
      plan.inviteId !== undefined ? await t.invites.byId(state.realm.id, plan.inviteId)
      : plan.emailInviteId !== undefined ? await t.emailInvites.byId(state.realm.id, plan.emailInviteId)
      : undefined;
    if (invite === null || (invite && inviteState(state, invite) !== 'valid')) {
      throw errors.badRequest('The invitation link has expired or has been revoked.');
    }
    let invitedBy: number | undefined;
    if (invite && 'email' in invite) {
      await t.emailInvites.setStatus(invite.id, 'used');
      await t.emailInvites.revokeOthersFor(state.realm.id, plan.email, invite.id);
      invitedBy = invite.referredBy;
    }
    if (plan.confirmationId !== undefined && !(await t.invites.useConfirmation(plan.confirmationId))) {
      throw errors.badRequest('This confirmation link has already been used.');
    }
    const user = await createUser(t, state.realm.id, {
      email: plan.email,
      fullName: plan.fullName,
      role: plan.role ?? ROLE.MEMBER,
      passwordHash: plan.passwordHash,
      settings: plan.settings,
      defaultChannels: false,
    });
    for (const g of plan.groupIds ?? []) await t.groups.addMember(g, user.id);
    const channelIds = new Set([...(plan.defaultChannels ? state.channels.defaultChannelIds : []), ...(plan.channelIds ?? [])]);
    const live = [...channelIds].filter((id) => state.channels.byId.get(id)?.isArchived === false).sort((a, b) => a - b);
    const subPlan = planSubscriptions(state, live.map((channelId) => ({ userId: user.id, channelId })));
    const rows = subPlan.length ? await writeSubscriptions(t, state.realm.id, subPlan) : [];
    return { user, invitedBy, groupIds: plan.groupIds ?? [], subscriptions: { plan: subPlan, rows } };
  },
  apply(state, created) {
    applyCreatedUser(state, created);
    if (created.subscriptions) applySubscriptions(state, created.subscriptions.rows);
  },
  events(state, { user, invitedBy, groupIds, subscriptions }) {
    const roleGroupId = state.systemGroup(roleGroup(user.role)).id;
    return [
      ...(invitedBy !== undefined ? invitesChanged(state, { referredBy: invitedBy }) : []),
      ...realmUserAdd(state, user),
      groupMembership(state, 'add_members', roleGroupId, [user.id]),
      ...groupIds.map((g) => groupMembership(state, 'add_members', g, [user.id])),
      ...(subscriptions ? subscriptionAddedEvents(state, subscriptions.plan) : []),
    ];
  },
};

interface DeactivateInput {
  actorId: number;
  userId: number;
  /** null: no notification email; a string (possibly empty) requests one, with the text when non-empty. */
  notificationComment: string | null;
  /** DELETE /users/me rather than the administrative DELETE /users/{user_id}. */
  own?: boolean;
  /** DELETE /bots/{bot_id}: the target is a bot the caller administers (owner or administrator). */
  bot?: boolean;
}
interface DeactivatePlan {
  ids: number[];
  /** Set by the write: some of their invitations were revoked (invites_changed). */
  invitesRevoked?: boolean;
  notify: { to: string; subject: string; body: string } | null;
}

/** An account and the bots it owns; the only active owner cannot go. */
const deactivate: CommandDef<DeactivateInput, DeactivatePlan, DeactivatePlan> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    const self = input.own === true;
    const target = self ? caller : input.bot ? accessBot(state, caller, input.userId) : targetUser(state, input.userId);
    if (input.bot) {
      if (!target.isActive) throw errors.noSuchBot();
    } else if (self) {
      if (activeUserIds(state).filter((id) => !state.usersById.get(id)!.isBot).length === 1) {
        throw errors.cannotDeactivateLastUser(false);
      }
      if (target.role === ROLE.OWNER && activeOwnerCount(state) === 1) throw errors.cannotDeactivateLastUser(true);
    } else {
      requireAdmin(caller);
      if (target.role === ROLE.OWNER && caller.role !== ROLE.OWNER) throw errors.mustBeOwner();
      if (target.role === ROLE.OWNER && !target.isBot && activeOwnerCount(state) === 1) {
        throw errors.cannotDeactivateOnlyOwner();
      }
    }
    const bots = [...state.usersById.values()].filter((u) => u.isActive && u.isBot && u.botOwnerId === target.id);
    const notify =
      !self && input.notificationComment !== null && !target.isBot
        ? deactivationNotice(state.realm.name, target, input.notificationComment)
        : null;
    return { ids: [target.id, ...bots.map((b) => b.id)], notify };
  },
  async write(t, plan, state) {
    for (const id of plan.ids) await t.users.setActive(id, false);
    await t.people.removePushDevices(plan.ids);
    await t.pushTokens.removeForUsers(plan.ids);
    if (plan.notify) await t.outbox.enqueue({ realmId: state.realm.id, ...plan.notify });
    // As the reference: the invitations and reusable links they made can no longer be used.
    const revoked = (await t.emailInvites.revokeByReferrer(plan.ids)) + (await t.invites.revokeByCreators(plan.ids));
    return { ...plan, invitesRevoked: revoked > 0 };
  },
  apply(state, plan) {
    for (const id of plan.ids) state.putUser({ ...state.usersById.get(id)!, isActive: false });
  },
  events(state, plan) {
    return [
      ...plan.ids.flatMap((id) => {
        const user = state.usersById.get(id)!;
        const update = realmUserUpdate(state, { user_id: id, is_active: false }, plan.ids);
        return user.isBot ? [update, realmBotUpdate(state, user, { is_active: false })] : [update];
      }),
      ...(plan.invitesRevoked ? invitesChanged(state, []) : []),
    ];
  },
};

const reactivate: CommandDef<{ actorId: number; userId: number }, number, number> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const target = targetUser(state, input.userId, { allowDeactivated: true });
    if (target.isActive) throw errors.badRequest('User is already active');
    if (target.isBot && target.botOwnerId !== null && !state.usersById.get(target.botOwnerId)?.isActive) {
      throw errors.badRequest('Cannot reactivate a bot whose owner is deactivated.');
    }
    return target.id;
  },
  async write(t, id) {
    await t.users.setActive(id, true);
    return id;
  },
  apply(state, id) {
    state.putUser({ ...state.usersById.get(id)!, isActive: true });
  },
  events(state, id) {
    const user = state.usersById.get(id)!;
    const update = realmUserUpdate(state, { user_id: id, is_active: true });
    return user.isBot ? [update, realmBotUpdate(state, user, { is_active: true })] : [update];
  },
};

interface UpdateUserInput {
  actorId: number;
  userId: number;
  role?: Role;
  fullName?: string;
  /** Custom profile field values; a null value removes one. */
  profileData?: ProfileEntry[];
  realmUrl?: string;
  /** Text values rendered on the worker pool (the command's prepare). */
  renderedDescriptions?: RenderedDescriptions;
}
interface UpdateUserPlan {
  userId: number;
  role?: { from: Role; to: Role };
  fullName?: string;
  profile: ProfileChange[];
}

const update: CommandDef<UpdateUserInput, UpdateUserPlan, UpdateUserPlan> = {
  prepare: (state, input) => prerenderProfileValues(state, input, input.profileData, input.realmUrl ?? ''),
  check(state, input) {
    const caller = actor(state, input.actorId);
    requireAdmin(caller);
    const target = targetUser(state, input.userId, { allowDeactivated: true });
    const plan: UpdateUserPlan = { userId: target.id, profile: [] };
    if (input.role !== undefined && input.role !== target.role) {
      if ((input.role === ROLE.OWNER || target.role === ROLE.OWNER) && caller.role !== ROLE.OWNER) throw errors.mustBeOwner();
      if (target.role === ROLE.OWNER && target.isActive && activeOwnerCount(state) === 1) {
        throw errors.badRequest('The owner permission cannot be removed from the only organization owner.');
      }
      plan.role = { from: target.role, to: input.role };
    }
    if (input.fullName !== undefined) {
      const name = checkFullName(input.fullName, state, target.id);
      if (name !== target.fullName) plan.fullName = name;
    }
    if (input.profileData) plan.profile = planProfileChanges(state, caller, target, input.profileData, input.renderedDescriptions);
    return plan;
  },
  async write(t, plan, state) {
    if (plan.role) {
      await t.users.setRole(plan.userId, plan.role.to);
      await t.groups.removeMember(state.systemGroup(roleGroup(plan.role.from)).id, plan.userId);
      await t.groups.addMember(state.systemGroup(roleGroup(plan.role.to)).id, plan.userId);
    }
    if (plan.fullName !== undefined) await t.users.setFullName(plan.userId, plan.fullName);
    await writeProfileChanges(t, plan.userId, plan.profile);
    return plan;
  },
  apply(state, plan) {
    const u = state.usersById.get(plan.userId)!;
    if (plan.role) {
      state.systemGroup(roleGroup(plan.role.from)).directMembers.delete(u.id);
      state.systemGroup(roleGroup(plan.role.to)).directMembers.add(u.id);
    }
    state.putUser({ ...u, role: plan.role?.to ?? u.role, fullName: plan.fullName ?? u.fullName });
    applyProfileChanges(state, plan.userId, plan.profile);
  },
  events(state, plan) {
    const out: RealmEvent[] = [];
    if (plan.role) {
      out.push(realmUserUpdate(state, { user_id: plan.userId, role: plan.role.to }));
      out.push(groupMembership(state, 'remove_members', state.systemGroup(roleGroup(plan.role.from)).id, [plan.userId]));
      out.push(groupMembership(state, 'add_members', state.systemGroup(roleGroup(plan.role.to)).id, [plan.userId]));
    }
    if (plan.fullName !== undefined) out.push(realmUserUpdate(state, { user_id: plan.userId, full_name: plan.fullName }));
    out.push(...profileChangeEvents(state, plan.userId, plan.profile));
    return out;
  },
};

export const userCommands = {
  'users.create': create,
  'users.deactivate': deactivate,
  'users.reactivate': reactivate,
  'users.update': update,
};
