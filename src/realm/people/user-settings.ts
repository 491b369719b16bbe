// The catalogue of personal settings: name, type, allowed values, default, and where each may be set.
// Used by PATCH /settings, PATCH /realm/user_settings_defaults, user creation and the register snapshot.
import { errors } from '../../errors.js';
import { bool, enumOf, int, intEnum, str, type ParamType } from '../../params.js';
import type { Realm, User } from '../../model/realm.js';

/** Which legacy event (for clients without the user_settings_object capability) a change also produces. */
export type LegacyGroup = 'display' | 'notification';

export interface SettingDef {
  type: ParamType<boolean | number | string>;
  default: boolean | number | string;
  /** Also a realm-level default (PATCH /realm/user_settings_defaults); false for personal-only settings. */
  realmDefault: boolean;
  legacy?: LegacyGroup;
}

export const NOTIFICATION_SOUNDS = ['chime', 'ding', 'zulip', 'none'] as const;
export const EMOJISETS = [
  { key: 'google', text: 'Google' },
  { key: 'twitter', text: 'Twitter' },
  { key: 'text', text: 'Plain text' },
] as const;
/** Email batching may be between a minute and a week. */
const BATCHING_MIN = 60;
const BATCHING_MAX = 7 * 24 * 3600;

function check<T>(base: ParamType<T>, ok: (v: T) => boolean, msg: (v: T, name: string) => string): ParamType<T> {
  const verify = (v: T, name: string): T => {
    if (!ok(v)) throw errors.invalidParam(msg(v, name));
    return v;
  };
  return {
    fromRaw: (raw, name) => verify(base.fromRaw(raw, name), name),
    fromJson: (v, name) => verify(base.fromJson(v, name), name),
  };
}

const B = (d: boolean, legacy?: LegacyGroup, realmDefault = true): SettingDef => ({ type: bool(), default: d, realmDefault, legacy });
const I = (values: readonly number[], d: number, legacy?: LegacyGroup): SettingDef => ({
  type: intEnum(values),
  default: d,
  realmDefault: true,
  legacy,
});
const S = (values: readonly string[], d: string, legacy?: LegacyGroup): SettingDef => ({
  type: enumOf(values),
  default: d,
  realmDefault: true,
  legacy,
});

export const USER_SETTINGS: Record<string, SettingDef> = {
  // Display settings.
  twenty_four_hour_time: B(false, 'display'),
  web_mark_read_on_scroll_policy: I([1, 2, 3], 1),
  web_channel_default_view: I([1, 2, 3, 4], 1),
  starred_message_counts: B(true, 'display'),
  receives_typing_notifications: B(true),
  web_suggest_update_timezone: B(true),
  fluid_layout_width: B(false, 'display'),
  high_contrast_mode: B(false, 'display'),
  web_font_size_px: { type: int({ min: 1, max: 1000 }), default: 16, realmDefault: true },
  web_line_height_percent: { type: int({ min: 1, max: 1000 }), default: 140, realmDefault: true },
  color_scheme: I([1, 2, 3], 1, 'display'),
  translate_emoticons: B(false, 'display'), // the reference's default (off)
  display_emoji_reaction_users: B(true),
  default_language: {
    type: check(str({ maxLength: 50 }), (v) => /^[a-z]{2,3}(?:[-_][A-Za-z0-9]{2,8})*$/.test(v), (v) => `Invalid default_language`),
    default: 'en',
    realmDefault: false,
    legacy: 'display',
  },
  web_home_view: S(['recent_topics', 'inbox', 'all_messages'], 'inbox', 'display'),
  web_escape_navigates_to_home_view: B(true, 'display'),
  left_side_userlist: B(false, 'display'),
  emojiset: S(EMOJISETS.map((e) => e.key), 'google', 'display'),
  demote_inactive_streams: I([1, 2, 3], 1, 'display'),
  user_list_style: I([1, 2, 3], 2),
  web_animate_image_previews: S(['always', 'on_hover', 'never'], 'on_hover'),
  web_stream_unreads_count_display_policy: I([1, 2, 3], 2),
  hide_ai_features: B(false),
  web_left_sidebar_show_channel_folders: B(true),
  web_left_sidebar_unreads_count_summary: B(true),
  // Notification settings.
  enable_stream_desktop_notifications: B(false, 'notification'),
  enable_stream_email_notifications: B(false, 'notification'),
  enable_stream_push_notifications: B(false, 'notification'),
  enable_stream_audible_notifications: B(false, 'notification'),
  notification_sound: {
    type: check(str(), (v) => (NOTIFICATION_SOUNDS as readonly string[]).includes(v), (v) => `Invalid notification sound '${v}'`),
    default: 'zulip',
    realmDefault: true,
    legacy: 'notification',
  },
  enable_desktop_notifications: B(true, 'notification'),
  enable_sounds: B(true, 'notification'),
  enable_followed_topic_desktop_notifications: B(true),
  enable_followed_topic_email_notifications: B(true),
  enable_followed_topic_push_notifications: B(true),
  enable_followed_topic_audible_notifications: B(true),
  email_notifications_batching_period_seconds: {
    type: check(int(), (v) => v >= BATCHING_MIN && v <= BATCHING_MAX, (v) => `Invalid email batching period: ${v} seconds`),
    default: 120,
    realmDefault: true,
    legacy: 'notification',
  },
  enable_offline_email_notifications: B(true, 'notification'),
  enable_offline_push_notifications: B(true, 'notification'),
  enable_online_push_notifications: B(true, 'notification'),
  enable_digest_emails: B(true, 'notification'),
  enable_marketing_emails: B(true, 'notification', false),
  enable_login_emails: B(true, 'notification', false),
  message_content_in_email_notifications: B(true, 'notification'),
  pm_content_in_desktop_notifications: B(true, 'notification'),
  wildcard_mentions_notify: B(true, 'notification'),
  enable_followed_topic_wildcard_mentions_notify: B(true),
  desktop_icon_count_display: I([1, 2, 3, 4], 1, 'notification'),
  realm_name_in_email_notifications_policy: I([1, 2, 3], 1, 'notification'),
  automatically_follow_topics_policy: I([1, 2, 3, 4], 3),
  automatically_unmute_topics_in_muted_streams_policy: I([1, 2, 3, 4], 3),
  automatically_follow_topics_where_mentioned: B(true),
  resolved_topic_notice_auto_read_policy: S(['always', 'except_followed', 'never'], 'except_followed'),
  presence_enabled: B(true, 'notification'),
  // Other personal settings.
  enter_sends: B(false, 'display'),
  enable_drafts_synchronization: B(true, 'display'),
  send_private_typing_notifications: B(true),
  send_stream_typing_notifications: B(true),
  send_read_receipts: B(true),
  allow_private_data_export: B(false, undefined, false),
  email_address_visibility: I([1, 2, 3, 4, 5], 1),
  web_navigate_to_sent_message: B(true),
};

export const REALM_DEFAULT_SETTING_NAMES = Object.keys(USER_SETTINGS).filter((n) => USER_SETTINGS[n]!.realmDefault);

/**
 * The settings a user created now starts with, as stored on the user: the realm's defaults at this moment,
 * so later changes to the realm's defaults never reach existing users.
 */
export function settingsForNewUser(state: { realm: Pick<Realm, 'userSettingsDefaults'> }): Record<string, unknown> {
  const stored = state.realm.userSettingsDefaults;
  const out: Record<string, unknown> = {};
  for (const name of REALM_DEFAULT_SETTING_NAMES) out[name] = Object.hasOwn(stored, name) ? stored[name] : USER_SETTINGS[name]!.default;
  return out;
}

/** The choices register offers with the settings. */
function settingChoices(): Record<string, unknown> {
  return {
    available_notification_sounds: NOTIFICATION_SOUNDS.filter((s) => s !== 'none'),
    emojiset_choices: EMOJISETS.map((e) => ({ ...e })),
  };
}

/** `realm_user_settings_defaults` for the register snapshot. */
export function realmUserSettingsDefaults(state: { realm: Pick<Realm, 'userSettingsDefaults'> }): Record<string, unknown> {
  return { ...settingsForNewUser(state), ...settingChoices() };
}

/** A user's effective value of a setting. */
export function userSetting(user: User, name: string): unknown {
  const stored = user.settings[name];
  return stored === undefined ? USER_SETTINGS[name]?.default : stored;
}

/** The `user_settings` object of the register snapshot. */
export function userSettingsObject(user: User): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name of Object.keys(USER_SETTINGS)) out[name] = userSetting(user, name);
  return { ...out, timezone: user.timezone, ...settingChoices() };
}
