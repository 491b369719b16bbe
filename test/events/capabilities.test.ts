// Each client capability's effect: two queues of the same user, registered with and without it, receive the
// same operation differently (or their register snapshots differ), over HTTP against a real server.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { makeChannel, realmOf, setRealm, subscribe, systemGroupId, uniqueName } from '../messages/helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

type Creds = TestUser | TestServer['owner'];
type Ev = Record<string, any>;

async function register(who: Creds, capabilities: Record<string, boolean>, form: Record<string, string> = {}) {
  const r = await s.client.as(who).post('/register', { form: { client_capabilities: JSON.stringify(capabilities), ...form } });
  if (r.status !== 200) throw new Error(r.text);
  return r.json;
}

/** Two queues of `who` for these event types: one with the capability, one without. */
async function pair(who: Creds, capability: string, eventTypes: string[], form: Record<string, string> = {}) {
  const fetch = { event_types: JSON.stringify(eventTypes), ...form };
  return { on: await register(who, { [capability]: true }, fetch), off: await register(who, { [capability]: false }, fetch) };
}

async function drain(who: Creds, queueId: string): Promise<Ev[]> {
  const r = await s.client.as(who).get('/events', { query: { queue_id: queueId, last_event_id: '-1', dont_block: 'true' } });
  if (r.status !== 200) throw new Error(r.text);
  return (r.json.events as Ev[]).filter((e) => e.type !== 'heartbeat');
}

async function both(who: Creds, queues: { on: Ev; off: Ev }): Promise<{ on: Ev[]; off: Ev[] }> {
  return { on: await drain(who, queues.on.queue_id), off: await drain(who, queues.off.queue_id) };
}

const form = (o: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(o).map(([k, v]) => [k, typeof v === 'string' ? v : JSON.stringify(v)]));

test('notification_settings_null: subscription settings null, or the inherited personal setting', async (t) => {
  const u = await addUser(s);
  const q = await pair(u, 'notification_settings_null', ['subscription']);
  const name = uniqueName('notify');
  const r = await s.client.as(u).post('/users/me/subscriptions', { form: form({ subscriptions: [{ name }] }) });
  t.is(r.status, 200);
  const { on, off } = await both(u, q);
  const subOn = on.find((e) => e.op === 'add')!.subscriptions[0];
  const subOff = off.find((e) => e.op === 'add')!.subscriptions[0];
  t.is(subOn.desktop_notifications, null);
  t.is(subOn.wildcard_mentions_notify, null);
  t.is(typeof subOff.desktop_notifications, 'boolean', 'the user setting it inherits');
  t.is(typeof subOff.wildcard_mentions_notify, 'boolean');
  // And in the snapshot.
  const snapOn = (await register(u, { notification_settings_null: true }, { fetch_event_types: '["subscription"]' })).subscriptions;
  const snapOff = (await register(u, {}, { fetch_event_types: '["subscription"]' })).subscriptions;
  t.is(snapOn.find((x: Ev) => x.name === name).push_notifications, null);
  t.is(typeof snapOff.find((x: Ev) => x.name === name).push_notifications, 'boolean');
});

test('archived_channels: an archived channel is an update, or a deletion; the snapshot keeps it only with it', async (t) => {
  const u = await addUser(s);
  const name = uniqueName('archive');
  const id = await makeChannel(s, name, [u.id]);
  const q = await pair(u, 'archived_channels', ['stream', 'subscription']);
  t.is((await s.client.as(s.owner).delete(`/streams/${id}`)).status, 200);
  const { on, off } = await both(u, q);
  t.true(on.some((e) => e.type === 'stream' && e.op === 'update' && e.stream_id === id && e.property === 'is_archived' && e.value === true));
  t.false(on.some((e) => e.op === 'delete'));
  t.true(off.some((e) => e.type === 'stream' && e.op === 'delete' && e.streams.some((x: Ev) => x.stream_id === id)));
  t.false(off.some((e) => e.property === 'is_archived'));
  const snap = (caps: Record<string, boolean>) => register(u, caps, { fetch_event_types: '["subscription"]' });
  const withIt = await snap({ archived_channels: true });
  const without = await snap({});
  t.true(withIt.subscriptions.some((x: Ev) => x.stream_id === id && x.is_archived === true));
  t.false([...without.subscriptions, ...without.unsubscribed, ...without.never_subscribed].some((x: Ev) => x.stream_id === id));
});

test('empty_topic_name: a message to the empty topic keeps "" or shows the display name', async (t) => {
  const u = await addUser(s);
  const id = await makeChannel(s, uniqueName('empty'), [u.id]);
  const q = await pair(u, 'empty_topic_name', ['message']);
  const sent = await s.client.as(u).post('/messages', { form: { type: 'stream', to: String(id), topic: '', content: 'no topic' } });
  t.is(sent.status, 200, sent.text);
  const { on, off } = await both(u, q);
  t.is(on.find((e) => e.type === 'message')!.message.subject, '');
  t.is(off.find((e) => e.type === 'message')!.message.subject, 'general chat');
});

test('simplified_presence_events: the modern presences dictionary, or the legacy per-client form', async (t) => {
  const watcher = await addUser(s);
  const pinger = await addUser(s);
  const q = await pair(watcher, 'simplified_presence_events', ['presence']);
  t.is((await s.client.as(pinger).post('/users/me/presence', { form: { status: 'active' } })).status, 200);
  const { on, off } = await both(watcher, q);
  const modern = on.find((e) => e.presences && String(pinger.id) in e.presences);
  t.truthy(modern);
  t.deepEqual(Object.keys(modern!.presences[String(pinger.id)]).sort(), ['active_timestamp', 'idle_timestamp']);
  t.false(on.some((e) => e.user_id === pinger.id));
  const legacy = off.find((e) => e.user_id === pinger.id);
  t.truthy(legacy);
  t.is(legacy!.email, pinger.email);
  t.is(legacy!.presence.website.status, 'active');
  t.false(off.some((e) => e.presences));
});

test('bulk_message_deletion: one event with message_ids, or one per message with message_id', async (t) => {
  const u = await addUser(s, { role: 200 });
  const id = await makeChannel(s, uniqueName('bulk'), [u.id]);
  const sent = await s.client.as(u).post('/messages', { form: { type: 'stream', to: String(id), topic: 'gone', content: 'bye' } });
  const messageId = sent.json.id as number;
  const q = await pair(u, 'bulk_message_deletion', ['delete_message']);
  t.is((await s.client.as(u).delete(`/messages/${messageId}`)).status, 200);
  const { on, off } = await both(u, q);
  t.deepEqual(on.map((e) => [e.message_ids, e.message_id]), [[[messageId], undefined]]);
  t.deepEqual(off.map((e) => [e.message_ids, e.message_id]), [[undefined, messageId]]);
});

test('user_settings_object: only user_settings, or also the legacy display/notification events', async (t) => {
  const u = await addUser(s);
  const q = await pair(u, 'user_settings_object', ['user_settings', 'update_display_settings', 'update_global_notifications']);
  t.is((await s.client.as(u).patch('/settings', { form: { twenty_four_hour_time: 'true', enable_sounds: 'false' } })).status, 200);
  const { on, off } = await both(u, q);
  t.deepEqual(on.map((e) => e.type).sort(), ['user_settings', 'user_settings']);
  t.deepEqual(off.map((e) => e.type).sort(), ['update_display_settings', 'update_global_notifications', 'user_settings', 'user_settings']);
  t.is(off.find((e) => e.type === 'update_display_settings')!.setting_name, 'twenty_four_hour_time');
  t.is(off.find((e) => e.type === 'update_global_notifications')!.notification_name, 'enable_sounds');
});

test('linkifier_url_template: linkifiers in the snapshot and realm_linkifiers events only with it', async (t) => {
  const admin = await addUser(s, { role: 200 });
  const q = await pair(admin, 'linkifier_url_template', ['realm_linkifiers']);
  const pattern = `CAP-${Date.now() % 100000}-(?P<id>[0-9]+)`;
  const added = await s.client.as(admin).post('/realm/filters', { form: { pattern, url_template: 'https://tracker.example/{id}' } });
  t.is(added.status, 200, added.text);
  const { on, off } = await both(admin, q);
  t.true(on.some((e) => e.type === 'realm_linkifiers' && e.realm_linkifiers.some((l: Ev) => l.pattern === pattern)));
  t.deepEqual(off, []);
  const snapOn = await register(admin, { linkifier_url_template: true }, { fetch_event_types: '["realm_linkifiers"]' });
  const snapOff = await register(admin, {}, { fetch_event_types: '["realm_linkifiers"]' });
  t.true(snapOn.realm_linkifiers.some((l: Ev) => l.pattern === pattern && l.url_template === 'https://tracker.example/{id}'));
  t.deepEqual(snapOff.realm_linkifiers, []);
});

test('include_deactivated_groups: a deactivated group is an update, or a removal; the snapshot keeps it only with it', async (t) => {
  const u = await addUser(s, { role: 200 });
  const created = await s.client.as(u).post('/user_groups/create', {
    form: { name: uniqueName('cap-group'), description: 'x', members: JSON.stringify([u.id]) },
  });
  const groupId = created.json.group_id as number;
  const q = await pair(u, 'include_deactivated_groups', ['user_group']);
  t.is((await s.client.as(u).post(`/user_groups/${groupId}/deactivate`)).status, 200);
  const { on, off } = await both(u, q);
  t.deepEqual(on.filter((e) => e.group_id === groupId).map((e) => [e.op, e.data]), [['update', { deactivated: true }]]);
  t.deepEqual(off.filter((e) => e.group_id === groupId).map((e) => e.op), ['remove']);
  const snap = (caps: Record<string, boolean>) => register(u, caps, { fetch_event_types: '["realm_user_groups"]' });
  t.true((await snap({ include_deactivated_groups: true })).realm_user_groups.some((g: Ev) => g.id === groupId && g.deactivated));
  t.false((await snap({})).realm_user_groups.some((g: Ev) => g.id === groupId));
});

test('stream_typing_notifications: channel typing events only with it; direct typing either way', async (t) => {
  const typist = await addUser(s);
  const reader = await addUser(s);
  const id = await makeChannel(s, uniqueName('typing'), [typist.id, reader.id]);
  const q = await pair(reader, 'stream_typing_notifications', ['typing']);
  const ok = await s.client.as(typist).post('/typing', { form: { type: 'stream', op: 'start', stream_id: String(id), topic: 'soon' } });
  t.is(ok.status, 200, ok.text);
  await s.client.as(typist).post('/typing', { form: { type: 'direct', op: 'start', to: JSON.stringify([reader.id]) } });
  const { on, off } = await both(reader, q);
  t.deepEqual(on.map((e) => e.message_type).sort(), ['direct', 'stream']);
  t.is(on.find((e) => e.message_type === 'stream')!.stream_id, id);
  t.deepEqual(off.map((e) => e.message_type), ['direct']);
});

test('user_avatar_url_field_optional: long-term idle users come without avatar_url only with it', async (t) => {
  const viewer = await addUser(s);
  const idle = await addUser(s, { fullName: 'Long Gone' });
  const recent = await addUser(s, { fullName: 'Just Joined' });
  // Joined 60 days ago and never seen since: long-term idle (more than 28 days).
  const realm = await realmOf(s);
  await s.server.services.db.none('UPDATE users SET date_joined = $2 WHERE id = $1', [idle.id, new Date(Date.now() - 60 * 86_400_000)]);
  await realm.dispatch('realm.reload');
  const snap = (caps: Record<string, boolean>) =>
    register(viewer, caps, { fetch_event_types: '["realm_user"]', client_gravatar: 'false' });
  const withIt = (await snap({ user_avatar_url_field_optional: true })).realm_users as Ev[];
  const without = (await snap({})).realm_users as Ev[];
  const find = (list: Ev[], id: number) => list.find((u) => u.user_id === id)!;
  t.false('avatar_url' in find(withIt, idle.id), 'omitted for the long-term idle user');
  t.regex(find(withIt, recent.id).avatar_url, /^https:\/\/secure\.gravatar\.com\//, 'kept for a user active lately');
  t.regex(find(without, idle.id).avatar_url, /^https:\/\/secure\.gravatar\.com\//, 'always present without the capability');
  t.is(find(withIt, idle.id).full_name, 'Long Gone');
});

test.serial('a register whose presence and realm_user sections both read presences asks for them once', async (t) => {
  const viewer = await addUser(s);
  const presence = s.server.services.presence;
  const all = presence.all;
  let calls = 0;
  presence.all = (realm) => (calls++, all.call(presence, realm));
  try {
    const snap = await register(viewer, { user_avatar_url_field_optional: true }, { fetch_event_types: '["presence","realm_user"]' });
    t.true(Array.isArray(snap.realm_users));
    t.is(typeof snap.presences, 'object');
    t.is(calls, 1);
  } finally {
    presence.all = all;
  }
});

test.serial('user_list_incomplete: a guest who cannot access all users gets only accessible users, or "Unknown user"s', async (t) => {
  const guest = await addUser(s, { role: 600, fullName: 'Restricted Guest' });
  const mate = await addUser(s, { fullName: 'Channel Mate' });
  const stranger = await addUser(s, { fullName: 'Total Stranger' });
  const name = uniqueName('guest-room');
  await makeChannel(s, name, [guest.id, mate.id]);
  const everyone = await systemGroupId(s, 'role:everyone');
  await setRealm(s, {}, { can_access_all_users_group: await systemGroupId(s, 'role:members') });
  try {
    const q = await pair(guest, 'user_list_incomplete', ['realm_user'], { fetch_event_types: '["realm_user"]' });
    const ids = (snap: Ev) => (snap.realm_users as Ev[]).map((u) => u.user_id);
    t.true(ids(q.on).includes(mate.id));
    t.true(ids(q.on).includes(guest.id));
    t.false(ids(q.on).includes(stranger.id), 'left out with the capability');
    const placeholder = (q.off.realm_users as Ev[]).find((u) => u.user_id === stranger.id);
    t.like(placeholder, { full_name: 'Unknown user', is_active: true, role: 400, delivery_email: null });
    t.not(placeholder!.email, stranger.email);
    t.is((q.off.realm_users as Ev[]).find((u) => u.user_id === mate.id)?.full_name, 'Channel Mate');
    // A member is not restricted: everyone, as usual.
    const member = await register(mate, { user_list_incomplete: true }, { fetch_event_types: '["realm_user"]' });
    t.true((member.realm_users as Ev[]).some((u) => u.user_id === stranger.id && u.full_name === 'Total Stranger'));

    // A new user the guest shares no channel with: nothing with the capability, a placeholder without.
    const created = await s.client.as(s.owner).post('/users', { form: { email: `hidden-${Date.now()}@test.example`, password: 'pw-hidden-1', full_name: 'Hidden Newcomer' } });
    t.is(created.status, 200, created.text);
    const newId = created.json.user_id as number;
    const { on, off } = await both(guest, q);
    t.false(on.some((e) => e.person?.user_id === newId));
    const add = off.find((e) => e.op === 'add' && e.person.user_id === newId);
    t.is(add?.person.full_name, 'Unknown user');
    // The mate (a member) sees the real record.
    const mateQueue = await register(mate, {}, { event_types: '["realm_user"]' });
    const another = await s.client.as(s.owner).post('/users', { form: { email: `seen-${Date.now()}@test.example`, password: 'pw-seen-1', full_name: 'Seen Newcomer' } });
    const mateEvents = await drain(mate, mateQueue.queue_id);
    t.is(mateEvents.find((e) => e.person?.user_id === another.json.user_id)?.person.full_name, 'Seen Newcomer');
    // A direct message makes the stranger accessible.
    t.is((await s.client.as(stranger).post('/messages', { form: { type: 'direct', to: JSON.stringify([guest.id]), content: 'hello' } })).status, 200);
    const after = await register(guest, { user_list_incomplete: true }, { fetch_event_types: '["realm_user"]' });
    t.is((after.realm_users as Ev[]).find((u) => u.user_id === stranger.id)?.full_name, 'Total Stranger');
  } finally {
    await setRealm(s, {}, { can_access_all_users_group: everyone });
  }
  t.pass();
});
