// User groups: their permission settings, group-setting values (parsed, normalized, resolved) and records.
import type { BusEvent, RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { int, json, list, type ParamType } from '../../params.js';
import type { RealmState } from '../state.js';
import { SYSTEM_GROUP } from '../system-groups.js';
import { ROLE, type GroupSettingValue, type UserGroup } from '../../model/realm.js';
import { activeUserIds } from '../access/roles.js';

interface GroupPermission {
  /** A system group name, or `group_creator` (an anonymous group of the creator). */
  default: string;
  allowEveryone: boolean;
}

/** The permission settings every user group has, with their defaults (system groups: role:nobody). */
export const GROUP_PERMISSIONS: Record<string, GroupPermission> = {
  can_add_members_group: { default: 'group_creator', allowEveryone: true },
  can_join_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: true },
  can_leave_group: { default: SYSTEM_GROUP.EVERYONE, allowEveryone: true },
  can_manage_group: { default: 'group_creator', allowEveryone: false },
  can_mention_group: { default: SYSTEM_GROUP.EVERYONE, allowEveryone: true },
  can_remove_members_group: { default: SYSTEM_GROUP.NOBODY, allowEveryone: true },
};
export const GROUP_PERMISSION_NAMES = Object.keys(GROUP_PERMISSIONS);

export const MAX_GROUP_NAME_LENGTH = 100;
export const MAX_GROUP_DESCRIPTION_LENGTH = 1024;

export type RawGroupSetting = number | { direct_members: number[]; direct_subgroups: number[] };

const ids = list(int());
const anyJson = json();

/** A group-setting value as sent: a group ID or `{direct_members, direct_subgroups}` (JSON-encoded in a form). */
export function groupSettingParam(): ParamType<RawGroupSetting> {
  const fromJson = (v: unknown, name: string): RawGroupSetting => {
    if (typeof v === 'number') return int().fromJson(v, name);
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw errors.invalidParam(`${name} is not an integer or a dict`);
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o)) {
      if (key !== 'direct_members' && key !== 'direct_subgroups') throw errors.invalidParam(`Unexpected key ${key} in ${name}`);
    }
    return {
      direct_members: ids.fromJson(o.direct_members ?? [], `${name}.direct_members`),
      direct_subgroups: ids.fromJson(o.direct_subgroups ?? [], `${name}.direct_subgroups`),
    };
  };
  return { fromRaw: (raw, name) => fromJson(anyJson.fromRaw(raw, name), name), fromJson };
}

/** An update to a group-setting value: `{new, old?}`. */
export function groupSettingUpdateParam(): ParamType<{ new: RawGroupSetting; old?: RawGroupSetting }> {
  const inner = groupSettingParam();
  const fromJson = (v: unknown, name: string) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) throw errors.invalidParam(`${name} is not a dict`);
    const o = v as Record<string, unknown>;
    for (const key of Object.keys(o)) if (key !== 'new' && key !== 'old') throw errors.invalidParam(`Unexpected key ${key} in ${name}`);
    if (!('new' in o)) throw errors.invalidParam(`new key is missing from ${name}`);
    return { new: inner.fromJson(o.new, `${name}.new`), old: 'old' in o ? inner.fromJson(o.old, `${name}.old`) : undefined };
  };
  return { fromRaw: (raw, name) => fromJson(anyJson.fromRaw(raw, name), name), fromJson };
}

/** An active group of the realm by ID, else "Invalid user group". */
export function activeGroup(state: RealmState, id: number): UserGroup {
  const g = state.groupsById.get(id);
  if (!g || g.deactivated) throw errors.invalidUserGroup();
  return g;
}

/**
 * Validates a sent value for a setting and puts it in canonical form: an anonymous group of exactly one subgroup
 * is that group's ID, an empty one is role:nobody; member and subgroup lists are sorted.
 */
export function normalizeGroupSetting(state: RealmState, setting: string, raw: RawGroupSetting, allowEveryone = true): GroupSettingValue {
  let value: GroupSettingValue;
  if (typeof raw === 'number') {
    activeGroup(state, raw);
    value = raw;
  } else {
    for (const id of raw.direct_members) activeUser(state, id);
    for (const id of raw.direct_subgroups) activeGroup(state, id);
    const members = [...new Set(raw.direct_members)].sort((a, b) => a - b);
    const subgroups = [...new Set(raw.direct_subgroups)].sort((a, b) => a - b);
    if (members.length === 0 && subgroups.length === 1) value = subgroups[0]!;
    else if (members.length === 0 && subgroups.length === 0) value = state.systemGroup(SYSTEM_GROUP.NOBODY).id;
    else value = { direct_members: members, direct_subgroups: subgroups };
  }
  if (!allowEveryone && typeof value === 'number' && value === state.systemGroup(SYSTEM_GROUP.EVERYONE).id) {
    throw errors.groupSettingNotAllowed(setting, SYSTEM_GROUP.EVERYONE);
  }
  return value;
}

export function sameGroupSetting(a: GroupSettingValue, b: GroupSettingValue): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

/** The stored value of a group's setting, or its default. */
export function groupSettingOf(state: RealmState, g: UserGroup, setting: string): GroupSettingValue {
  const stored = g.groupSettings[setting];
  if (stored !== undefined) return stored;
  const perm = GROUP_PERMISSIONS[setting]!;
  if (g.isSystemGroup) return state.systemGroup(SYSTEM_GROUP.NOBODY).id;
  if (perm.default === 'group_creator') return { direct_members: g.creatorId === null ? [] : [g.creatorId], direct_subgroups: [] };
  return state.systemGroup(perm.default).id;
}

/** Defaults of every setting for a group a user creates now. */
export function defaultGroupSettings(state: RealmState, creatorId: number): Record<string, GroupSettingValue> {
  const out: Record<string, GroupSettingValue> = {};
  for (const [name, perm] of Object.entries(GROUP_PERMISSIONS)) {
    out[name] = perm.default === 'group_creator' ? { direct_members: [creatorId], direct_subgroups: [] } : state.systemGroup(perm.default).id;
  }
  return out;
}

/** Whether a user holds one of a group's permissions; guests never hold those that exclude role:everyone. */
export function hasGroupPermission(state: RealmState, userId: number, g: UserGroup, setting: string): boolean {
  const user = state.usersById.get(userId);
  if (!user || !user.isActive) return false;
  if (user.role === ROLE.GUEST && !GROUP_PERMISSIONS[setting]!.allowEveryone) return false;
  return state.userHasGroupSetting(userId, groupSettingOf(state, g, setting));
}

export function canManageGroup(state: RealmState, userId: number, g: UserGroup): boolean {
  const user = state.usersById.get(userId);
  if (!user || user.role === ROLE.GUEST) return false;
  return state.userHasRealmPermission(userId, 'can_manage_all_groups') || hasGroupPermission(state, userId, g, 'can_manage_group');
}

/** Active users in a group, directly or through its subgroups. */
export function recursiveMembers(state: RealmState, g: UserGroup, seen = new Set<number>()): Set<number> {
  const out = new Set<number>();
  if (seen.has(g.id)) return out;
  seen.add(g.id);
  for (const id of g.directMembers) if (state.usersById.get(id)?.isActive) out.add(id);
  for (const sub of g.directSubgroups) {
    const sg = state.groupsById.get(sub);
    if (sg && !sg.deactivated) for (const id of recursiveMembers(state, sg, seen)) out.add(id);
  }
  return out;
}

/** All subgroups, direct or nested. */
export function recursiveSubgroups(state: RealmState, g: UserGroup, seen = new Set<number>()): Set<number> {
  for (const sub of g.directSubgroups) {
    if (seen.has(sub)) continue;
    seen.add(sub);
    const sg = state.groupsById.get(sub);
    if (sg) recursiveSubgroups(state, sg, seen);
  }
  return seen;
}

function withoutDeactivatedMembers(state: RealmState, v: GroupSettingValue): GroupSettingValue {
  if (typeof v === 'number') return v;
  return { ...v, direct_members: v.direct_members.filter((id) => state.usersById.get(id)?.isActive) };
}

/** A group as the API returns it (GET /user_groups, register, user_group add events). */
export function formatGroup(state: RealmState, g: UserGroup): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: g.id,
    name: g.name,
    description: g.description,
    members: [...g.directMembers].filter((id) => state.usersById.get(id)?.isActive).sort((a, b) => a - b),
    direct_subgroup_ids: [...g.directSubgroups].sort((a, b) => a - b),
    is_system_group: g.isSystemGroup,
    creator_id: g.creatorId,
    date_created: g.dateCreated,
    deactivated: g.deactivated,
  };
  for (const name of GROUP_PERMISSION_NAMES) out[name] = withoutDeactivatedMembers(state, groupSettingOf(state, g, name));
  return out;
}

/** Checks a new or changed group name: not empty, not too long, not a system prefix, unused. */
export function checkGroupName(state: RealmState, raw: string, except?: number): string {
  const name = raw.trim();
  if (name === '') throw errors.badRequest('User group name cannot be empty.');
  if ([...name].length > MAX_GROUP_NAME_LENGTH) {
    throw errors.badRequest(`User group name cannot exceed ${MAX_GROUP_NAME_LENGTH} characters.`);
  }
  for (const prefix of ['role:', '@']) {
    if (name.startsWith(prefix)) throw errors.badRequest(`User group name cannot start with '${prefix}'.`);
  }
  const existing = state.groupsByName.get(name);
  if (existing && existing.id !== except) throw errors.badRequest(`User group '${name}' already exists.`);
  return name;
}

/** An active user of the realm by ID, else "Invalid user ID". */
export function activeUser(state: RealmState, id: number): number {
  if (!state.usersById.get(id)?.isActive) throw errors.invalidUserId(id);
  return id;
}

/** A user_group event, for everyone in the realm. */
export const groupEvent = (state: RealmState, event: BusEvent): RealmEvent => ({
  event,
  users: activeUserIds(state),
});
