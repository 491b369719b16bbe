// The organization's permission settings as PATCH /realm changes them: which groups each may be set to (the
// reference's GroupPermissionSetting), who may change it, and checking a {new, old} change.
import { errors } from '../../errors.js';
import { normalizeGroupSetting, sameGroupSetting, type RawGroupSetting } from '../people/groups.js';
import type { RealmState } from '../state.js';
import { REALM_GROUP_SETTING_DEFAULTS, SYSTEM_GROUP, type SystemGroupName } from '../system-groups.js';
import type { GroupSettingValue } from '../../model/realm.js';

interface GroupPropertyRule {
  allowNobody: boolean;
  allowEveryone: boolean;
  /** Only system groups, and of those only the listed ones when given. */
  systemGroups?: readonly SystemGroupName[];
  ownerOnly?: boolean;
}

const RULE: GroupPropertyRule = { allowNobody: true, allowEveryone: false };
const EVERYONE_OK: GroupPropertyRule = { allowNobody: true, allowEveryone: true };

export const REALM_GROUP_PROPERTIES: Record<string, GroupPropertyRule> = {
  can_access_all_users_group: {
    allowNobody: false,
    allowEveryone: true,
    systemGroups: [SYSTEM_GROUP.EVERYONE, SYSTEM_GROUP.MEMBERS],
  },
  can_add_custom_emoji_group: RULE,
  can_add_subscribers_group: RULE,
  can_create_bots_group: RULE,
  can_create_groups: { ...RULE, ownerOnly: true },
  can_create_private_channel_group: RULE,
  can_create_public_channel_group: RULE,
  can_create_web_public_channel_group: {
    ...RULE,
    systemGroups: [SYSTEM_GROUP.MODERATORS, SYSTEM_GROUP.ADMINISTRATORS, SYSTEM_GROUP.OWNERS, SYSTEM_GROUP.NOBODY],
  },
  can_create_write_only_bots_group: RULE,
  can_delete_any_message_group: RULE,
  can_delete_own_message_group: EVERYONE_OK,
  can_invite_users_group: { ...RULE, ownerOnly: true },
  can_manage_all_groups: { allowNobody: false, allowEveryone: false, ownerOnly: true },
  can_manage_billing_group: { allowNobody: false, allowEveryone: false, ownerOnly: true },
  can_mention_many_users_group: EVERYONE_OK,
  can_move_messages_between_channels_group: RULE,
  can_move_messages_between_topics_group: EVERYONE_OK,
  can_resolve_topics_group: EVERYONE_OK,
  can_set_delete_message_policy_group: RULE,
  can_set_topics_policy_group: EVERYONE_OK,
  can_summarize_topics_group: EVERYONE_OK,
  create_multiuse_invite_group: { ...RULE, ownerOnly: true },
  direct_message_initiator_group: EVERYONE_OK,
  direct_message_permission_group: EVERYONE_OK,
};

export interface GroupSettingRequest {
  new: RawGroupSetting;
  old?: RawGroupSetting;
}

/** The realm's current value of a permission setting. */
function currentGroupProperty(state: RealmState, name: string): GroupSettingValue {
  return state.realm.groupSettings[name] ?? state.systemGroup(REALM_GROUP_SETTING_DEFAULTS[name]!).id;
}

/** The new value of a permission setting if the request changes it, else undefined (a no-op). */
export function checkGroupPropertyChange(state: RealmState, name: string, change: GroupSettingRequest): GroupSettingValue | undefined {
  const rule = REALM_GROUP_PROPERTIES[name]!;
  const current = currentGroupProperty(state, name);
  if (change.old !== undefined && !sameGroupSetting(normalizeGroupSetting(state, name, change.old), current)) {
    throw errors.groupSettingOldMismatch();
  }
  const next = normalizeGroupSetting(state, name, change.new);
  if (sameGroupSetting(next, current)) return undefined;
  if (typeof next !== 'number') {
    if (rule.systemGroups) throw errors.systemGroupRequired(name);
    return next;
  }
  const group = state.groupsById.get(next)!;
  if (rule.systemGroups && (!group.isSystemGroup || !rule.systemGroups.includes(group.name as SystemGroupName))) {
    throw group.isSystemGroup ? errors.groupSettingNotAllowed(name, group.name) : errors.systemGroupRequired(name);
  }
  if (!rule.allowNobody && group.name === SYSTEM_GROUP.NOBODY && group.isSystemGroup) throw errors.groupSettingNotAllowed(name, group.name);
  if (!rule.allowEveryone && group.name === SYSTEM_GROUP.EVERYONE && group.isSystemGroup) throw errors.groupSettingNotAllowed(name, group.name);
  return next;
}
