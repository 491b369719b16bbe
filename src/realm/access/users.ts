// Which users a user may see (the realm's can_access_all_users_group), and the "Unknown user" record clients
// without the user_list_incomplete capability get in place of a user they cannot see.
import { errors } from '../../errors.js';
import type { Repos } from '../../persistence/db.js';
import type { RealmState } from '../state.js';
import { ROLE, type User } from '../../model/realm.js';

/** Whether the realm limits which users this user can see (they are not in can_access_all_users_group). */
export function accessRestricted(state: RealmState, viewer: User | null): viewer is User {
  if (!viewer) return false;
  return !state.userHasRealmPermission(viewer.id, 'can_access_all_users_group');
}

/**
 * The users a restricted viewer can see (after the reference): themselves, everyone with an active
 * subscription to a channel the viewer is subscribed to, and the viewer's direct-message partners.
 */
export function accessibleUserIds(state: RealmState, viewer: User, directPartners: Iterable<number> = []): Set<number> {
  const ids = new Set<number>([viewer.id, ...directPartners]);
  for (const sub of state.channels.activeSubscriptions(viewer.id)) {
    for (const id of state.channels.subscriberIds(sub.channelId)) ids.add(id);
  }
  return ids;
}

/**
 * The users a viewer can see, or null when the realm does not restrict them; direct-message partners are asked
 * of the database (the viewer's 1000 most recent conversations).
 */
export async function accessibleUsersOf(db: Repos, state: RealmState, viewer: User | null): Promise<Set<number> | null> {
  if (!accessRestricted(state, viewer)) return null;
  const rows = await db.userMessages.recentDirectConversations(viewer.id, 1000);
  return accessibleUserIds(state, viewer, rows.flatMap((r) => r.members));
}

/** The reference's refusal ("Insufficient permission") when the realm keeps `target` from `viewer`. */
export async function requireUserAccess(db: Repos, state: RealmState, viewer: User | null, target: User): Promise<void> {
  if (viewer && canAccessBySubscriptions(state, viewer, target)) return;
  const accessible = await accessibleUsersOf(db, state, viewer);
  if (accessible && !accessible.has(target.id)) throw errors.insufficientPermission();
}

/**
 * The direct-message refusal when the realm keeps any of `ids` from `sender` (as sending to them is refused);
 * IDs of no user are left to the caller's own error.
 */
export async function requireRecipientsAccess(db: Repos, state: RealmState, sender: User, ids: readonly number[]): Promise<void> {
  if (!accessRestricted(state, sender)) return;
  const unverified = ids.filter((id) => {
    const u = state.usersById.get(id);
    return u !== undefined && !userAccessTest(state, u)(sender);
  });
  if (unverified.length === 0) return;
  const partners = new Set((await db.userMessages.recentDirectConversations(sender.id, 1000)).flatMap((c) => c.members));
  if (unverified.some((id) => !partners.has(id))) throw errors.cannotAccessRecipients();
}

/** Whether `viewer` can see `target` by subscriptions alone (a user who just joined has no conversations yet). */
export function canAccessBySubscriptions(state: RealmState, viewer: User, target: User): boolean {
  if (viewer.id === target.id || !accessRestricted(state, viewer)) return true;
  for (const sub of state.channels.activeSubscriptions(viewer.id)) {
    if (state.channels.isSubscribed(target.id, sub.channelId)) return true;
  }
  return false;
}

/** Everyone who shares a direct conversation with `userId` that this process has seen (sends fill the working set's list). */
function knownDirectPartners(state: RealmState, userId: number): Set<number> {
  const out = new Set<number>();
  for (const ids of state.messages.conversations()) {
    if (ids.includes(userId)) for (const id of ids) out.add(id);
  }
  return out;
}

/**
 * Which viewers may receive news about `target` (realm_user update events): by subscriptions, or by a
 * direct conversation the working set knows of (scanned at most once per target, however many viewers are
 * asked). The register snapshot asks the database for direct conversations instead, so after a restart a
 * guest who knows a user only from an older conversation gets no updates about them until one of them
 * writes again.
 */
export function userAccessTest(state: RealmState, target: User): (viewer: User) => boolean {
  let partners: Set<number> | undefined;
  return (viewer) => canAccessBySubscriptions(state, viewer, target) || (partners ??= knownDirectPartners(state, target.id)).has(viewer.id);
}

/** The active users who may hear about `target` (its presence, status): everyone the realm lets see them. */
export function audienceOf(state: RealmState, target: User): number[] {
  const canAccess = userAccessTest(state, target);
  const ids: number[] = [];
  for (const u of state.usersById.values()) if (u.isActive && canAccess(u)) ids.push(u.id);
  return ids;
}

export const UNKNOWN_USER_NAME = 'Unknown user';
export const UNKNOWN_USER_AVATAR = '/static/images/unknown-user-avatar.png';

/** The reference's placeholder for an inaccessible user: the usual format, nothing but the ID varies (the
 *  avatar is a path on the server, like the reference's static URL). */
export function unknownUser(userId: number, emailDomain: string): Record<string, unknown> {
  return {
    user_id: userId,
    delivery_email: null,
    email: `user${userId}@${emailDomain}`,
    full_name: UNKNOWN_USER_NAME,
    date_joined: new Date(0).toISOString(),
    is_active: true,
    is_owner: false,
    is_admin: false,
    is_guest: false,
    is_bot: false,
    bot_type: null,
    role: ROLE.MEMBER,
    timezone: '',
    avatar_url: UNKNOWN_USER_AVATAR,
    avatar_version: 1,
    profile_data: {},
  };
}
