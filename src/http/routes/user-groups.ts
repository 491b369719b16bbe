// User groups: list, create, update, members and subgroups, deactivate.
import { requireMemberOrAdmin, targetGroup, targetUser } from '../../realm/access/roles.js';
import {
  GROUP_PERMISSION_NAMES,
  MAX_GROUP_DESCRIPTION_LENGTH,
  formatGroup,
  groupSettingParam,
  groupSettingUpdateParam,
  recursiveMembers,
  recursiveSubgroups,
} from '../../realm/people/groups.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, int, list, optional, required, str, withDefault, type Field } from '../../params.js';

const ids = () => withDefault(list(int(), { maxItems: 10_000 }), [] as number[]);

function settingFields<T>(field: () => Field<T>): Record<string, Field<T>> {
  return Object.fromEntries(GROUP_PERMISSION_NAMES.map((n) => [n, field()]));
}

/** The group settings an endpoint's `fields` (settingFields) parsed into its params `p`, by name (absent: undefined). */
function pickSettings<T>(p: object, fields: Record<string, Field<T>>): Record<string, T | undefined> {
  // The params type cannot name fields spread in from a record: the parser gave each of `fields` its type T.
  const parsed = p as Record<string, T | undefined>;
  return Object.fromEntries(Object.keys(fields).map((n) => [n, parsed[n]]));
}

const createSettings = settingFields(() => optional(groupSettingParam()));
const updateSettings = settingFields(() => optional(groupSettingUpdateParam()));

export const getUserGroups = endpoint({
  method: 'GET',
  path: '/user_groups',
  auth: 'user',
  params: { include_deactivated_groups: withDefault(bool(), false, ['allow_deactivated']) },
  handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    const state = ctx.realm.state;
    const groups = [...state.groupsById.values()]
      .filter((g) => p.include_deactivated_groups || !g.deactivated)
      .sort((a, b) => a.id - b.id)
      .map((g) => formatGroup(state, g));
    return { user_groups: groups };
  },
});

export const createUserGroup = endpoint({
  method: 'POST',
  path: '/user_groups/create',
  auth: 'user',
  params: {
    name: required(str({ maxLength: 1000 })),
    description: required(str({ maxLength: MAX_GROUP_DESCRIPTION_LENGTH * 4 })),
    members: required(list(int(), { maxItems: 10_000 })),
    subgroups: ids(),
    ...createSettings,
  },
  async handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    const g = await ctx.realm.dispatch('groups.create', {
      actorId: ctx.user.id,
      name: p.name,
      description: p.description,
      members: p.members,
      subgroups: p.subgroups,
      settings: pickSettings(p, createSettings),
    });
    return { group_id: g.id };
  },
});

export const updateUserGroup = endpoint({
  method: 'PATCH',
  path: '/user_groups/{user_group_id}',
  auth: 'user',
  params: {
    user_group_id: required(int()),
    name: optional(str({ maxLength: 1000 })),
    description: optional(str({ maxLength: MAX_GROUP_DESCRIPTION_LENGTH * 4 })),
    deactivated: optional(bool()),
    ...updateSettings,
  },
  async handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    await ctx.realm.dispatch('groups.update', {
      actorId: ctx.user.id,
      groupId: p.user_group_id,
      name: p.name,
      description: p.description,
      deactivated: p.deactivated,
      settings: pickSettings(p, updateSettings),
    });
    return {};
  },
});

export const updateUserGroupMembers = endpoint({
  method: 'POST',
  path: '/user_groups/{user_group_id}/members',
  auth: 'user',
  params: {
    user_group_id: required(int()),
    add: ids(),
    delete: ids(),
    add_subgroups: ids(),
    delete_subgroups: ids(),
  },
  async handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    await ctx.realm.dispatch('groups.members', {
      actorId: ctx.user.id,
      groupId: p.user_group_id,
      add: p.add,
      delete: p.delete,
      addSubgroups: p.add_subgroups,
      deleteSubgroups: p.delete_subgroups,
    });
    return {};
  },
});

export const getUserGroupMembers = endpoint({
  method: 'GET',
  path: '/user_groups/{user_group_id}/members',
  auth: 'user',
  params: { user_group_id: required(int()), direct_member_only: withDefault(bool(), false) },
  handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    const state = ctx.realm.state;
    const g = targetGroup(state, p.user_group_id);
    const members = p.direct_member_only
      ? [...g.directMembers].filter((id) => state.usersById.get(id)?.isActive)
      : [...recursiveMembers(state, g)];
    return { members: members.sort((a, b) => a - b) };
  },
});

export const isUserGroupMember = endpoint({
  method: 'GET',
  path: '/user_groups/{user_group_id}/members/{user_id}',
  auth: 'user',
  params: { user_group_id: required(int()), user_id: required(int()), direct_member_only: withDefault(bool(), false) },
  handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    const state = ctx.realm.state;
    const g = targetGroup(state, p.user_group_id);
    const user = targetUser(state, p.user_id);
    const member = p.direct_member_only ? g.directMembers.has(user.id) : recursiveMembers(state, g).has(user.id);
    return { is_user_group_member: member };
  },
});

export const updateUserGroupSubgroups = endpoint({
  method: 'POST',
  path: '/user_groups/{user_group_id}/subgroups',
  auth: 'user',
  params: { user_group_id: required(int()), add: ids(), delete: ids() },
  async handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    await ctx.realm.dispatch('groups.subgroups', { actorId: ctx.user.id, groupId: p.user_group_id, add: p.add, delete: p.delete });
    return {};
  },
});

export const getUserGroupSubgroups = endpoint({
  method: 'GET',
  path: '/user_groups/{user_group_id}/subgroups',
  auth: 'user',
  params: { user_group_id: required(int()), direct_subgroup_only: withDefault(bool(), false) },
  handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    const state = ctx.realm.state;
    const g = targetGroup(state, p.user_group_id);
    const subs = p.direct_subgroup_only ? [...g.directSubgroups] : [...recursiveSubgroups(state, g)];
    return { subgroups: subs.sort((a, b) => a - b) };
  },
});

export const deactivateUserGroup = endpoint({
  method: 'POST',
  path: '/user_groups/{user_group_id}/deactivate',
  auth: 'user',
  params: { user_group_id: required(int()) },
  async handle(ctx, p) {
    requireMemberOrAdmin(ctx.user);
    await ctx.realm.dispatch('groups.deactivate', { actorId: ctx.user.id, groupId: p.user_group_id });
    return {};
  },
});

export const userGroupEndpoints = [
  getUserGroups,
  createUserGroup,
  updateUserGroup,
  updateUserGroupMembers,
  getUserGroupMembers,
  isUserGroupMember,
  updateUserGroupSubgroups,
  getUserGroupSubgroups,
  deactivateUserGroup,
];
