// The organization settings PATCH /realm changes: each one's parameter type, who may change it, how a sent value
// becomes the stored one (the reference's special values), and the realm events a change produces.
import { errors } from '../../errors.js';
import type { RealmSettingsEvent } from '../../bus/events.js';
import { escapeHtml } from '../../markdown/escape.js';
import { bool, enumOf, int, str, type ParamType } from '../../params.js';
import { visibleChannel } from '../access/channels.js';
import { retentionParam } from '../channels/validate.js';
import { REALM_SETTING_DEFAULTS, type RealmSettingName } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';

const MAX_REALM_NAME_LENGTH = 40;
const MAX_REALM_DESCRIPTION_LENGTH = 1000;
const MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH = 8000;
const JITSI_SERVER_URL_MAX_LENGTH = 200;

/** The reference's OrgTypeEnum values. */
const ORG_TYPES = [0, 10, 20, 30, 35, 40, 50, 60, 70, 80, 90, 100, 1000] as const;
/** The video chat providers register's realm_available_video_chat_providers offers. */
const VIDEO_CHAT_PROVIDERS = [0, 1];
/** GIPHY ratings: disabled, Y, G, PG, PG-13, R. */
const GIPHY_RATINGS = [0, 1, 2, 3, 4, 5];
/** The language codes the reference's clients are translated into. */
const LANGUAGE_CODES = new Set(
  ('ar be bg bn ca cs cy da de el en en_GB eo es fa fi fr gl gu hi hu id it ja ko lt lv ml mn nl no pl pt pt_BR pt_PT ro ru ' +
    'si sk sr sv ta te tl tr uk uz vi zh-hans zh_TW').split(' '),
);

export interface PropertyDef {
  type: ParamType<any>;
  /** The reference lets only owners change it. */
  ownerOnly?: boolean;
  /** The stored value for a sent one; throws the reference's error for a bad value. */
  parse?(state: RealmState, value: any, actor: User): unknown;
}

const boolean: PropertyDef = { type: bool() };

/** A time limit: seconds (> 0) or "unlimited" (null). */
const timeLimit = (name: string): PropertyDef => ({
  type: retentionParam(),
  parse: (_s, v: number | string) => {
    if (v === 'unlimited') return null;
    if (typeof v === 'string' || v <= 0) throw errors.badParamValue(name, v);
    return v;
  },
});

const oneOfInts = (name: string, values: readonly number[]): PropertyDef => ({
  type: int(),
  parse: (_s, v: number) => {
    if (!values.includes(v)) throw errors.badRequest(`Invalid ${name} ${v}`);
    return v;
  },
});

/** A channel setting: a channel the administrator can see, or a negative ID for none (stored as -1). */
const channel = (opts: { mustBePrivate?: boolean } = {}): PropertyDef => ({
  type: int(),
  parse: (state, v: number, actor) => {
    if (v < 0) return -1;
    const ch = visibleChannel(state, actor, v, 'metadata');
    if (opts.mustBePrivate && !ch.inviteOnly) throw errors.badRequest('Moderation request channel must be private.');
    return v;
  },
});

/** A string the reference takes JSON-encoded (Json[str]); a bare one is accepted too. */
function jsonEncodedString(maxLength: number): ParamType<string> {
  const base = str({ maxLength });
  return {
    fromRaw: (raw, name) => {
      if (raw.startsWith('"')) {
        try {
          const v: unknown = JSON.parse(raw);
          if (typeof v === 'string') return base.fromJson(v, name);
        } catch {
          // Not JSON: the bare string itself.
        }
      }
      return base.fromRaw(raw, name);
    },
    fromJson: base.fromJson,
  };
}

function jitsiUrl(_s: RealmState, v: string): string | null {
  if (v === 'default') return null;
  let ok = v.length <= JITSI_SERVER_URL_MAX_LENGTH;
  try {
    ok &&= ['http:', 'https:'].includes(new URL(v).protocol);
  } catch {
    ok = false;
  }
  if (!ok) throw errors.badRequest('jitsi_server_url is not an allowed_type');
  return v;
}

/** Every setting PATCH /realm takes besides the permission groups (those are in group-properties.ts). */
export const REALM_PROPERTIES = {
  name: { type: str({ maxLength: MAX_REALM_NAME_LENGTH }) },
  description: { type: str({ maxLength: MAX_REALM_DESCRIPTION_LENGTH }) },
  allow_message_editing: boolean,
  avatar_changes_disabled: boolean,
  default_code_block_language: { type: str({ maxLength: 100 }) },
  default_language: {
    type: str({ maxLength: 20 }),
    parse: (_s, v: string) => {
      if (!LANGUAGE_CODES.has(v)) throw errors.badRequest(`Invalid language '${v}'`);
      return v;
    },
  },
  digest_emails_enabled: boolean,
  digest_weekday: oneOfInts('digest_weekday', [0, 1, 2, 3, 4, 5, 6]),
  disallow_disposable_email_addresses: { type: bool(), ownerOnly: true },
  email_changes_disabled: boolean,
  emails_restricted_to_domains: { type: bool(), ownerOnly: true },
  enable_guest_user_dm_warning: boolean,
  enable_guest_user_indicator: boolean,
  enable_read_receipts: boolean,
  enable_spectator_access: boolean,
  giphy_rating: oneOfInts('giphy_rating', GIPHY_RATINGS),
  inline_image_preview: boolean,
  inline_url_embed_preview: boolean,
  invite_required: { type: bool(), ownerOnly: true },
  jitsi_server_url: { type: jsonEncodedString(1000), parse: jitsiUrl },
  message_content_allowed_in_email_notifications: boolean,
  message_content_delete_limit_seconds: timeLimit('message_content_delete_limit_seconds'),
  message_content_edit_limit_seconds: timeLimit('message_content_edit_limit_seconds'),
  message_edit_history_visibility_policy: { type: enumOf(['all', 'moves_only', 'none'] as const) },
  message_retention_days: {
    type: retentionParam(),
    ownerOnly: true,
    parse: (_s, v: number | string) => {
      if (v === 'unlimited') return -1;
      if (typeof v === 'string' || v <= 0) throw errors.badParamValue('message_retention_days', v);
      return v;
    },
  },
  moderation_request_channel_id: channel({ mustBePrivate: true }),
  move_messages_between_streams_limit_seconds: timeLimit('move_messages_between_streams_limit_seconds'),
  move_messages_within_stream_limit_seconds: timeLimit('move_messages_within_stream_limit_seconds'),
  name_changes_disabled: boolean,
  new_stream_announcements_stream_id: channel(),
  org_type: oneOfInts('org_type', ORG_TYPES),
  require_unique_names: boolean,
  send_welcome_emails: boolean,
  signup_announcements_stream_id: channel(),
  topics_policy: { type: enumOf(['allow_empty_topic', 'disable_empty_topic'] as const) },
  video_chat_provider: oneOfInts('video_chat_provider', VIDEO_CHAT_PROVIDERS),
  waiting_period_threshold: { type: int({ min: 0, max: 2_147_483_647 }), ownerOnly: true },
  want_advertise_in_communities_directory: boolean,
  welcome_message_custom_text: { type: str({ maxLength: MAX_WELCOME_MESSAGE_CUSTOM_TEXT_LENGTH }) },
  zulip_update_announcements_stream_id: channel(),
} satisfies Partial<Record<'name' | 'description' | RealmSettingName, PropertyDef>> as Record<string, PropertyDef>;


/** The realm's current value of a property. */
export function currentProperty(state: RealmState, name: string): unknown {
  if (name === 'name') return state.realm.name;
  if (name === 'description') return state.realm.description;
  const stored = state.realm.settings[name];
  return stored === undefined ? REALM_SETTING_DEFAULTS[name as RealmSettingName] : stored;
}

/** realm_description as register and events give it (the contract's HTML description). */
export function renderedRealmDescription(description: string): string {
  return description === '' ? '' : `<p>${escapeHtml(description)}</p>`;
}

/** The events a changed property produces, in the reference's shapes (some settings use update_dict for history). */
export function propertyEvent(name: string, value: unknown): RealmSettingsEvent {
  if (name === 'allow_message_editing' || name === 'message_content_edit_limit_seconds') {
    return { kind: 'realm', op: 'update_dict', property: 'default', data: { [name]: value } };
  }
  if (name === 'topics_policy') {
    return { kind: 'realm', op: 'update_dict', property: 'default', data: { topics_policy: value, mandatory_topics: value === 'disable_empty_topic' } };
  }
  if (name === 'description') return { kind: 'realm', op: 'update', property: name, value: renderedRealmDescription(value as string) };
  return { kind: 'realm', op: 'update', property: name, value };
}
