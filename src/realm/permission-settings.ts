// What the reference calls server_supported_permission_settings: for each group-setting of realms, channels and
// user groups, which values it may take and its default (register's `realm` section), and the deprecated policy
// enums register still carries for the realm settings that replaced them.
import { CHANNEL_GROUP_SETTINGS } from './channels/group-settings.js';
import { GROUP_PERMISSIONS } from './people/groups.js';
import type { RealmState } from './state.js';
import { REALM_GROUP_SETTING_DEFAULTS, SYSTEM_GROUP, type SystemGroupName } from './system-groups.js';

interface PermissionSetting {
  require_system_group: boolean;
  allow_internet_group: boolean;
  allow_nobody_group: boolean;
  allow_everyone_group: boolean;
  default_group_name: string;
  default_for_system_groups: string | null;
  allowed_system_groups: string[];
}

function setting(defaultGroup: string, allowEveryone: boolean, more: Partial<PermissionSetting> = {}): PermissionSetting {
  return {
    require_system_group: false,
    allow_internet_group: false,
    allow_nobody_group: true,
    allow_everyone_group: allowEveryone,
    default_group_name: defaultGroup,
    default_for_system_groups: null,
    allowed_system_groups: [],
    ...more,
  };
}

/** Realm settings that differ from "nobody allowed, everyone not" (the reference's Realm.REALM_PERMISSION_GROUP_SETTINGS). */
const REALM_RULES: Record<string, Partial<PermissionSetting>> = {
  can_access_all_users_group: {
    require_system_group: true,
    allow_nobody_group: false,
    allow_everyone_group: true,
    allowed_system_groups: [SYSTEM_GROUP.EVERYONE, SYSTEM_GROUP.MEMBERS],
  },
  can_create_web_public_channel_group: {
    require_system_group: true,
    allowed_system_groups: [SYSTEM_GROUP.MODERATORS, SYSTEM_GROUP.ADMINISTRATORS, SYSTEM_GROUP.OWNERS, SYSTEM_GROUP.NOBODY],
  },
  can_manage_all_groups: { allow_nobody_group: false },
  can_manage_billing_group: { allow_nobody_group: false },
};
const REALM_EVERYONE_ALLOWED = new Set([
  'can_delete_own_message_group', 'can_mention_many_users_group', 'can_move_messages_between_topics_group',
  'can_resolve_topics_group', 'can_set_topics_policy_group', 'can_summarize_topics_group',
  'direct_message_initiator_group', 'direct_message_permission_group',
]);

type SupportedPermissionSettings = Record<'realm' | 'stream' | 'group', Record<string, PermissionSetting>>;
let supported: SupportedPermissionSettings | undefined;

/** The same for every realm and register: built once. */
export function serverSupportedPermissionSettings(): SupportedPermissionSettings {
  return (supported ??= buildSupportedPermissionSettings());
}

function buildSupportedPermissionSettings(): SupportedPermissionSettings {
  const realm = Object.fromEntries(
    Object.entries(REALM_GROUP_SETTING_DEFAULTS).map(([name, group]) => [
      name,
      setting(group, REALM_EVERYONE_ALLOWED.has(name), REALM_RULES[name]),
    ]),
  );
  const stream = Object.fromEntries(
    Object.entries(CHANNEL_GROUP_SETTINGS).map(([name, rule]) => [
      name,
      setting(rule.default === 'creator' ? 'channel_creator' : rule.default, rule.allowEveryone),
    ]),
  );
  const group = Object.fromEntries(
    Object.entries(GROUP_PERMISSIONS).map(([name, rule]) => [
      name,
      setting(rule.default, rule.allowEveryone, { default_for_system_groups: SYSTEM_GROUP.NOBODY }),
    ]),
  );
  return { realm, stream, group };
}

/** The system group a realm group-setting names, if it names one. */
function systemGroupOf(state: RealmState, name: string): SystemGroupName | undefined {
  const value = state.realm.groupSettings[name];
  if (typeof value !== 'number') return undefined;
  const group = state.groupsById.get(value);
  return group?.isSystemGroup ? (group.name as SystemGroupName) : undefined;
}

// The reference's enums for the deprecated policies (Realm.COMMON_POLICY_TYPES and friends).
const COMMON_POLICY: Partial<Record<SystemGroupName, number>> = {
  'role:members': 1, 'role:administrators': 2, 'role:fullmembers': 3, 'role:moderators': 4,
};
const WEB_PUBLIC_POLICY: Partial<Record<SystemGroupName, number>> = {
  'role:administrators': 2, 'role:moderators': 4, 'role:nobody': 6, 'role:owners': 7,
};
const WILDCARD_MENTION_POLICY: Partial<Record<SystemGroupName, number>> = {
  'role:everyone': 1, 'role:members': 2, 'role:fullmembers': 3, 'role:administrators': 5, 'role:nobody': 6, 'role:moderators': 7,
};

/** realm_create_*_stream_policy and realm_wildcard_mention_policy, from the group settings that replaced them; a
 *  group with no policy equivalent reads as 1 (the reference's MEMBERS_ONLY, "the largest group"). */
export function deprecatedRealmPolicies(state: RealmState): Record<string, number> {
  const policy = (name: string, table: Partial<Record<SystemGroupName, number>>) => {
    const group = systemGroupOf(state, name);
    return (group && table[group]) ?? 1;
  };
  return {
    realm_create_public_stream_policy: policy('can_create_public_channel_group', COMMON_POLICY),
    realm_create_private_stream_policy: policy('can_create_private_channel_group', COMMON_POLICY),
    realm_create_web_public_stream_policy: policy('can_create_web_public_channel_group', WEB_PUBLIC_POLICY),
    realm_wildcard_mention_policy: policy('can_mention_many_users_group', WILDCARD_MENTION_POLICY),
  };
}
