// Snapshot sections of the people domain: presence, user statuses, the user's settings, the realm's defaults of
// personal settings, and user groups (with every permission setting resolved).
import { formatGroup } from '../../realm/people/groups.js';
import { mutedUsersOf } from '../../realm/people/muted-users.js';
import { fieldTypes, formatFields } from '../../realm/people/profile-fields.js';
import { presenceResponse } from '../../realm/people/presence.js';
import { formatStatus } from '../../realm/people/status.js';
import { realmUserSettingsDefaults, userSettingsObject } from '../../realm/people/user-settings.js';
import type { PeopleState } from '../../realm/people/people-state.js';
import type { RealmState } from '../../realm/state.js';
import { snapshotAccess } from './realm-users.js';
import type { Section } from './types.js';

/** The user_status map of the active users `accessible` (null: all); users without a status are left out. */
function statusesOf(state: RealmState, accessible: Set<number> | null): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const u of state.usersById.values()) {
    if (!u.isActive || (accessible && !accessible.has(u.id))) continue;
    const s = formatStatus(state, u.id);
    if (Object.keys(s).length > 0) out[String(u.id)] = s;
  }
  return out;
}

/** Everyone's statuses per realm, with the versions they were made from (shared by registers: not to be modified). */
const allStatuses = new WeakMap<RealmState, { users: number; people: PeopleState; statuses: number; out: Record<string, unknown> }>();

export const peopleSections: Record<string, Section<'db' | 'presence'>> = {
  presence: async (ctx) => {
    const { state, user, registration, presence, presenceHistoryLimitDays } = ctx;
    if (!user) return { presences: {}, server_timestamp: Date.now() / 1000, presence_last_update_id: -1 };
    const { presences, lastUpdateId } = presenceResponse(state, await presence.all(), {
      accessible: await snapshotAccess(ctx),
      lastUpdateId: -1,
      historyDays: presenceHistoryLimitDays,
      modern: registration.slimPresence,
      now: presence.now(),
    });
    return { presences, server_timestamp: Date.now() / 1000, presence_last_update_id: lastUpdateId };
  },

  // Spectators get no statuses (as in the reference).
  user_status: async (ctx) => {
    const { state, user } = ctx;
    if (!user) return { user_status: {} };
    const accessible = await snapshotAccess(ctx);
    if (accessible) return { user_status: statusesOf(state, accessible) };
    // Everyone's, the same for every viewer: kept while the users and their statuses stay the same.
    const people = state.people;
    let kept = allStatuses.get(state);
    if (kept?.users !== state.usersVersion || kept.people !== people || kept.statuses !== people.statusesVersion) {
      allStatuses.set(state, (kept = { users: state.usersVersion, people, statuses: people.statusesVersion, out: statusesOf(state, null) }));
    }
    return { user_status: kept.out };
  },

  user_settings: ({ user }) => (user ? { user_settings: userSettingsObject(user) } : {}),

  // Registered push devices stay pending: no push service confirms them here.
  push_device: async ({ user, db }) => ({
    push_devices: Object.fromEntries(
      (user ? await db.people.pushDevices(user.id) : []).map((d) => [String(d.pushAccountId), { status: 'pending', error_code: null }]),
    ),
  }),

  realm_user_settings_defaults: ({ state }) => ({ realm_user_settings_defaults: realmUserSettingsDefaults(state) }),

  realm_user_groups: ({ state, registration }) => ({
    realm_user_groups: [...state.groupsById.values()]
      .filter((g) => registration.capabilities.include_deactivated_groups || !g.deactivated)
      .sort((a, b) => a.id - b.id)
      .map((g) => formatGroup(state, g)),
  }),

  custom_profile_fields: ({ state }) => ({ custom_profile_fields: formatFields(state), custom_profile_field_types: fieldTypes() }),

  muted_users: ({ state, user }) => ({ muted_users: user ? mutedUsersOf(state, user.id) : [] }),
};
