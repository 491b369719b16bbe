// Custom profile fields: list, create, change, delete and reorder the realm's fields (administrators), and set or
// remove the user's own values.
import { formatFields, profileValue } from '../../realm/people/profile-fields.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, dict, int, list, object, oneOf, optional, required, str, withDefault } from '../../params.js';
import { requestRealmUrl } from '../context.js';

/** field_data: options {"key": {"text", "order"}} or an external account {"subtype", "url_pattern"}. */
const fieldData = dict(oneOf(dict(str({ maxLength: 1000 })), str({ maxLength: 1000 })));
const text = (max: number) => str({ maxLength: max });

export const listProfileFields = endpoint({
  method: 'GET',
  path: '/realm/profile_fields',
  auth: 'user',
  params: {},
  handle: (ctx) => ({ custom_fields: formatFields(ctx.realm.state) }),
});

export const createProfileField = endpoint({
  method: 'POST',
  path: '/realm/profile_fields',
  auth: 'user',
  params: {
    name: withDefault(text(1000), ''),
    hint: withDefault(text(1000), ''),
    field_type: required(int()),
    field_data: withDefault(fieldData, {}),
    display_in_profile_summary: withDefault(bool(), false),
    required: withDefault(bool(), false),
    editable_by_user: withDefault(bool(), true),
  },
  async handle(ctx, p) {
    const f = await ctx.realm.dispatch('profileFields.create', {
      actorId: ctx.user.id,
      name: p.name,
      hint: p.hint,
      type: p.field_type,
      data: p.field_data,
      displayInProfileSummary: p.display_in_profile_summary,
      required: p.required,
      editableByUser: p.editable_by_user,
    });
    return { id: f.id };
  },
});

export const reorderProfileFields = endpoint({
  method: 'PATCH',
  path: '/realm/profile_fields',
  auth: 'user',
  params: { order: required(list(int(), { maxItems: 10_000 })) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('profileFields.reorder', { actorId: ctx.user.id, order: p.order });
    return {};
  },
});

export const updateProfileField = endpoint({
  method: 'PATCH',
  path: '/realm/profile_fields/{field_id}',
  auth: 'user',
  params: {
    field_id: required(int()),
    name: optional(text(1000)),
    hint: optional(text(1000)),
    field_data: optional(fieldData),
    display_in_profile_summary: optional(bool()),
    required: optional(bool()),
    editable_by_user: optional(bool()),
  },
  async handle(ctx, p) {
    await ctx.realm.dispatch('profileFields.update', {
      actorId: ctx.user.id,
      id: p.field_id,
      name: p.name,
      hint: p.hint,
      data: p.field_data,
      displayInProfileSummary: p.display_in_profile_summary,
      required: p.required,
      editableByUser: p.editable_by_user,
    });
    return {};
  },
});

export const deleteProfileField = endpoint({
  method: 'DELETE',
  path: '/realm/profile_fields/{field_id}',
  auth: 'user',
  params: { field_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('profileFields.delete', { actorId: ctx.user.id, id: p.field_id });
    return {};
  },
});

export const updateOwnProfileData = endpoint({
  method: 'PATCH',
  path: '/users/me/profile_data',
  auth: 'user',
  params: { data: required(list(object({ id: required(int()), value: required(profileValue) }), { maxItems: 1000 })) },
  async handle(ctx, p) {
    if (ctx.user.isBot) throw errors.notForBots();
    await ctx.realm.dispatch('profileData.update', { userId: ctx.user.id, entries: p.data, realmUrl: requestRealmUrl(ctx) });
    return {};
  },
});

export const removeOwnProfileData = endpoint({
  method: 'DELETE',
  path: '/users/me/profile_data',
  auth: 'user',
  params: { data: required(list(int(), { maxItems: 1000 })) },
  async handle(ctx, p) {
    if (ctx.user.isBot) throw errors.notForBots();
    const entries = p.data.map((id) => ({ id, value: null }));
    await ctx.realm.dispatch('profileData.update', { userId: ctx.user.id, entries, realmUrl: requestRealmUrl(ctx) });
    return {};
  },
});

export const profileFieldEndpoints = [
  listProfileFields,
  createProfileField,
  reorderProfileFields,
  updateProfileField,
  deleteProfileField,
  updateOwnProfileData,
  removeOwnProfileData,
];
