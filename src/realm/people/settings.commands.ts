// Realm commands on settings: a user's own settings, and the realm's defaults for users who join later.
import type { RealmEvent } from '../../bus/events.js';
import type { CommandDef } from '../commands.js';
import { dropDraftsIfSyncTurnedOff } from '../drafts/drafts.commands.js';
import { errors } from '../../errors.js';
import { realmSetting } from '../realm-settings.js';
import type { User } from '../../model/realm.js';
import { activeAdminIds, actor, activeUserIds, isAdmin, requireAdmin } from '../access/roles.js';
import { checkFullName } from './names.js';
import { emailVisibilityEvents, realmUserUpdate, userSettingEvents } from './events.js';
import { userSetting } from './user-settings.js';

export interface UpdateSettingsInput {
  userId: number;
  /** Catalogue settings, already validated by the endpoint's schema. */
  settings: Record<string, unknown>;
  fullName?: string;
  timezone?: string;
  /** Hashed by the endpoint, outside the transaction. */
  passwordHash?: string;
}
type SettingsPlan = {
  userId: number;
  settings: Record<string, unknown>;
  fullName?: string;
  timezone?: string;
  passwordHash?: string;
  /** The user before the change, when email_address_visibility changes (for its events). */
  before?: User;
};

const updateSettings: CommandDef<UpdateSettingsInput, SettingsPlan, SettingsPlan> = {
  check(state, input) {
    const user = actor(state, input.userId);
    const changed: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(input.settings)) {
      if (userSetting(user, name) !== value) changed[name] = value;
    }
    const plan: SettingsPlan = { userId: user.id, settings: changed, passwordHash: input.passwordHash };
    if ('email_address_visibility' in changed) plan.before = user;
    if (input.fullName !== undefined) {
      const name = checkFullName(input.fullName, state, user.id);
      // Administrators may always change their name (the reference's name_changes_disabled).
      if (name !== user.fullName && realmSetting(state, 'name_changes_disabled') && !isAdmin(user)) {
        throw errors.badRequest('Name changes are disabled in this organization.');
      }
      if (name !== user.fullName) plan.fullName = name;
    }
    if (input.timezone !== undefined && input.timezone !== user.timezone) plan.timezone = input.timezone;
    return plan;
  },
  async write(t, plan) {
    if (Object.keys(plan.settings).length > 0) await t.users.mergeSettings(plan.userId, plan.settings);
    await dropDraftsIfSyncTurnedOff(t, plan.userId, plan.settings);
    if (plan.fullName !== undefined) await t.users.setFullName(plan.userId, plan.fullName);
    if (plan.timezone !== undefined) await t.users.setTimezone(plan.userId, plan.timezone);
    if (plan.passwordHash !== undefined) await t.users.setPasswordHash(plan.userId, plan.passwordHash);
    return plan;
  },
  apply(state, plan) {
    const u = state.usersById.get(plan.userId)!;
    state.putUser({
      ...u,
      settings: { ...u.settings, ...plan.settings },
      fullName: plan.fullName ?? u.fullName,
      timezone: plan.timezone ?? u.timezone,
      passwordHash: plan.passwordHash ?? u.passwordHash,
    });
  },
  events(state, plan) {
    const user = state.usersById.get(plan.userId)!;
    const out: RealmEvent[] = [];
    for (const [name, value] of Object.entries(plan.settings)) out.push(...userSettingEvents(state, user, name, value));
    if (plan.before) out.push(...emailVisibilityEvents(state, plan.before, user));
    if ('allow_private_data_export' in plan.settings) {
      // Administrators follow consents for data exports (the reference's realm_export_consent).
      out.push({ event: { kind: 'realm_export_consent', userId: user.id, consented: plan.settings.allow_private_data_export === true }, users: activeAdminIds(state) });
    }
    if (plan.fullName !== undefined) {
      out.push(realmUserUpdate(state, { user_id: user.id, full_name: plan.fullName }));
    }
    if (plan.timezone !== undefined) {
      out.push(...userSettingEvents(state, user, 'timezone', plan.timezone));
      out.push(realmUserUpdate(state, { user_id: user.id, email: state.apiEmailOf(user), timezone: plan.timezone }));
    }
    return out;
  },
};

type DefaultsPlan = Record<string, unknown>;

/** Changes apply only to users created afterwards: existing users keep the settings they were created with. */
const updateRealmDefaults: CommandDef<{ actorId: number; settings: Record<string, unknown> }, DefaultsPlan, DefaultsPlan> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    return input.settings;
  },
  async write(t, changes, state) {
    if (Object.keys(changes).length > 0) await t.realms.mergeUserSettingsDefaults(state.realm.id, changes);
    return changes;
  },
  apply(state, changes) {
    state.realm = { ...state.realm, userSettingsDefaults: { ...state.realm.userSettingsDefaults, ...changes } };
  },
  events(state, changes) {
    const users = activeUserIds(state);
    return Object.entries(changes).map(([property, value]) => ({
      event: { kind: 'realm_user_settings_defaults', property, value },
      users,
    }));
  },
};

export const settingsCommands = {
  'settings.update': updateSettings,
  'settings.realmDefaults': updateRealmDefaults,
};
