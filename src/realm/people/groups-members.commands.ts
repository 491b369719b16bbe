// Realm commands on a user group's members and subgroups: add and remove, by the group's permission settings
// (manage, add/remove members, join, leave); user_group add/remove_members and add/remove_subgroups events.
import type { GroupMembersEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import type { UserGroup } from '../../model/realm.js';
import { targetGroup } from '../access/roles.js';
import { activeGroup, activeUser, canManageGroup, groupEvent, hasGroupPermission, recursiveSubgroups } from './groups.js';

interface MembersInput {
  actorId: number;
  groupId: number;
  add: number[];
  delete: number[];
  addSubgroups: number[];
  deleteSubgroups: number[];
}
type MembersPlan = Omit<MembersInput, 'actorId'>;

const members: CommandDef<MembersInput, MembersPlan, MembersPlan> = {
  check(state, input) {
    if (!input.add.length && !input.delete.length && !input.addSubgroups.length && !input.deleteSubgroups.length) {
      throw errors.badRequest("Nothing to do. Specify at least one of 'add', 'delete', 'add_subgroups' or 'delete_subgroups'.");
    }
    const g = targetGroup(state, input.groupId);
    if (g.isSystemGroup) throw errors.insufficientPermission();
    const manages = canManageGroup(state, input.actorId, g);
    for (const id of input.add) {
      activeUser(state, id);
      const self = id === input.actorId;
      const ok =
        manages ||
        hasGroupPermission(state, input.actorId, g, 'can_add_members_group') ||
        (self && hasGroupPermission(state, input.actorId, g, 'can_join_group'));
      if (!ok) throw errors.insufficientPermission();
      if (g.directMembers.has(id)) throw errors.badRequest(`User ${id} is already a member of this group`);
    }
    for (const id of input.delete) {
      activeUser(state, id);
      const self = id === input.actorId;
      const ok =
        manages ||
        hasGroupPermission(state, input.actorId, g, 'can_remove_members_group') ||
        (self && hasGroupPermission(state, input.actorId, g, 'can_leave_group'));
      if (!ok) throw errors.insufficientPermission();
      if (!g.directMembers.has(id)) throw errors.badRequest(`There is no member '${id}' in this user group`);
    }
    checkSubgroupChanges(state, input.actorId, g, input.addSubgroups, input.deleteSubgroups);
    return { groupId: g.id, add: input.add, delete: input.delete, addSubgroups: input.addSubgroups, deleteSubgroups: input.deleteSubgroups };
  },
  async write(t, plan) {
    for (const u of plan.add) await t.groups.addMember(plan.groupId, u);
    for (const u of plan.delete) await t.groups.removeMember(plan.groupId, u);
    for (const s of plan.addSubgroups) await t.groups.addSubgroup(plan.groupId, s);
    for (const s of plan.deleteSubgroups) await t.groups.removeSubgroup(plan.groupId, s);
    return plan;
  },
  apply(state, plan) {
    const g = state.groupsById.get(plan.groupId)!;
    for (const u of plan.add) g.directMembers.add(u);
    for (const u of plan.delete) g.directMembers.delete(u);
    for (const s of plan.addSubgroups) g.directSubgroups.add(s);
    for (const s of plan.deleteSubgroups) g.directSubgroups.delete(s);
  },
  events(state, plan) {
    const sorted = (ids: number[]) => [...ids].sort((a, b) => a - b);
    const { groupId } = plan;
    const ev = (e: GroupMembersEvent) => (('userIds' in e ? e.userIds : e.subgroupIds).length ? [groupEvent(state, e)] : []);
    return [
      ...ev({ kind: 'group_members', op: 'add_members', groupId, userIds: sorted(plan.add) }),
      ...ev({ kind: 'group_members', op: 'remove_members', groupId, userIds: sorted(plan.delete) }),
      ...ev({ kind: 'group_members', op: 'add_subgroups', groupId, subgroupIds: sorted(plan.addSubgroups) }),
      ...ev({ kind: 'group_members', op: 'remove_subgroups', groupId, subgroupIds: sorted(plan.deleteSubgroups) }),
    ];
  },
};

function checkSubgroupChanges(state: RealmState, callerId: number, g: UserGroup, add: number[], remove: number[]): void {
  if (add.length === 0 && remove.length === 0) return;
  if (!canManageGroup(state, callerId, g) && !hasGroupPermission(state, callerId, g, 'can_add_members_group')) {
    throw errors.insufficientPermission();
  }
  for (const id of add) {
    const sub = activeGroup(state, id);
    if (g.directSubgroups.has(id)) throw errors.badRequest(`User group ${id} is already a subgroup of this group.`);
    if (id === g.id || recursiveSubgroups(state, sub).has(g.id)) {
      throw errors.badRequest(`User group ${id} is already a supergroup of this group.`);
    }
  }
  for (const id of remove) {
    if (!state.groupsById.has(id)) throw errors.invalidUserGroup();
    if (!g.directSubgroups.has(id)) throw errors.badRequest(`User group ${id} is not a subgroup of this group.`);
  }
}

const subgroups: CommandDef<{ actorId: number; groupId: number; add: number[]; delete: number[] }, MembersPlan, MembersPlan> = {
  check(state, input) {
    if (!input.add.length && !input.delete.length) throw errors.badRequest("Nothing to do. Specify at least one of 'add' or 'delete'.");
    const g = targetGroup(state, input.groupId);
    if (g.isSystemGroup) throw errors.insufficientPermission();
    checkSubgroupChanges(state, input.actorId, g, input.add, input.delete);
    return { groupId: g.id, add: [], delete: [], addSubgroups: input.add, deleteSubgroups: input.delete };
  },
  write: members.write,
  apply: members.apply,
  events: members.events,
};

export const membershipCommands = {
  'groups.members': members,
  'groups.subgroups': subgroups,
};
