// Channel permission settings: their defaults and rules, the group-setting value parameter, and validation.
import { int, list, object, oneOf, optional, required, type ParamType } from '../../params.js';
import { normalizeGroupSetting } from '../people/groups.js';
import type { RealmState } from '../state.js';
import { SYSTEM_GROUP, type SystemGroupName } from '../system-groups.js';
import type { GroupSettingValue } from '../../model/realm.js';
import { CHANNEL_GROUP_SETTING_NAMES, type ChannelGroupSettingName, type ChannelGroupSettings } from '../../model/channels.js';

interface SettingRule {
  /** A system group, or the channel's creator alone ('creator'; nobody when there is none). */
  default: SystemGroupName | 'creator';
  /** Whether role:everyone (which includes guests) is allowed. */
  allowEveryone: boolean;
  /** What a channel administrator also needs to change it: content access or metadata access. */
  access: 'content' | 'metadata';
}

export const CHANNEL_GROUP_SETTINGS: Record<ChannelGroupSettingName, SettingRule> = {
  can_add_subscribers_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: false, access: 'content' },
  can_remove_subscribers_group: { default: SYSTEM_GROUP.ADMINISTRATORS, allowEveryone: true, access: 'metadata' },
  can_administer_channel_group: { default: 'creator', allowEveryone: false, access: 'metadata' },
  can_delete_any_message_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: false, access: 'metadata' },
  can_delete_own_message_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: true, access: 'metadata' },
  can_move_messages_out_of_channel_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: true, access: 'metadata' },
  can_move_messages_within_channel_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: true, access: 'metadata' },
  can_send_message_group: { default: SYSTEM_GROUP.EVERYONE, allowEveryone: true, access: 'metadata' },
  can_subscribe_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: false, access: 'content' },
  can_resolve_topics_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: true, access: 'metadata' },
};

const anonymousGroup = object({ direct_members: required(list(int())), direct_subgroups: required(list(int())) });

/** A group-setting value as a parameter: a group ID or {direct_members, direct_subgroups}. */
export function groupSettingValue(): ParamType<GroupSettingValue> {
  return oneOf(int(), anonymousGroup);
}

export interface GroupSettingChange {
  new: GroupSettingValue;
  old: GroupSettingValue | undefined;
}

/** PATCH's form of a change: {new, old?}. */
export function groupSettingChange(): ParamType<GroupSettingChange> {
  return object({ new: required(groupSettingValue()), old: optional(groupSettingValue()) });
}

export function defaultChannelGroupSettings(state: RealmState, creatorId: number | null): ChannelGroupSettings {
  const out = {} as ChannelGroupSettings;
  for (const name of CHANNEL_GROUP_SETTING_NAMES) {
    const d = CHANNEL_GROUP_SETTINGS[name].default;
    out[name] =
      d === 'creator'
        ? creatorId === null
          ? state.systemGroup(SYSTEM_GROUP.NOBODY).id
          : { direct_members: [creatorId], direct_subgroups: [] }
        : state.systemGroup(d).id;
  }
  return out;
}

/** Validates a value for a channel setting and puts it in canonical form (a lone subgroup becomes its ID). */
export function checkChannelGroupSetting(state: RealmState, name: ChannelGroupSettingName, value: GroupSettingValue): GroupSettingValue {
  return normalizeGroupSetting(state, name, value, CHANNEL_GROUP_SETTINGS[name].allowEveryone);
}

export function groupSettingEquals(a: GroupSettingValue, b: GroupSettingValue): boolean {
  if (typeof a === 'number' || typeof b === 'number') return a === b;
  const same = (x: number[], y: number[]) => {
    const sx = [...new Set(x)].sort((p, q) => p - q);
    const sy = [...new Set(y)].sort((p, q) => p - q);
    return sx.length === sy.length && sx.every((v, i) => v === sy[i]);
  };
  return same(a.direct_members, b.direct_members) && same(a.direct_subgroups, b.direct_subgroups);
}
