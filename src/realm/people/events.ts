// Builders for the people domain's events: realm_user, user_group membership, user_settings.
import type { RealmEvent } from '../../events/hub.js';
import type { RealmState } from '../state.js';
import type { User } from '../types.js';
import { canSeeDeliveryEmail, formatUser } from '../user-format.js';
import { activeUserIds } from './access.js';
import { canAccessBySubscriptions, unknownUser, userAccessTest } from './user-access.js';
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
    events.push({ event: { type: 'realm_user', op: 'add', person: unknownUser(user.id) }, users: restricted, skipWith: 'user_list_incomplete' });
  }
  if (seeing.length) events.push({ event: { type: 'realm_user', op: 'add', person: formatUser(user, { includeDeliveryEmail: true }) }, users: seeing });
  if (others.length) events.push({ event: { type: 'realm_user', op: 'add', person: formatUser(user, { viewer: null }) }, users: others });
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
  return { event: { type: 'realm_user', op: 'update', person }, users };
}

export function groupMembership(
  state: RealmState,
  op: 'add_members' | 'remove_members',
  groupId: number,
  userIds: number[],
): RealmEvent {
  return { event: { type: 'user_group', op, group_id: groupId, user_ids: userIds }, users: activeUserIds(state) };
}

/** user_settings update; clients without the user_settings_object capability also get the legacy event. */
export function userSettingEvents(user: User, property: string, value: unknown): RealmEvent[] {
  const modern = { type: 'user_settings', op: 'update', property, value };
  const event: RealmEvent = { event: modern, users: [user.id] };
  const legacy = USER_SETTINGS[property]?.legacy ?? (property === 'timezone' ? 'display' : undefined);
  if (legacy === 'display') {
    const old = { type: 'update_display_settings', user: user.email, setting_name: property, setting: value };
    event.legacy = { user_settings_object: [modern, old] };
  } else if (legacy === 'notification') {
    const old = { type: 'update_global_notifications', user: user.email, notification_name: property, setting: value };
    event.legacy = { user_settings_object: [modern, old] };
  }
  return [event];
}
