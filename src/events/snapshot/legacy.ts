// Snapshot sections in the forms older clients read (zulip-terminal among them): muted topics as
// [channel name, topic, time muted] triples, and personal settings at the top level for clients without the
// user_settings_object capability.
import { VISIBILITY_POLICY } from '../../model/channels.js';
import { realmUserSettingsDefaults, userSettingsObject } from '../../realm/people/user-settings.js';
import { topicForClient } from '../../realm/topics.js';
import type { Section, SnapshotContext } from './types.js';
import { snapshotUserTopics } from './channels.js';

const DISPLAY_SETTINGS = [
  'color_scheme', 'default_language', 'demote_inactive_streams', 'emojiset', 'enable_drafts_synchronization',
  'fluid_layout_width', 'web_home_view', 'high_contrast_mode', 'left_side_userlist', 'starred_message_counts',
  'timezone', 'translate_emoticons', 'twenty_four_hour_time', 'enter_sends', 'emojiset_choices',
];
const NOTIFICATION_SETTINGS = [
  'enable_desktop_notifications', 'enable_digest_emails', 'enable_login_emails', 'enable_marketing_emails',
  'email_notifications_batching_period_seconds', 'enable_offline_email_notifications', 'enable_offline_push_notifications',
  'enable_online_push_notifications', 'enable_sounds', 'enable_stream_desktop_notifications',
  'enable_stream_email_notifications', 'enable_stream_push_notifications', 'enable_stream_audible_notifications',
  'wildcard_mentions_notify', 'message_content_in_email_notifications', 'notification_sound',
  'pm_content_in_desktop_notifications', 'desktop_icon_count_display', 'realm_name_in_email_notifications_policy',
  'presence_enabled', 'available_notification_sounds',
];

/** The named settings at the top level, unless the client reads them from the user_settings object. */
function topLevelSettings({ state, user, registration }: SnapshotContext, names: string[]): Record<string, unknown> {
  if (registration.capabilities.user_settings_object) return {};
  const all = user ? userSettingsObject(user) : realmUserSettingsDefaults(state);
  return Object.fromEntries(names.map((n) => [n, all[n]]));
}

export const legacySections: Record<string, Section<'db'>> = {
  muted_topics: async (ctx) => {
    const { state, user, registration } = ctx;
    if (!user) return { muted_topics: [] };
    const topics = await snapshotUserTopics(ctx, user.id);
    return {
      muted_topics: topics
        .filter((t) => t.visibilityPolicy === VISIBILITY_POLICY.MUTED && state.channels.byId.has(t.channelId))
        .map((t) => [
          state.channels.byId.get(t.channelId)!.name,
          topicForClient(state, t.topic, registration.capabilities.empty_topic_name),
          t.lastUpdated,
        ]),
    };
  },
  update_display_settings: (ctx) => topLevelSettings(ctx, DISPLAY_SETTINGS),
  update_global_notifications: (ctx) => topLevelSettings(ctx, NOTIFICATION_SETTINGS),
};
