// The system groups every realm has, which role each holds directly, and the realm's default permission groups.
import { ROLE, type Role } from '../model/realm.js';

export const SYSTEM_GROUP = {
  OWNERS: 'role:owners',
  ADMINISTRATORS: 'role:administrators',
  MODERATORS: 'role:moderators',
  FULL_MEMBERS: 'role:fullmembers',
  MEMBERS: 'role:members',
  EVERYONE: 'role:everyone',
  NOBODY: 'role:nobody',
} as const;
export type SystemGroupName = (typeof SYSTEM_GROUP)[keyof typeof SYSTEM_GROUP];

export const SYSTEM_GROUP_DESCRIPTIONS: Record<SystemGroupName, string> = {
  'role:owners': 'Owners of this organization',
  'role:administrators': 'Administrators of this organization, including owners',
  'role:moderators': 'Moderators of this organization, including administrators',
  'role:fullmembers': 'Members of this organization, not including new accounts and guests',
  'role:members': 'Members of this organization, not including guests',
  'role:everyone': 'Everyone including guests',
  'role:nobody': 'Nobody',
};

/** Each system group contains the next more privileged one as a subgroup. */
export const SYSTEM_SUBGROUPS: [SystemGroupName, SystemGroupName][] = [
  ['role:administrators', 'role:owners'],
  ['role:moderators', 'role:administrators'],
  ['role:fullmembers', 'role:moderators'],
  ['role:members', 'role:fullmembers'],
  ['role:everyone', 'role:members'],
];

/** The system group a user of a role belongs to directly. */
export function roleGroup(role: Role): SystemGroupName {
  switch (role) {
    case ROLE.OWNER:
      return 'role:owners';
    case ROLE.ADMINISTRATOR:
      return 'role:administrators';
    case ROLE.MODERATOR:
      return 'role:moderators';
    case ROLE.MEMBER:
      return 'role:fullmembers';
    case ROLE.GUEST:
      return 'role:everyone';
  }
}

/** Realm permission settings and the system group each defaults to. */
export const REALM_GROUP_SETTING_DEFAULTS: Record<string, SystemGroupName> = {
  can_access_all_users_group: 'role:everyone',
  can_add_custom_emoji_group: 'role:members',
  can_add_subscribers_group: 'role:members',
  can_create_bots_group: 'role:members',
  can_create_groups: 'role:members',
  can_create_private_channel_group: 'role:members',
  can_create_public_channel_group: 'role:members',
  can_create_web_public_channel_group: 'role:owners',
  can_create_write_only_bots_group: 'role:members',
  can_delete_any_message_group: 'role:administrators',
  can_delete_own_message_group: 'role:everyone',
  can_invite_users_group: 'role:members',
  can_manage_all_groups: 'role:owners',
  can_manage_billing_group: 'role:administrators',
  can_mention_many_users_group: 'role:administrators',
  can_move_messages_between_channels_group: 'role:members',
  can_move_messages_between_topics_group: 'role:everyone',
  can_resolve_topics_group: 'role:everyone',
  can_set_delete_message_policy_group: 'role:moderators',
  can_set_topics_policy_group: 'role:members',
  can_summarize_topics_group: 'role:everyone',
  create_multiuse_invite_group: 'role:administrators',
  direct_message_initiator_group: 'role:everyone',
  direct_message_permission_group: 'role:everyone',
};
