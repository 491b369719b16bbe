// Realm commands on custom profile fields (administrators: create, change, delete, reorder) and on users' values
// of them (the user, or an administrator through PATCH /users/{id}). custom_profile_fields events carry the
// whole list to everyone; a changed value is a realm_user update of its user.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { Tx } from '../../persistence/db.js';
import type { NewProfileField, ProfileField, ProfileFieldChanges, ProfileValue } from '../../model/people.js';
import { prerenderDescriptions, renderDescription, type RenderedDescriptions } from '../channels/render.js';
import { byUser, type CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { activeUserIds, actor, isAdmin, requireAdmin } from '../access/roles.js';
import { realmUserUpdate } from './events.js';
import {
  DEFAULT_EXTERNAL_ACCOUNTS, FIELD_TYPE, MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS, MAX_TEXT_VALUE_LENGTH, checkDefinition, checkValue, fieldById, formatFields,
  isDefaultExternal, isRenderable, parseFieldData,
} from './profile-fields.js';
import { formatValue } from './profile-values.js';

const fieldsEvent = (state: RealmState): RealmEvent => ({
  event: { kind: 'custom_profile_fields', fields: formatFields(state) },
  users: activeUserIds(state),
});

function summaryLimitReached(state: RealmState, exceptId?: number): boolean {
  const shown = state.people.profileFields.filter((f) => f.displayInProfileSummary && f.id !== exceptId);
  return shown.length >= MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS;
}

const summaryLimitError = () =>
  errors.badRequest(`Only ${MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS} custom profile fields can be displayed in the profile summary.`);
const labelExists = () => errors.badRequest('A field with that label already exists.');

function sortFields(fields: ProfileField[]): ProfileField[] {
  return fields.sort((a, b) => a.order - b.order || a.id - b.id);
}

export interface CreateFieldInput {
  actorId: number;
  name: string;
  hint: string;
  type: number;
  data: Record<string, unknown>;
  displayInProfileSummary: boolean;
  required: boolean;
  editableByUser: boolean;
}

const createField: CommandDef<CreateFieldInput, NewProfileField, ProfileField> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    if (input.displayInProfileSummary && summaryLimitReached(state)) throw summaryLimitError();
    const name = input.name.trim();
    checkDefinition({ ...input, name });
    const common = {
      realmId: state.realm.id,
      type: input.type,
      displayInProfileSummary: input.displayInProfileSummary,
      required: input.required,
      editableByUser: input.editableByUser,
    };
    let plan: NewProfileField;
    if (isDefaultExternal(input.type, input.data)) {
      // Name and hint come from the default account; only the subtype is stored.
      const account = DEFAULT_EXTERNAL_ACCOUNTS[input.data.subtype as string]!;
      plan = { ...common, name: account.name, hint: account.hint, fieldData: JSON.stringify({ subtype: input.data.subtype }) };
    } else {
      const keepsData = input.type === FIELD_TYPE.SELECT || input.type === FIELD_TYPE.EXTERNAL_ACCOUNT;
      plan = { ...common, name, hint: input.hint, fieldData: keepsData ? JSON.stringify(input.data) : '' };
    }
    if (state.people.profileFields.some((f) => f.name === plan.name)) throw labelExists();
    return plan;
  },
  write: (t, plan) => t.profileFields.insert(plan),
  apply(state, f) {
    state.people.profileFields = sortFields([...state.people.profileFields, f]);
  },
  events: (state) => [fieldsEvent(state)],
};

export interface UpdateFieldInput {
  actorId: number;
  id: number;
  name?: string;
  hint?: string;
  data?: Record<string, unknown>;
  displayInProfileSummary?: boolean;
  required?: boolean;
  editableByUser?: boolean;
}

type UpdateFieldPlan = { id: number; changes: ProfileFieldChanges; removedChoices: string[] };
type UpdateFieldResult = { field: ProfileField; removedChoices: string[] };

const updateField: CommandDef<UpdateFieldInput, UpdateFieldPlan, UpdateFieldResult> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const field = fieldById(state, input.id);
    if (input.displayInProfileSummary && summaryLimitReached(state, field.id)) throw summaryLimitError();
    const name = input.name?.trim();
    const current = parseFieldData(field);
    if (isDefaultExternal(field.type, current)) {
      // Of a default external account only display_in_profile_summary (and required) may change.
      const changed =
        (name !== undefined && name !== field.name) ||
        (input.hint !== undefined && input.hint !== field.hint) ||
        (input.data !== undefined && JSON.stringify(input.data) !== JSON.stringify(current));
      if (changed) throw errors.badRequest('Default custom field cannot be updated.');
    }
    checkDefinition({
      name: name ?? field.name,
      hint: input.hint ?? field.hint,
      type: field.type,
      data: input.data ?? current,
      displayInProfileSummary: input.displayInProfileSummary ?? field.displayInProfileSummary,
    });
    if (name !== undefined && name !== field.name && state.people.profileFields.some((f) => f.name === name)) throw labelExists();
    const changes: ProfileFieldChanges = {
      name,
      hint: input.hint,
      displayInProfileSummary: input.displayInProfileSummary,
      required: input.required,
      editableByUser: input.editableByUser,
    };
    let removedChoices: string[] = [];
    if (field.type === FIELD_TYPE.SELECT || field.type === FIELD_TYPE.EXTERNAL_ACCOUNT) {
      if (input.data !== undefined) {
        changes.fieldData = JSON.stringify(input.data);
        if (field.type === FIELD_TYPE.SELECT) removedChoices = Object.keys(current).filter((k) => !Object.hasOwn(input.data!, k));
      } else if (field.fieldData === '') changes.fieldData = '{}';
    }
    return { id: field.id, changes, removedChoices };
  },
  async write(t, plan) {
    // Users who chose a removed option lose their value (as in the reference, without an event).
    await t.profileFields.deleteChoices(plan.id, plan.removedChoices);
    return { field: await t.profileFields.update(plan.id, plan.changes), removedChoices: plan.removedChoices };
  },
  apply(state, r) {
    state.people.profileFields = sortFields(state.people.profileFields.map((f) => (f.id === r.field.id ? r.field : f)));
    if (r.removedChoices.length === 0) return;
    const key = String(r.field.id);
    for (const u of [...state.usersById.values()]) {
      const v = u.profileData?.[key];
      if (v && r.removedChoices.includes(v.value)) state.putUser({ ...u, profileData: without(u.profileData!, key) });
    }
  },
  events: (state) => [fieldsEvent(state)],
};

function without<T>(record: Readonly<Record<string, T>>, key: string): Record<string, T> {
  const { [key]: _gone, ...rest } = record;
  return rest;
}

type FieldRef = { actorId: number; id: number };

const deleteField: CommandDef<FieldRef, number, number> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    return fieldById(state, input.id).id;
  },
  async write(t, id) {
    await t.profileFields.delete(id);
    return id;
  },
  apply(state, id) {
    state.people.profileFields = state.people.profileFields.filter((f) => f.id !== id);
    const key = String(id);
    for (const u of [...state.usersById.values()]) {
      if (u.profileData?.[key]) state.putUser({ ...u, profileData: without(u.profileData, key) });
    }
  },
  events: (state) => [fieldsEvent(state)],
};

/** Field ID → its new order: its (last) index in the request, as the reference stores it; IDs of no field are ignored. */
type Orders = Map<number, number>;

const reorderFields: CommandDef<{ actorId: number; order: number[] }, Orders, Orders, void> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const position = new Map(input.order.map((id, i) => [id, i]));
    if (!state.people.profileFields.every((f) => position.has(f.id))) throw errors.badRequest('Invalid order mapping.');
    return new Map(state.people.profileFields.map((f) => [f.id, position.get(f.id)!]));
  },
  async write(t, orders) {
    await t.profileFields.reorder(orders);
    return orders;
  },
  apply(state, orders) {
    state.people.profileFields = sortFields(state.people.profileFields.map((f) => ({ ...f, order: orders.get(f.id)! })));
  },
  events: (state) => [fieldsEvent(state)],
  // The orders are a map (not plain data), and the caller needs nothing of them.
  answer: () => undefined,
};

/** One field's new value for a user; null removes it. */
export interface ProfileChange {
  fieldId: number;
  value: ProfileValue | null;
}

/** Values given for this command: a null value removes one. */
export type ProfileEntry = { id: number; value: unknown };

/**
 * A prepare step for commands that set values: the text values of text fields rendered on the worker pool (as
 * channel descriptions are, the reference's rendering of these values) into `input.renderedDescriptions`.
 */
export function prerenderProfileValues<I extends { renderedDescriptions?: RenderedDescriptions }>(
  state: RealmState,
  input: I,
  entries: ProfileEntry[] | undefined,
  realmUrl: string,
): I | Promise<I> {
  const texts = (entries ?? []).map((e) => {
    const field = state.people.profileFields.find((f) => f.id === e.id);
    // Only values the check will accept: text of a text field within its length.
    return field && isRenderable(field.type) && typeof e.value === 'string' && e.value.length <= MAX_TEXT_VALUE_LENGTH ? e.value : undefined;
  });
  return prerenderDescriptions(state, input, texts, realmUrl);
}

/**
 * Checks values for `target` set by `acting` (the user or an administrator): each field must exist and, for
 * non-administrators, be editable by users; each value is checked by its field's type. A null value removes the
 * value; unchanged values are left out.
 */
export function planProfileChanges(
  state: RealmState,
  acting: User,
  target: User,
  entries: ProfileEntry[],
  rendered: RenderedDescriptions | undefined,
): ProfileChange[] {
  const out: ProfileChange[] = [];
  for (const e of entries) {
    const field = fieldById(state, e.id);
    if (!field.editableByUser && !isAdmin(acting)) {
      throw errors.badRequest('You are not allowed to change this field. Contact an administrator to update it.');
    }
    const current = target.profileData?.[String(field.id)];
    if (e.value === null) {
      if (current) out.push({ fieldId: field.id, value: null });
      continue;
    }
    const value = checkValue(state, field, e.value);
    if (current?.value === value) continue;
    const renderedValue = isRenderable(field.type) ? renderDescription(value, rendered) : null;
    out.push({ fieldId: field.id, value: { value, renderedValue } });
  }
  return out;
}

export async function writeProfileChanges(t: Tx, userId: number, changes: ProfileChange[]): Promise<void> {
  for (const c of changes) {
    if (c.value) await t.profileFields.setValue(userId, c.fieldId, c.value);
    else await t.profileFields.deleteValue(userId, c.fieldId);
  }
}

export function applyProfileChanges(state: RealmState, userId: number, changes: ProfileChange[]): void {
  if (changes.length === 0) return;
  const u = state.usersById.get(userId)!;
  const data: Record<string, { value: string; rendered_value?: string }> = { ...u.profileData };
  for (const c of changes) {
    if (c.value) data[String(c.fieldId)] = formatValue(c.value);
    else delete data[String(c.fieldId)];
  }
  state.putUser({ ...u, profileData: data });
}

/** One realm_user update per changed field, as the reference sends them. */
export function profileChangeEvents(state: RealmState, userId: number, changes: ProfileChange[]): RealmEvent[] {
  return changes.map((c) =>
    realmUserUpdate(state, {
      user_id: userId,
      custom_profile_field: c.value ? { id: c.fieldId, ...formatValue(c.value) } : { id: c.fieldId, value: null },
    }),
  );
}

export interface ProfileDataInput {
  userId: number;
  /** Values to set (PATCH /users/me/profile_data); null values are removed (DELETE). */
  entries: ProfileEntry[];
  realmUrl: string;
  /** Text values rendered on the worker pool (the command's prepare). */
  renderedDescriptions?: RenderedDescriptions;
}

type ProfileDataPlan = { userId: number; changes: ProfileChange[] };

/** The user's own values (human users only; checked by the route). */
const updateOwnProfileData: CommandDef<ProfileDataInput, ProfileDataPlan, ProfileDataPlan> = {
  batchable: true,
  prepare: (state, input) => prerenderProfileValues(state, input, input.entries, input.realmUrl),
  orderKey: (input) => byUser(input.userId),
  check(state, input) {
    const user = actor(state, input.userId);
    return { userId: user.id, changes: planProfileChanges(state, user, user, input.entries, input.renderedDescriptions) };
  },
  async write(t, plan) {
    await writeProfileChanges(t, plan.userId, plan.changes);
    return plan;
  },
  apply: (state, plan) => applyProfileChanges(state, plan.userId, plan.changes),
  events: (state, plan) => profileChangeEvents(state, plan.userId, plan.changes),
};

export const profileFieldCommands = {
  'profileFields.create': createField,
  'profileFields.update': updateField,
  'profileFields.delete': deleteField,
  'profileFields.reorder': reorderFields,
  'profileData.update': updateOwnProfileData,
};
