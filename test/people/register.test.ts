// The people domain through the real-time API: register's snapshot sections, and events delivered to queues
// (with the legacy forms for clients without the matching capabilities).
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let a: TestUser;
let b: TestUser;
test.before(async () => {
  s = await startTestServer();
  a = await addUser(s, { role: 400 });
  b = await addUser(s, { role: 400 });
});
test.after.always(() => s.close());

async function register(u: TestUser, form: Record<string, string>) {
  const r = await s.client.as(u).post('/register', { form });
  if (r.status !== 200) throw new Error(r.text);
  return r.json;
}

async function events(u: TestUser, queueId: string) {
  const r = await s.client.as(u).get('/events', { query: { queue_id: queueId, last_event_id: '-1', dont_block: 'true' } });
  return (r.json.events as any[]).filter((e) => e.type !== 'heartbeat');
}

test.serial('register returns presence, user_status, user_settings, realm_user_settings_defaults and realm_user_groups', async (t) => {
  await s.client.as(a).post('/users/me/status', { form: { status_text: 'busy' } });
  await s.client.as(a).post('/users/me/presence', { form: { status: 'active', ping_only: 'true' } });
  await s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { left_side_userlist: 'true' } });
  const snap = await register(b, {
    fetch_event_types: JSON.stringify(['presence', 'user_status', 'user_settings', 'realm_user_settings_defaults', 'realm_user_groups']),
    slim_presence: 'true',
  });
  t.deepEqual(snap.user_status[String(a.id)], { status_text: 'busy' });
  t.deepEqual(Object.keys(snap.presences[String(a.id)]).sort(), ['active_timestamp', 'idle_timestamp']);
  t.true(snap.presence_last_update_id >= 1);
  t.is(snap.user_settings.enter_sends, false);
  t.is(snap.user_settings.timezone, '');
  t.true(Array.isArray(snap.user_settings.emojiset_choices));
  t.is(snap.realm_user_settings_defaults.left_side_userlist, true);
  t.false('enable_login_emails' in snap.realm_user_settings_defaults);
  const members = snap.realm_user_groups.find((g: any) => g.name === 'role:members');
  t.is(typeof members.can_manage_group, 'number');
  const legacy = await register(b, { fetch_event_types: '["presence"]' });
  t.true(a.email in legacy.presences);
});

test.serial('events reach queues: user_status and user_group to everyone; presence in both forms by capability', async (t) => {
  const modern = await register(b, {
    event_types: JSON.stringify(['presence', 'user_status', 'user_group', 'user_settings', 'update_display_settings']),
    client_capabilities: JSON.stringify({ simplified_presence_events: true, user_settings_object: true }),
  });
  const old = await register(b, { event_types: JSON.stringify(['presence', 'user_settings', 'update_display_settings']) });
  const newcomer = await addUser(s, { role: 400 });
  await s.client.as(newcomer).post('/users/me/presence', { form: { status: 'active', ping_only: 'true' } });
  await s.client.as(newcomer).post('/users/me/status', { form: { emoji_name: 'car' } });
  const g = await s.client.as(newcomer).post('/user_groups/create', { form: { name: 'queue-team', description: '', members: `[${newcomer.id}]` } });
  t.is(g.status, 200);

  const got = await events(b, modern.queue_id);
  const presence = got.find((e) => e.type === 'presence');
  t.deepEqual(Object.keys(presence.presences), [String(newcomer.id)]);
  t.false('email' in presence);
  t.deepEqual(got.find((e) => e.type === 'user_status'), { type: 'user_status', id: got.find((e) => e.type === 'user_status').id, user_id: newcomer.id, emoji_name: 'car', emoji_code: '1f697', reaction_type: 'unicode_emoji' });
  const add = got.find((e) => e.type === 'user_group' && e.op === 'add');
  t.is(add.group.name, 'queue-team');

  const legacyGot = await events(b, old.queue_id);
  const legacyPresence = legacyGot.find((e) => e.type === 'presence');
  t.is(legacyPresence.user_id, newcomer.id);
  t.is(legacyPresence.email, newcomer.email);
  t.is(legacyPresence.presence.website.status, 'active');
  t.false('presences' in legacyPresence);

  // Settings: both queues get user_settings; only the one without user_settings_object also gets the legacy event.
  await s.client.as(b).patch('/settings', { form: { enter_sends: 'true' } });
  const modernSettings = (await events(b, modern.queue_id)).filter((e) => e.type === 'user_settings' || e.type === 'update_display_settings');
  t.deepEqual(modernSettings.map((e) => e.type), ['user_settings']);
  const oldSettings = (await events(b, old.queue_id)).filter((e) => e.type === 'user_settings' || e.type === 'update_display_settings');
  t.deepEqual(oldSettings.map((e) => e.type), ['user_settings', 'update_display_settings']);
  t.is(oldSettings[1].setting_name, 'enter_sends');
});
