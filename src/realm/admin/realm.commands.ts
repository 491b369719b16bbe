// Realm commands on the organization itself: PATCH /realm (settings and permission groups) and deactivation.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import { actor, activeUserIds, requireAdmin } from '../access/roles.js';
import { ROLE, type GroupSettingValue, type User } from '../../model/realm.js';
import { checkGroupPropertyChange, REALM_GROUP_PROPERTIES, type GroupSettingRequest } from './group-properties.js';
import { currentProperty, propertyEvent, REALM_PROPERTIES } from './properties.js';

export interface UpdateRealmInput {
  actorId: number;
  /** Sent properties, already of their parameter types. */
  properties: Record<string, unknown>;
  groups: Record<string, GroupSettingRequest>;
}

export interface UpdateRealmPlan {
  name?: string;
  description?: string;
  /** Changed settings (stored in the realm's settings), in request order. */
  settings: Record<string, unknown>;
  groupSettings: Record<string, GroupSettingValue>;
}

export function requireOwner(user: User): void {
  if (user.role !== ROLE.OWNER) throw errors.mustBeOwner();
}

/** Everything is checked before anything is written, so a request succeeds or fails whole, as in the reference. */
const updateRealm: CommandDef<UpdateRealmInput, UpdateRealmPlan, UpdateRealmPlan> = {
  check(state, input) {
    const user = actor(state, input.actorId);
    requireAdmin(user);
    const ownerOnly =
      Object.keys(input.properties).some((n) => REALM_PROPERTIES[n]!.ownerOnly) ||
      Object.keys(input.groups).some((n) => REALM_GROUP_PROPERTIES[n]!.ownerOnly);
    if (ownerOnly) requireOwner(user);
    const plan: UpdateRealmPlan = { settings: {}, groupSettings: {} };
    for (const [name, sent] of Object.entries(input.properties)) {
      const def = REALM_PROPERTIES[name]!;
      const value = def.parse ? def.parse(state, sent, user) : sent;
      if (value === currentProperty(state, name)) continue;
      if (name === 'name') plan.name = value as string;
      else if (name === 'description') plan.description = value as string;
      else plan.settings[name] = value;
    }
    for (const [name, change] of Object.entries(input.groups)) {
      const next = checkGroupPropertyChange(state, name, change);
      if (next !== undefined) plan.groupSettings[name] = next;
    }
    return plan;
  },
  async write(t, plan, state) {
    const changed = plan.name !== undefined || plan.description !== undefined || Object.keys(plan.settings).length + Object.keys(plan.groupSettings).length > 0;
    if (changed) await t.realms.updateProperties(state.realm.id, plan);
    return plan;
  },
  apply(state, plan) {
    const r = state.realm;
    state.realm = {
      ...r,
      name: plan.name ?? r.name,
      description: plan.description ?? r.description,
      settings: { ...r.settings, ...plan.settings },
      groupSettings: { ...r.groupSettings, ...plan.groupSettings },
    };
  },
  events(state, plan) {
    const users = activeUserIds(state);
    const out: RealmEvent[] = [];
    if (plan.name !== undefined) out.push({ event: propertyEvent('name', plan.name), users });
    if (plan.description !== undefined) out.push({ event: propertyEvent('description', plan.description), users });
    for (const [name, value] of Object.entries(plan.settings)) out.push({ event: propertyEvent(name, value), users });
    for (const [name, value] of Object.entries(plan.groupSettings)) {
      out.push({ event: { kind: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } }, users });
    }
    return out;
  },
};

/** What PATCH /realm answers with: each changed value (strings as "updated", as the reference does). */
export function updateRealmReply(plan: UpdateRealmPlan): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  if (plan.name !== undefined) out.name = 'updated';
  if (plan.description !== undefined) out.description = 'updated';
  for (const [name, value] of Object.entries(plan.settings)) out[name] = typeof value === 'string' ? 'updated' : value;
  Object.assign(out, plan.groupSettings);
  return out;
}

/** The realm stops serving: every later request is refused with REALM_DEACTIVATED (src/http/auth.ts). Users are
 *  not deactivated, so a reactivation (bin/palaver reactivate-realm) restores everything. */
const deactivateRealm: CommandDef<{ actorId: number }, { users: number[] } | null, { users: number[] } | null> = {
  check(state, input) {
    requireOwner(actor(state, input.actorId));
    return state.realm.deactivated ? null : { users: activeUserIds(state) };
  },
  async write(t, plan, state) {
    if (plan) await t.realms.setDeactivated(state.realm.id, true);
    return plan;
  },
  apply(state, plan) {
    if (plan) state.realm = { ...state.realm, deactivated: true };
  },
  // Flushes open long-polls; their clients cannot authenticate again.
  events: (state, plan) => (plan ? [{ event: { kind: 'realm', op: 'deactivated', realmId: state.realm.id }, users: plan.users }] : []),
};

export const realmAdminCommands = {
  'realm.update': updateRealm,
  'realm.deactivate': deactivateRealm,
};
