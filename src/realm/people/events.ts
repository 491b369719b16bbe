// Builders for the people domain's events: realm_user, user_group membership, user_settings.
import type { BusEvent, RealmEvent } from '../../bus/events.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { canSeeDeliveryEmail, formatUser } from '../user-format.js';
import { activeUserIds } from '../access/roles.js';
import { canAccessBySubscriptions, unknownUser, userAccessTest } from '../access/users.js';
import { USER_SETTINGS } from './user-settings.js';

/**
 * realm_user add: the person record, with delivery_email only for those allowed to see it. Users the realm's
 * can_access_all_users_group keeps from seeing the new user get an "Unknown user" in its place, unless their
 * queue has the user_list_incomplete capability (then nothing).
 */
export function realmUserAdd(state: RealmState, user: User): RealmEvent[] {
  const seeing: number[] = [];
  const others: number[] = [];
  const restricted: number[] = [];
  for (const id of activeUserIds(state)) {
    const viewer = state.usersById.get(id)!;
    if (!canAccessBySubscriptions(state, viewer, user)) restricted.push(id);
    else (canSeeDeliveryEmail(viewer, user) ? seeing : others).push(id);
  }
  const events: RealmEvent[] = [];
  if (restricted.length) {
    events.push({ event: { kind: 'realm_user', op: 'add', person: unknownUser(user.id, state.emailDomain) }, users: restricted, skipWith: 'user_list_incomplete' });
  }
  if (seeing.length) events.push({ event: { kind: 'realm_user', op: 'add', person: formatUser(user, { includeDeliveryEmail: true, emailDomain: state.emailDomain }) }, users: seeing });
  if (others.length) events.push({ event: { kind: 'realm_user', op: 'add', person: formatUser(user, { viewer: null, emailDomain: state.emailDomain }) }, users: others });
  return events;
}

/**
 * realm_user update with some fields of one person, to everyone in the realm who may see that person (users
 * the realm's can_access_all_users_group restricts hear only about users they can access).
 */
export function realmUserUpdate(state: RealmState, person: { user_id: number } & Record<string, unknown>, extra: number[] = []): RealmEvent {
  const target = state.usersById.get(person.user_id);
  const canAccess = target && userAccessTest(state, target);
  const users = [...new Set([...activeUserIds(state), ...extra])].filter((id) => {
    const viewer = state.usersById.get(id);
    return !canAccess || !viewer || canAccess(viewer);
  });
  return { event: { kind: 'realm_user', op: 'update', person }, users };
}

/**
 * After a user's email_address_visibility changed (the reference's events): delivery_email to those who may now
 * see it, null to those who no longer may; and new_email to everyone who can see the user when their API address
 * changed (it is the real one only under "everyone").
 */
export function emailVisibilityEvents(state: RealmState, before: User, after: User): RealmEvent[] {
  const gained: number[] = [];
  const lost: number[] = [];
  for (const id of activeUserIds(state)) {
    const viewer = state.usersById.get(id)!;
    const was = canSeeDeliveryEmail(viewer, before);
    const is = canSeeDeliveryEmail(viewer, after);
    if (is && !was) gained.push(id);
    else if (was && !is) lost.push(id);
  }
  const out: RealmEvent[] = [];
  if (gained.length) out.push({ event: { kind: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: after.email } }, users: gained });
  if (lost.length) out.push({ event: { kind: 'realm_user', op: 'update', person: { user_id: after.id, delivery_email: null } }, users: lost });
  const newEmail = state.apiEmailOf(after);
  if (newEmail !== state.apiEmailOf(before)) out.push(realmUserUpdate(state, { user_id: after.id, new_email: newEmail }));
  return out;
}

export function groupMembership(
  state: RealmState,
  op: 'add_members' | 'remove_members',
  groupId: number,
  userIds: number[],
): RealmEvent {
  return { event: { kind: 'group_members', op, groupId, userIds }, users: activeUserIds(state) };
}

/** user_settings update; clients without the user_settings_object capability also get the legacy event. */
export function userSettingEvents(state: RealmState, user: User, property: string, value: unknown): RealmEvent[] {
  const modern: BusEvent = { kind: 'user_setting', property, value };
  const event: RealmEvent = { event: modern, users: [user.id] };
  const legacy = USER_SETTINGS[property]?.legacy ?? (property === 'timezone' ? 'display' : undefined);
  if (legacy === 'display' || legacy === 'notification') {
    event.legacy = { user_settings_object: [modern, { kind: 'legacy_user_setting', group: legacy, email: state.apiEmailOf(user), property, value }] };
  }
  return [event];
}
