// Realm settings: the catalogue of names and defaults, and how a realm's value is read (stored value or default).
import { DEFAULT_EMPTY_TOPIC_DISPLAY_NAME } from '../model/messages.js';
import type { RealmState } from './state.js';

/** Realm settings other than permission groups (those are in system-groups.ts), with the reference's defaults. */
export const REALM_SETTING_DEFAULTS = {
  allow_message_editing: true,
  message_edit_history_visibility_policy: 'all',
  message_content_edit_limit_seconds: 600 as number | null,
  message_content_delete_limit_seconds: 600 as number | null,
  move_messages_within_stream_limit_seconds: 604800 as number | null,
  move_messages_between_streams_limit_seconds: 604800 as number | null,
  /** -1 keeps messages forever. */
  message_retention_days: -1,
  topics_policy: 'allow_empty_topic',
  empty_topic_display_name: DEFAULT_EMPTY_TOPIC_DISPLAY_NAME,
  enable_spectator_access: false,
  enable_read_receipts: true,
  default_language: 'en',
  digest_emails_enabled: false,
  digest_weekday: 1,
  disallow_disposable_email_addresses: true,
  email_changes_disabled: false,
  name_changes_disabled: false,
  avatar_changes_disabled: false,
  emails_restricted_to_domains: false,
  invite_required: true,
  inline_image_preview: true,
  inline_url_embed_preview: false,
  require_unique_names: false,
  send_welcome_emails: true,
  message_content_allowed_in_email_notifications: true,
  want_advertise_in_communities_directory: false,
  video_chat_provider: 1,
  giphy_rating: 2,
  waiting_period_threshold: 0,
  default_code_block_language: '',
  org_type: 0,
  plan_type: 1,
  enable_guest_user_dm_warning: true,
  enable_guest_user_indicator: true,
  presence_disabled: false,
  new_stream_announcements_stream_id: -1,
  signup_announcements_stream_id: -1,
  zulip_update_announcements_stream_id: -1,
  moderation_request_channel_id: -1,
  welcome_message_custom_text: '',
  jitsi_server_url: null as string | null,
  upload_quota_mib: null as number | null,
};

export type RealmSettingName = keyof typeof REALM_SETTING_DEFAULTS;
export type RealmSettingValue<N extends RealmSettingName> = (typeof REALM_SETTING_DEFAULTS)[N];

/** The realm's value of a setting: what it stored, else the default. */
export function realmSetting<N extends RealmSettingName>(state: RealmState, name: N): RealmSettingValue<N> {
  const stored = state.realm.settings[name];
  return (stored === undefined ? REALM_SETTING_DEFAULTS[name] : stored) as RealmSettingValue<N>;
}

/** Every realm setting with its current value, for the register snapshot (`realm_<name>`). */
export function allRealmSettings(state: RealmState): Record<RealmSettingName, unknown> {
  const out = {} as Record<RealmSettingName, unknown>;
  for (const name of Object.keys(REALM_SETTING_DEFAULTS) as RealmSettingName[]) out[name] = realmSetting(state, name);
  return out;
}
