// Realm commands on user groups: create, update (name, description, permissions, reactivation), deactivate;
// members and subgroups are in groups-members.commands.ts. Each publishes user_group events to the whole realm.
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import { ROLE, type GroupSettingValue, type UserGroup } from '../../model/realm.js';
import { actor, targetGroup } from '../access/roles.js';
import { membershipCommands } from './groups-members.commands.js';
import {
  GROUP_PERMISSIONS,
  MAX_GROUP_DESCRIPTION_LENGTH,
  activeGroup,
  activeUser,
  canManageGroup,
  checkGroupName,
  defaultGroupSettings,
  formatGroup,
  groupEvent,
  groupSettingOf,
  normalizeGroupSetting,
  sameGroupSetting,
  type RawGroupSetting,
} from './groups.js';

function checkDescription(d: string): string {
  if ([...d].length > MAX_GROUP_DESCRIPTION_LENGTH) {
    throw errors.badRequest(`User group description cannot exceed ${MAX_GROUP_DESCRIPTION_LENGTH} characters.`);
  }
  return d;
}

/** A group the caller may change: not a system group, and the caller manages it. */
function editableGroup(state: RealmState, callerId: number, groupId: number): UserGroup {
  const g = targetGroup(state, groupId);
  if (g.isSystemGroup || !canManageGroup(state, callerId, g)) throw errors.insufficientPermission();
  return g;
}

interface CreateGroupInput {
  actorId: number;
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Record<string, RawGroupSetting | undefined>;
}
interface CreateGroupPlan {
  creatorId: number;
  name: string;
  description: string;
  members: number[];
  subgroups: number[];
  settings: Record<string, GroupSettingValue>;
}

const create: CommandDef<CreateGroupInput, CreateGroupPlan, UserGroup, { id: number }> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    if (!state.userHasRealmPermission(caller.id, 'can_create_groups') || caller.role === ROLE.GUEST) throw errors.insufficientPermission();
    const name = checkGroupName(state, input.name);
    const members = [...new Set(input.members)].map((id) => activeUser(state, id));
    const subgroups = [...new Set(input.subgroups)].map((id) => activeGroup(state, id).id);
    const settings = defaultGroupSettings(state, caller.id);
    for (const [setting, raw] of Object.entries(input.settings)) {
      if (raw !== undefined) settings[setting] = normalizeGroupSetting(state, setting, raw, GROUP_PERMISSIONS[setting]!.allowEveryone);
    }
    return { creatorId: caller.id, name, description: checkDescription(input.description), members, subgroups, settings };
  },
  async write(t, plan, state) {
    const id = await t.groups.insert({
      realmId: state.realm.id,
      name: plan.name,
      description: plan.description,
      isSystemGroup: false,
      creatorId: plan.creatorId,
      groupSettings: plan.settings,
    });
    for (const u of plan.members) await t.groups.addMember(id, u);
    for (const g of plan.subgroups) await t.groups.addSubgroup(id, g);
    return {
      id,
      realmId: state.realm.id,
      name: plan.name,
      description: plan.description,
      isSystemGroup: false,
      deactivated: false,
      creatorId: plan.creatorId,
      dateCreated: await t.groups.dateCreated(id),
      groupSettings: plan.settings,
      directMembers: new Set(plan.members),
      directSubgroups: new Set(plan.subgroups),
    };
  },
  apply: (state, g) => state.putGroup(g),
  events: (state, g) => [groupEvent(state, { kind: 'user_group', op: 'add', group: formatGroup(state, g) })],
  // The group itself holds sets (not plain data): the caller gets its ID.
  answer: (g) => ({ id: g.id }),
};

interface UpdateGroupInput {
  actorId: number;
  groupId: number;
  name?: string;
  description?: string;
  deactivated?: boolean;
  settings: Record<string, { new: RawGroupSetting; old?: RawGroupSetting } | undefined>;
}
interface UpdateGroupPlan {
  groupId: number;
  oldName: string;
  data: { name?: string; description?: string; deactivated?: boolean; settings: Record<string, GroupSettingValue> };
}

const update: CommandDef<UpdateGroupInput, UpdateGroupPlan, UpdateGroupPlan> = {
  check(state, input) {
    const sent = Object.values(input.settings).some((v) => v !== undefined);
    if (input.name === undefined && input.description === undefined && input.deactivated === undefined && !sent) {
      throw errors.badRequest('No new data supplied');
    }
    const g = editableGroup(state, input.actorId, input.groupId);
    const data: UpdateGroupPlan['data'] = { settings: {} };
    if (input.name !== undefined) {
      const name = checkGroupName(state, input.name, g.id);
      if (name !== g.name) data.name = name;
    }
    if (input.description !== undefined && input.description !== g.description) data.description = checkDescription(input.description);
    if (input.deactivated === false && g.deactivated) data.deactivated = false;
    else if (input.deactivated === true && !g.deactivated) throw errors.badRequest('Use the deactivate endpoint to deactivate a user group.');
    for (const [setting, change] of Object.entries(input.settings)) {
      if (change === undefined) continue;
      const current = groupSettingOf(state, g, setting);
      const allowEveryone = GROUP_PERMISSIONS[setting]!.allowEveryone;
      if (change.old !== undefined && !sameGroupSetting(normalizeGroupSetting(state, setting, change.old), current)) {
        throw errors.badRequest(`'old' value for ${setting} does not match expected value`);
      }
      const next = normalizeGroupSetting(state, setting, change.new, allowEveryone);
      if (!sameGroupSetting(next, current)) data.settings[setting] = next;
    }
    return { groupId: g.id, oldName: g.name, data };
  },
  async write(t, plan, state) {
    const g = state.groupsById.get(plan.groupId)!;
    const hasSettings = Object.keys(plan.data.settings).length > 0;
    await t.groups.update(plan.groupId, {
      name: plan.data.name,
      description: plan.data.description,
      deactivated: plan.data.deactivated,
      groupSettings: hasSettings ? { ...g.groupSettings, ...plan.data.settings } : undefined,
    });
    return plan;
  },
  apply(state, plan) {
    const g = state.groupsById.get(plan.groupId)!;
    if (plan.data.name !== undefined) state.groupsByName.delete(plan.oldName);
    state.putGroup({
      ...g,
      name: plan.data.name ?? g.name,
      description: plan.data.description ?? g.description,
      deactivated: plan.data.deactivated ?? g.deactivated,
      groupSettings: { ...g.groupSettings, ...plan.data.settings },
    });
  },
  events(state, plan) {
    const { settings, ...rest } = plan.data;
    const data: Record<string, unknown> = { ...rest, ...settings };
    if (Object.keys(data).length === 0) return [];
    const out = groupEvent(state, { kind: 'user_group', op: 'update', groupId: plan.groupId, data });
    // Clients that do not know deactivated groups see a reactivated group as new.
    if (plan.data.deactivated === false) {
      out.legacy = {
        include_deactivated_groups: [
          { kind: 'user_group', op: 'add', group: formatGroup(state, state.groupsById.get(plan.groupId)!) },
        ],
      };
    }
    return [out];
  },
};

/** Where a group is used: realm permissions, other active groups' permissions, active supergroups. */
function objections(state: RealmState, groupId: number): Record<string, unknown>[] {
  const uses = (v: GroupSettingValue) => (typeof v === 'number' ? v === groupId : v.direct_subgroups.includes(groupId));
  const out: Record<string, unknown>[] = [];
  const realmSettings = Object.entries(state.realm.groupSettings).filter(([, v]) => uses(v)).map(([k]) => k).sort();
  if (realmSettings.length) out.push({ type: 'realm', settings: realmSettings });
  for (const other of state.groupsById.values()) {
    if (other.id === groupId || other.deactivated) continue;
    const settings = Object.keys(GROUP_PERMISSIONS).filter((s) => uses(groupSettingOf(state, other, s)));
    if (other.directSubgroups.has(groupId)) settings.push('direct_subgroup_ids');
    if (settings.length) out.push({ type: 'user_group', group_id: other.id, settings });
  }
  return out;
}

const deactivate: CommandDef<{ actorId: number; groupId: number }, number, number> = {
  check(state, input) {
    const g = editableGroup(state, input.actorId, input.groupId);
    if (g.deactivated) throw errors.badRequest('User group is already deactivated.');
    const used = objections(state, g.id);
    if (used.length) throw errors.groupInUse(used);
    return g.id;
  },
  async write(t, id) {
    await t.groups.update(id, { deactivated: true });
    return id;
  },
  apply(state, id) {
    state.putGroup({ ...state.groupsById.get(id)!, deactivated: true });
  },
  events(state, id) {
    const out = groupEvent(state, { kind: 'user_group', op: 'update', groupId: id, data: { deactivated: true } });
    out.legacy = { include_deactivated_groups: [{ kind: 'user_group', op: 'remove', groupId: id }] };
    return [out];
  },
};

export const groupCommands = {
  'groups.create': create,
  'groups.update': update,
  'groups.deactivate': deactivate,
  ...membershipCommands,
};
