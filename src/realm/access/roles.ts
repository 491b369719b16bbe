// The realm's access kernel is this folder: the permission rules every domain checks, in one place below the
// domains (roles, users, channels, messages, files), so no domain reaches into another for them.
// Here: who may act on whom: role checks, looking up target users and groups, and the usual event audiences.
import { errors } from '../../errors.js';
import type { RealmState } from '../state.js';
import { ROLE, type User, type UserGroup } from '../../model/realm.js';
import { userByEmailFor } from '../user-format.js';

export function isAdmin(user: User): boolean {
  return user.role <= ROLE.ADMINISTRATOR;
}

export function requireAdmin(user: User): void {
  if (!isAdmin(user)) throw errors.mustBeAdmin();
}

/** Zulip's require_member_or_admin: bots and guests are refused. */
export function requireMemberOrAdmin(user: User): void {
  if (user.isBot) throw errors.notForBots();
  if (user.role === ROLE.GUEST) throw errors.notForGuests();
}

/** The caller as the working set knows it now (a command's check may run after a change to the caller). */
export function actor(state: RealmState, userId: number): User {
  const u = state.usersById.get(userId);
  if (!u || !u.isActive) throw errors.userDeactivated();
  return u;
}

/** A user of this realm by ID; deactivated users only when allowed. */
export function targetUser(state: RealmState, userId: number, opts: { allowDeactivated?: boolean } = {}): User {
  const u = state.usersById.get(userId);
  if (!u || (!u.isActive && !opts.allowDeactivated)) throw errors.noSuchUser();
  return u;
}

/** A user by ID (all digits) or an email address the viewer may name them by (userByEmailFor). */
export function targetUserByIdOrEmail(state: RealmState, viewer: User | null, key: string, opts: { allowDeactivated?: boolean } = {}): User {
  const u = /^\d{1,10}$/.test(key) ? state.usersById.get(Number(key)) : userByEmailFor(state, viewer, key);
  if (!u || (!u.isActive && !opts.allowDeactivated)) throw errors.noSuchUser();
  return u;
}

export function targetGroup(state: RealmState, groupId: number): UserGroup {
  const g = state.groupsById.get(groupId);
  if (!g) throw errors.invalidUserGroup();
  return g;
}

/** Every active user of the realm: the audience of realm-wide events. */
export function activeUserIds(state: RealmState): number[] {
  const ids: number[] = [];
  for (const u of state.usersById.values()) if (u.isActive) ids.push(u.id);
  return ids;
}

export function activeAdminIds(state: RealmState): number[] {
  const ids: number[] = [];
  for (const u of state.usersById.values()) if (u.isActive && isAdmin(u)) ids.push(u.id);
  return ids;
}

export function activeOwnerCount(state: RealmState): number {
  let n = 0;
  for (const u of state.usersById.values()) if (u.isActive && !u.isBot && u.role === ROLE.OWNER) n++;
  return n;
}
