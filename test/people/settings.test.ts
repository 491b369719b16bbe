// Settings over HTTP: PATCH /settings and PATCH /realm/user_settings_defaults (every parameter and allowed value).
import test from 'ava';
import { USER_SETTINGS, realmUserSettingsDefaults, userSetting } from '../../src/realm/people/user-settings.js';
import { addUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { watchEvents } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s.close());

const realm = () => s.server.services.realms.forHost(undefined);
const userRecord = async (id: number) => (await realm()).state.usersById.get(id)!;

const SPEC_BOOLEANS = [
  'starred_message_counts', 'receives_typing_notifications', 'web_suggest_update_timezone', 'fluid_layout_width',
  'high_contrast_mode', 'enable_drafts_synchronization', 'translate_emoticons', 'display_emoji_reaction_users',
  'web_escape_navigates_to_home_view', 'left_side_userlist', 'hide_ai_features', 'enable_stream_desktop_notifications',
  'enable_stream_email_notifications', 'enable_stream_push_notifications', 'enable_stream_audible_notifications',
  'enable_desktop_notifications', 'enable_sounds', 'enable_followed_topic_desktop_notifications',
  'enable_followed_topic_email_notifications', 'enable_followed_topic_push_notifications',
  'enable_followed_topic_audible_notifications', 'enable_offline_email_notifications', 'enable_offline_push_notifications',
  'enable_online_push_notifications', 'enable_digest_emails', 'message_content_in_email_notifications',
  'pm_content_in_desktop_notifications', 'wildcard_mentions_notify', 'enable_followed_topic_wildcard_mentions_notify',
  'automatically_follow_topics_where_mentioned', 'presence_enabled', 'enter_sends', 'twenty_four_hour_time',
  'send_private_typing_notifications', 'send_stream_typing_notifications', 'send_read_receipts', 'web_navigate_to_sent_message',
];

const SPEC_VALUES: Record<string, { ok: (string | number)[]; bad: (string | number)[] }> = {
  web_channel_default_view: { ok: [1, 2, 3, 4], bad: [0, 5] },
  web_font_size_px: { ok: [14, 20], bad: ['big'] },
  web_line_height_percent: { ok: [120, 150], bad: ['tall'] },
  color_scheme: { ok: [1, 2, 3], bad: [4] },
  web_home_view: { ok: ['recent_topics', 'inbox', 'all_messages'], bad: ['home'] },
  emojiset: { ok: ['google', 'twitter', 'text'], bad: ['apple'] },
  demote_inactive_streams: { ok: [1, 2, 3], bad: [4] },
  user_list_style: { ok: [1, 2, 3], bad: [4] },
  web_animate_image_previews: { ok: ['always', 'on_hover', 'never'], bad: ['sometimes'] },
  web_stream_unreads_count_display_policy: { ok: [1, 2, 3], bad: [4] },
  notification_sound: { ok: ['ding', 'none', 'zulip'], bad: ['trumpet'] },
  email_notifications_batching_period_seconds: { ok: [60, 3600], bad: [10] },
  desktop_icon_count_display: { ok: [1, 2, 3, 4], bad: [5] },
  realm_name_in_email_notifications_policy: { ok: [1, 2, 3], bad: [4] },
  automatically_follow_topics_policy: { ok: [1, 2, 3, 4], bad: [5] },
  automatically_unmute_topics_in_muted_streams_policy: { ok: [1, 2, 3, 4], bad: [0] },
  resolved_topic_notice_auto_read_policy: { ok: ['always', 'except_followed', 'never'], bad: ['maybe'] },
  email_address_visibility: { ok: [1, 2, 3, 4, 5], bad: [6] },
};

const encode = (v: string | number | boolean) => (typeof v === 'string' ? v : JSON.stringify(v));

test.serial('E3: every boolean and every allowed value is accepted; other values are refused', async (t) => {
  for (const name of SPEC_BOOLEANS) {
    t.truthy(USER_SETTINGS[name], name);
    for (const v of [true, false]) {
      const r = await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { [name]: encode(v) } });
      t.is(r.status, 200, `${name}=${v}: ${r.text}`);
      t.is(r.json.ignored_parameters_unsupported, undefined);
    }
    const bad = await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { [name]: 'maybe' } });
    t.is(bad.status, 400, name);
  }
  for (const [name, { ok, bad }] of Object.entries(SPEC_VALUES)) {
    for (const v of ok) {
      const r = await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { [name]: encode(v) } });
      t.is(r.status, 200, `${name}=${v}: ${r.text}`);
      t.is(realmUserSettingsDefaults((await realm()).state)[name], v);
    }
    for (const v of bad) {
      const r = await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { [name]: encode(v) } });
      t.is(r.status, 400, `${name}=${v} accepted`);
      t.is(r.json.code, 'BAD_REQUEST');
    }
  }
  const bad = await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { color_scheme: '9' } });
  t.is(bad.json.msg, 'Invalid color_scheme');
  const sound = await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { notification_sound: 'trumpet' } });
  t.is(sound.json.msg, "Invalid notification sound 'trumpet'");
  const unknown = await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { enter_sends: 'true', full_name: 'x' } });
  t.deepEqual(unknown.json.ignored_parameters_unsupported, ['full_name']);
});

test.serial('E3 applies only to users created later, and publishes realm_user_settings_defaults events', async (t) => {
  const before = await addUser(s, { role: 400 });
  const log = watchEvents(s);
  const r = await s.client.as(s.owner).patch('/realm/user_settings_defaults', {
    form: { twenty_four_hour_time: 'true', web_home_view: 'all_messages', color_scheme: '2' },
  });
  t.is(r.status, 200);
  const evs = log.of('realm_user_settings_defaults').map((e) => e.event);
  t.deepEqual(evs.find((e) => e.property === 'web_home_view'), { type: 'realm_user_settings_defaults', op: 'update', property: 'web_home_view', value: 'all_messages' });
  log.stop();
  // A user created through the API after the change starts with the new defaults...
  const created = await s.client.as(s.owner).post('/users', { form: { email: 'later@test.example', password: 'pw-later', full_name: 'Later' } });
  const later = await userRecord(created.json.user_id);
  t.is(userSetting(later, 'twenty_four_hour_time'), true);
  t.is(userSetting(later, 'web_home_view'), 'all_messages');
  t.is(userSetting(later, 'color_scheme'), 2);
  // ...and a user from before keeps the old ones, even after the defaults change again.
  const old = await userRecord(before.id);
  t.is(userSetting(old, 'web_home_view'), 'inbox');
  await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { web_home_view: 'recent_topics' } });
  t.is(userSetting(await userRecord(created.json.user_id), 'web_home_view'), 'all_messages');
});

test.serial('E3 is for administrators only', async (t) => {
  const admin = await addUser(s, { role: 200 });
  t.is((await s.client.as(admin).patch('/realm/user_settings_defaults', { form: { enter_sends: 'true' } })).status, 200);
  for (const role of [300, 400, 600] as const) {
    const u = await addUser(s, { role });
    const r = await s.client.as(u).patch('/realm/user_settings_defaults', { form: { enter_sends: 'false' } });
    t.is(r.json.code, 'UNAUTHORIZED_PRINCIPAL', `role ${role}`);
    t.is(r.json.msg, 'Must be an organization administrator');
  }
});

test.serial('PATCH /settings: own settings with user_settings events (and legacy ones), name, timezone, password', async (t) => {
  const u = await addUser(s, { role: 600, password: 'old-password-1' });
  const log = watchEvents(s);
  const r = await s.client.as(u).patch('/settings', {
    form: { enter_sends: 'true', enable_sounds: 'false', web_font_size_px: '18', full_name: 'Guest Renamed', timezone: 'Europe/Paris' },
  });
  t.is(r.status, 200, r.text);
  const rec = await userRecord(u.id);
  t.is(userSetting(rec, 'enter_sends'), true);
  t.is(userSetting(rec, 'enable_sounds'), false);
  t.is(userSetting(rec, 'web_font_size_px'), 18);
  t.is(rec.fullName, 'Guest Renamed');
  t.is(rec.timezone, 'Europe/Paris');
  const settingsEvents = log.of('user_settings');
  const enter = settingsEvents.find((e) => e.event.property === 'enter_sends')!;
  t.deepEqual(enter.event, { type: 'user_settings', op: 'update', property: 'enter_sends', value: true });
  t.deepEqual(enter.users, [u.id]);
  t.deepEqual(enter.legacy?.user_settings_object?.[1], { type: 'update_display_settings', user: u.email, setting_name: 'enter_sends', setting: true });
  const sounds = settingsEvents.find((e) => e.event.property === 'enable_sounds')!;
  t.deepEqual(sounds.legacy?.user_settings_object?.[1], { type: 'update_global_notifications', user: u.email, notification_name: 'enable_sounds', setting: false });
  const names = log.of('realm_user', 'update').map((e) => e.event.person);
  t.deepEqual(names, [
    { user_id: u.id, full_name: 'Guest Renamed' },
    { user_id: u.id, email: u.email, timezone: 'Europe/Paris' },
  ]);
  log.stop();

  t.is((await s.client.as(u).patch('/settings', { form: { timezone: 'Mars/Olympus' } })).json.msg, 'Invalid timezone');
  t.is((await s.client.as(u).patch('/settings', { form: { full_name: '' } })).json.msg, 'Name too short!');
  t.is((await s.client.as(u).patch('/settings', { form: { emojiset: 'apple' } })).json.msg, 'Invalid emojiset');
  // Password change needs the old password.
  t.is((await s.client.as(u).patch('/settings', { form: { new_password: 'new-password-2' } })).json.code, 'REQUEST_VARIABLE_MISSING');
  t.is((await s.client.as(u).patch('/settings', { form: { old_password: 'wrong', new_password: 'new-password-2' } })).json.msg, 'Wrong password!');
  t.is((await s.client.as(u).patch('/settings', { form: { old_password: 'old-password-1', new_password: 'new-password-2' } })).status, 200);
  const login = await s.client.post('/fetch_api_key', { form: { username: u.email, password: 'new-password-2' } });
  t.is(login.status, 200);
  // Realm-default-only parameters are personal here too; unknown ones are listed as ignored.
  const ig = await s.client.as(u).patch('/settings', { form: { enable_login_emails: 'false', frobnicate: '1' } });
  t.deepEqual(ig.json.ignored_parameters_unsupported, ['frobnicate']);
  t.is(userSetting(await userRecord(u.id), 'enable_login_emails'), false);
});
