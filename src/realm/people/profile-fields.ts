// Custom profile fields: the field types, the default external accounts, the API form of fields and of users'
// values, and the validation of definitions and values (the reference's messages and limits).
import { errors } from '../../errors.js';
import { int, list, oneOf, str } from '../../params.js';
import type { ProfileField, ProfileValue } from '../../model/people.js';
import type { RealmState } from '../state.js';

export const FIELD_TYPE = {
  SHORT_TEXT: 1,
  LONG_TEXT: 2,
  SELECT: 3,
  DATE: 4,
  URL: 5,
  USER: 6,
  EXTERNAL_ACCOUNT: 7,
  PRONOUNS: 8,
} as const;

/** The reference's display names; register lists them sorted by name, as it does. */
const TYPE_NAMES: Record<keyof typeof FIELD_TYPE, string> = {
  SHORT_TEXT: 'Text (short)',
  LONG_TEXT: 'Text (long)',
  SELECT: 'List of options',
  DATE: 'Date',
  URL: 'Link',
  USER: 'Users',
  EXTERNAL_ACCOUNT: 'External account',
  PRONOUNS: 'Pronouns',
};

/** Register's custom_profile_field_types. */
export function fieldTypes(): Record<string, { id: number; name: string }> {
  const entries = (Object.keys(FIELD_TYPE) as (keyof typeof FIELD_TYPE)[]).sort((a, b) => TYPE_NAMES[a].localeCompare(TYPE_NAMES[b]));
  return Object.fromEntries(entries.map((k) => [k, { id: FIELD_TYPE[k], name: TYPE_NAMES[k] }]));
}

/** The reference's default external accounts (register's realm_default_external_accounts). */
export const DEFAULT_EXTERNAL_ACCOUNTS: Record<string, { text: string; url_pattern: string; name: string; hint: string }> = {
  twitter: { text: 'Twitter', url_pattern: 'https://twitter.com/%(username)s', name: 'Twitter username', hint: '' },
  github: { text: 'GitHub', url_pattern: 'https://github.com/%(username)s', name: 'GitHub username', hint: '' },
};

export const NAME_MAX_LENGTH = 40;
export const HINT_MAX_LENGTH = 80;
export const MAX_DISPLAY_IN_PROFILE_SUMMARY_FIELDS = 2;
const SHORT_STRING_MAX = 50;
const LONG_STRING_MAX = 500;
/** The longest text value a field accepts (long text). */
export const MAX_TEXT_VALUE_LENGTH = LONG_STRING_MAX;

/** A value as a request sends it: text, or user IDs (person picker); checkValue checks it against its field. */
export const profileValue = oneOf(str({ maxLength: 10_000 }), list(int(), { maxItems: 1000 }));
/** Options of a list-of-options field and their texts (bounds the stored JSON). */
export const MAX_SELECT_OPTIONS = 1000;

export function formatField(f: ProfileField): Record<string, unknown> {
  const out: Record<string, unknown> = {
    id: f.id,
    name: f.name,
    type: f.type,
    hint: f.hint,
    field_data: f.fieldData,
    order: f.order,
    required: f.required,
    editable_by_user: f.editableByUser,
  };
  if (f.displayInProfileSummary) out.display_in_profile_summary = true;
  return out;
}

export function formatFields(state: RealmState): Record<string, unknown>[] {
  return state.people.profileFields.map(formatField);
}

export function isRenderable(type: number): boolean {
  return type === FIELD_TYPE.SHORT_TEXT || type === FIELD_TYPE.LONG_TEXT;
}

export function isDefaultExternal(type: number, data: Record<string, unknown>): boolean {
  return type === FIELD_TYPE.EXTERNAL_ACCOUNT && data.subtype !== 'custom';
}

const notString = (name: string) => errors.badRequest(`${name} is not a string`);

function cappedString(name: string, value: unknown, max: number): string {
  if (typeof value !== 'string') throw notString(name);
  if ([...value].length > max) throw errors.badRequest(`${name} is too long (limit: ${max} characters)`);
  return value;
}

/** Django's URLValidator, near enough: http(s)/ftp(s), a host, no whitespace. */
function isUrl(s: string): boolean {
  if (/\s/.test(s) || s.length > 2048) return false;
  try {
    const u = new URL(s);
    return ['http:', 'https:', 'ftp:', 'ftps:'].includes(u.protocol) && u.hostname !== '';
  } catch {
    return false;
  }
}

function checkUrl(name: string, value: unknown): string {
  if (typeof value !== 'string') throw notString(name);
  if (!isUrl(value)) throw errors.badRequest(`${name} is not a URL`);
  return value;
}

function checkDate(name: string, value: unknown): string {
  if (typeof value !== 'string') throw notString(name);
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value);
  const d = m ? new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)) : null;
  if (!d || d.toISOString().slice(0, 10) !== value) throw errors.badRequest(`${name} is not a date`);
  return value;
}

function requiredString(name: string, value: unknown): string {
  if (typeof value !== 'string') throw notString(name);
  if (value.trim() === '') throw errors.badRequest(`${name} cannot be blank.`);
  return value;
}

/** field_data of a list of options: {"key": {"text": ..., "order": ...}}, at least one. */
function checkSelectData(data: Record<string, unknown>): void {
  const keys = Object.keys(data);
  if (keys.length < 1) throw errors.badRequest('Field must have at least one choice.');
  if (keys.length > MAX_SELECT_OPTIONS) throw errors.badRequest(`field_data has too many choices (limit: ${MAX_SELECT_OPTIONS})`);
  for (const k of keys) {
    const option = data[k];
    const name = `field_data["${k}"]`;
    if (typeof option !== 'object' || option === null || Array.isArray(option)) throw errors.badRequest(`${name} is not a dict`);
    for (const key of ['text', 'order']) {
      if (!(key in option)) throw errors.badRequest(`${key} key is missing from ${name}`);
      requiredString(`${name}["${key}"]`, (option as Record<string, unknown>)[key]);
    }
  }
}

/** field_data of an external account: a default subtype, or "custom" with a URL pattern. */
function checkExternalData(data: Record<string, unknown>): void {
  for (const k of Object.keys(data)) {
    if (k !== 'subtype' && k !== 'url_pattern') throw errors.badRequest(`Unexpected arguments: ${k}`);
  }
  if (!('subtype' in data)) throw errors.badRequest('subtype key is missing from field_data');
  const subtype = requiredString('field_data["subtype"]', data.subtype);
  if ('url_pattern' in data) {
    const pattern = data.url_pattern;
    if (typeof pattern !== 'string') throw notString('field_data["url_pattern"]');
    if (pattern.split('%(username)s').length !== 2) throw errors.badRequest("URL pattern must contain '%(username)s'.");
    checkUrl('field_data["url_pattern"]', pattern.replace('%(username)s', 'username'));
  }
  if (!Object.hasOwn(DEFAULT_EXTERNAL_ACCOUNTS, subtype)) {
    if (subtype !== 'custom') throw errors.badRequest('Invalid external account type');
    if (!('url_pattern' in data)) throw errors.badRequest('Custom external account must define URL pattern');
  }
}

export interface FieldDefinition {
  name: string;
  hint: string;
  type: number;
  data: Record<string, unknown>;
  displayInProfileSummary: boolean;
}

/** The reference's validate_custom_profile_field: data, then name and hint (not for default external accounts),
 *  then type, then whether the type may be shown in the profile summary. */
export function checkDefinition(d: FieldDefinition): void {
  if (d.type === FIELD_TYPE.SELECT) checkSelectData(d.data);
  else if (d.type === FIELD_TYPE.EXTERNAL_ACCOUNT) checkExternalData(d.data);
  if (!isDefaultExternal(d.type, d.data)) {
    if (d.name.trim() === '') throw errors.badRequest('Label cannot be blank.');
    cappedString('hint', d.hint, HINT_MAX_LENGTH);
    cappedString('name', d.name, NAME_MAX_LENGTH);
  }
  if (!Object.values(FIELD_TYPE).includes(d.type as never)) throw errors.badRequest('Invalid field type.');
  if (d.displayInProfileSummary && (d.type === FIELD_TYPE.LONG_TEXT || d.type === FIELD_TYPE.USER)) {
    throw errors.badRequest('Field type not supported for display in profile summary.');
  }
}

export function parseFieldData(f: ProfileField): Record<string, unknown> {
  return f.fieldData === '' ? {} : (JSON.parse(f.fieldData) as Record<string, unknown>);
}

/** A user's value for a field, checked by the field's type; the text stored (user lists as JSON). */
export function checkValue(state: RealmState, field: ProfileField, value: unknown): string {
  const name = field.name;
  switch (field.type) {
    case FIELD_TYPE.LONG_TEXT:
      return cappedString(name, value, LONG_STRING_MAX);
    case FIELD_TYPE.DATE:
      return checkDate(name, value);
    case FIELD_TYPE.URL:
      return checkUrl(name, value);
    case FIELD_TYPE.SELECT: {
      if (typeof value !== 'string') throw notString(name);
      if (!Object.hasOwn(parseFieldData(field), value)) throw errors.badRequest(`'${value}' is not a valid choice for '${name}'.`);
      return value;
    }
    case FIELD_TYPE.USER: {
      if (!Array.isArray(value)) throw errors.badRequest('User IDs is not a list');
      value.forEach((id, i) => {
        if (!Number.isSafeInteger(id)) throw errors.badRequest(`User IDs[${i}] is not an integer`);
      });
      for (const id of value as number[]) {
        const u = state.usersById.get(id);
        if (!u) throw errors.badRequest(`Invalid user ID: ${id}`);
        if (!u.isActive) throw errors.badRequest(`User with ID ${id} is deactivated`);
        if (u.isBot) throw errors.badRequest(`User with ID ${id} is a bot`);
      }
      return JSON.stringify(value);
    }
    default:
      // Short text, external account and pronouns.
      return cappedString(name, value, SHORT_STRING_MAX);
  }
}

export function fieldById(state: RealmState, id: number): ProfileField {
  const f = state.people.profileFields.find((x) => x.id === id);
  if (!f) throw errors.badRequest(`Field id ${id} not found.`);
  return f;
}
