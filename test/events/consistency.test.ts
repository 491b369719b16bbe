// The consistency check over real operations: for each, a register snapshot plus the operation's events equals a
// fresh register snapshot (test/helpers/verify-action.ts), and the operation produced the expected event types.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';
import { dm, makeChannel, post, setRealm, systemGroupId, uniqueName } from '../messages/helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

const types = (events: Record<string, any>[]) => events.map((e) => (e.op ? `${e.type}:${e.op}` : e.type));

// Serial: each operation's events reach every other test's queues in the realm.
test.serial('realm_user add: creating a user', async (t) => {
  const viewer = await addUser(s, { role: 200 });
  const events = await verifyAction(t, s, viewer, () =>
    s.client.as(s.owner).post('/users', { form: { email: 'new-person@test.example', password: 'pw-new-person-1', full_name: 'New Person' } }),
  { eventTypes: ['realm_user'] });
  t.true(types(events).includes('realm_user:add'));
});

test.serial('realm_user update: full name and role', async (t) => {
  const viewer = await addUser(s, { role: 200 });
  const target: TestUser = await addUser(s, { fullName: 'Before Rename' });
  const renamed = await verifyAction(t, s, viewer, () =>
    s.client.as(s.owner).patch(`/users/${target.id}`, { form: { full_name: 'After Rename' } }),
  { eventTypes: ['realm_user'] });
  t.deepEqual(types(renamed), ['realm_user:update']);
  const promoted = await verifyAction(t, s, viewer, () =>
    s.client.as(s.owner).patch(`/users/${target.id}`, { form: { role: '300' } }),
  { eventTypes: ['realm_user', 'realm_user_groups'] });
  t.true(types(promoted).includes('realm_user:update'));
});

test.serial('realm_user update: deactivation and reactivation', async (t) => {
  const viewer = await addUser(s, { role: 200 });
  const target = await addUser(s, { fullName: 'Leaving Soon' });
  const gone = await verifyAction(t, s, viewer, () => s.client.as(s.owner).delete(`/users/${target.id}`), { eventTypes: ['realm_user'] });
  t.true(gone.length > 0);
  await verifyAction(t, s, viewer, () => s.client.as(s.owner).post(`/users/${target.id}/reactivate`), { eventTypes: ['realm_user'] });
});

test.serial('user_group: create, rename, add and remove members', async (t) => {
  const viewer = await addUser(s, { role: 200 });
  const member = await addUser(s);
  const opts = { eventTypes: ['realm_user_groups'] };
  let groupId = 0;
  const created = await verifyAction(t, s, viewer, async () => {
    const r = await s.client.as(s.owner).post('/user_groups/create', {
      form: { name: 'consistency-team', description: 'A team', members: JSON.stringify([viewer.id]) },
    });
    groupId = r.json.group_id;
  }, opts);
  t.deepEqual(types(created), ['user_group:add'], 'delivered to a queue that asked for realm_user_groups');
  await verifyAction(t, s, viewer, () => s.client.as(s.owner).patch(`/user_groups/${groupId}`, { form: { name: 'renamed-team' } }), opts);
  const added = await verifyAction(t, s, viewer, () => s.client.as(s.owner).post(`/user_groups/${groupId}/members`, { form: { add: JSON.stringify([member.id]) } }), opts);
  t.deepEqual(types(added), ['user_group:add_members']);
  await verifyAction(t, s, viewer, () => s.client.as(s.owner).post(`/user_groups/${groupId}/members`, { form: { delete: JSON.stringify([member.id]) } }), opts);
});

test.serial('user_status: setting and clearing a status', async (t) => {
  const viewer = await addUser(s);
  const set = await verifyAction(t, s, viewer, () =>
    s.client.as(viewer).post('/users/me/status', { form: { status_text: 'On a trip', emoji_name: 'car' } }),
  { eventTypes: ['user_status'] });
  t.deepEqual(types(set), ['user_status']);
  await verifyAction(t, s, viewer, () => s.client.as(viewer).post('/users/me/status', { form: { status_text: '', emoji_name: '' } }), { eventTypes: ['user_status'] });
});

test.serial('user_settings: changing a personal setting', async (t) => {
  const viewer = await addUser(s);
  const events = await verifyAction(t, s, viewer, () => s.client.as(viewer).patch('/settings', { form: { enter_sends: 'true' } }), {
    eventTypes: ['user_settings'],
    register: { client_capabilities: JSON.stringify({ user_settings_object: true }) },
  });
  t.deepEqual(types(events), ['user_settings:update']);
});

test.serial('realm_user_settings_defaults: an administrator changes a default', async (t) => {
  const viewer = await addUser(s, { role: 200 });
  const events = await verifyAction(t, s, viewer, () =>
    s.client.as(s.owner).patch('/realm/user_settings_defaults', { form: { twenty_four_hour_time: 'true' } }),
  { eventTypes: ['realm_user_settings_defaults'] });
  t.true(events.length > 0);
});

test.serial('presence: a user coming online (modern presences)', async (t) => {
  const viewer = await addUser(s);
  const pinger = await addUser(s);
  const events = await verifyAction(t, s, viewer, () => s.client.as(pinger).post('/users/me/presence', { form: { status: 'active' } }), {
    eventTypes: ['presence'],
    register: { slim_presence: 'true', client_capabilities: JSON.stringify({ simplified_presence_events: true }) },
  });
  t.true(events.some((e) => e.type === 'presence' && String(pinger.id) in e.presences));
});

test.serial('typing: no snapshot change; channel typing reaches the other subscribers only, direct typing its recipients', async (t) => {
  const typist = await addUser(s);
  const reader = await addUser(s);
  const outsider = await addUser(s);
  const channel = await makeChannel(s, uniqueName('typing'), [typist.id, reader.id]);
  const opts = { eventTypes: ['typing'], register: { client_capabilities: JSON.stringify({ stream_typing_notifications: true }) } };
  const inChannel = () => s.client.as(typist).post('/typing', { form: { type: 'stream', op: 'start', stream_id: String(channel), topic: 'plans' } });
  const seen = await verifyAction(t, s, reader, inChannel, opts);
  t.deepEqual(seen.map((e) => [e.type, e.op, e.message_type, e.sender.user_id, e.stream_id, e.topic]), [['typing', 'start', 'stream', typist.id, channel, 'plans']]);
  t.deepEqual(await verifyAction(t, s, outsider, inChannel, opts), [], 'not a subscriber');
  t.deepEqual(await verifyAction(t, s, typist, inChannel, opts), [], 'not to the typist');
  const direct = () => s.client.as(typist).post('/typing', { form: { type: 'direct', op: 'stop', to: JSON.stringify([reader.id]) } });
  const got = await verifyAction(t, s, reader, direct, opts);
  t.deepEqual(got.map((e) => [e.op, e.message_type, e.sender.user_id, e.recipients.map((r: any) => r.user_id).sort()]), [
    ['stop', 'direct', typist.id, [typist.id, reader.id].sort((a, b) => a - b)],
  ]);
  t.deepEqual(await verifyAction(t, s, outsider, direct, opts), []);
});

const UNREAD_TYPES = ['message', 'update_message_flags', 'delete_message', 'recent_private_conversations', 'starred_messages', 'subscription', 'user_topic', 'realm_user'];

test.serial('unread_msgs and recent_private_conversations: direct, group and channel messages, read and unread again', async (t) => {
  const viewer = await addUser(s, { fullName: 'Unread Viewer' });
  const a = await addUser(s);
  const b = await addUser(s);
  const name = uniqueName('unread');
  await makeChannel(s, name, [viewer.id, a.id]);
  const opts = { eventTypes: UNREAD_TYPES };
  const one = await verifyAction(t, s, viewer, () => dm(s, a, [viewer.id], 'hi'), opts);
  t.deepEqual(types(one), ['message']);
  await verifyAction(t, s, viewer, () => dm(s, b, [viewer.id, a.id], 'hi all'), opts);
  await verifyAction(t, s, viewer, () => dm(s, viewer, [viewer.id], 'note to self'), opts);
  await verifyAction(t, s, viewer, () => dm(s, viewer, [a.id], 'sent by me'), opts);
  await verifyAction(t, s, viewer, () => post(s, a, name, 'lunch', `@**Unread Viewer** ready?`), opts);
  await verifyAction(t, s, viewer, () => post(s, a, name, 'Lunch', 'same topic, other case'), opts);
  // Mark everything read, then one of each unread again.
  const before = (await s.client.as(viewer).post('/register', { form: { event_types: JSON.stringify(UNREAD_TYPES) } })).json;
  const ids: number[] = [...before.unread_msgs.pms, ...before.unread_msgs.huddles, ...before.unread_msgs.streams].flatMap((x: any) => x.unread_message_ids);
  // Six: an API client's own messages are not read_by_sender (the reference's default for non-UI clients).
  t.is(ids.length, 6);
  t.is(before.unread_msgs.mentions.length, 1);
  const flags = (op: string, messages: number[], flag = 'read') => () =>
    s.client.as(viewer).post('/messages/flags', { form: { op, flag, messages: JSON.stringify(messages) } });
  const read = await verifyAction(t, s, viewer, flags('add', ids), opts);
  t.deepEqual(types(read), ['update_message_flags:add']);
  await verifyAction(t, s, viewer, flags('remove', ids), opts);
  await verifyAction(t, s, viewer, flags('add', ids.slice(0, 2)), opts);
  await verifyAction(t, s, viewer, flags('add', ids.slice(0, 2), 'starred'), opts);
  await verifyAction(t, s, viewer, flags('remove', ids.slice(0, 1), 'starred'), opts);
  // The viewer deletes their own direct message. Not the newest, and without recent_private_conversations: a
  // client cannot know the new max_message_id of either (the reference recomputes both on the server).
  const own = before.unread_msgs.pms.find((p: any) => p.other_user_id === a.id).unread_message_ids.at(-1);
  const withoutRecent = { eventTypes: UNREAD_TYPES.filter((x) => x !== 'recent_private_conversations') };
  const deleted = await verifyAction(t, s, viewer, () => s.client.as(viewer).delete(`/messages/${own}`), withoutRecent);
  t.deepEqual(types(deleted), ['delete_message']);
});

test.serial('realm_user add seen by a guest who cannot access all users: "Unknown user", or nothing with user_list_incomplete', async (t) => {
  const guest = await addUser(s, { role: 600 });
  const everyone = await systemGroupId(s, 'role:everyone');
  await setRealm(s, {}, { can_access_all_users_group: await systemGroupId(s, 'role:members') });
  try {
    let n = 0;
    const create = () =>
      s.client.as(s.owner).post('/users', { form: { email: `unseen-${++n}-${Date.now()}@test.example`, password: 'pw-unseen-1', full_name: 'Unseen' } });
    const placeholder = await verifyAction(t, s, guest, create, { eventTypes: ['realm_user'] });
    t.deepEqual(placeholder.map((e) => [e.op, e.person.full_name]), [['add', 'Unknown user']]);
    const none = await verifyAction(t, s, guest, create, {
      eventTypes: ['realm_user'],
      register: { client_capabilities: JSON.stringify({ user_list_incomplete: true }) },
    });
    t.deepEqual(none, []);
  } finally {
    await setRealm(s, {}, { can_access_all_users_group: everyone });
  }
});

test.serial('realm_user update reaches a restricted guest only for users they can access', async (t) => {
  const guest = await addUser(s, { role: 600 });
  const mate = await addUser(s, { fullName: 'Mate Before' });
  const stranger = await addUser(s, { fullName: 'Stranger Before' });
  const penPal = await addUser(s, { fullName: 'Pen Pal Before' });
  await makeChannel(s, uniqueName('guest-updates'), [guest.id, mate.id]);
  const everyone = await systemGroupId(s, 'role:everyone');
  await setRealm(s, {}, { can_access_all_users_group: await systemGroupId(s, 'role:members') });
  try {
    await dm(s, penPal, [guest.id, mate.id], 'a group conversation makes the guest and the pen pal known to each other');
    const rename = (u: TestUser, name: string) => () => s.client.as(s.owner).patch(`/users/${u.id}`, { form: { full_name: name } });
    for (const caps of [{}, { user_list_incomplete: true }]) {
      const opts = { eventTypes: ['realm_user'], register: { client_capabilities: JSON.stringify(caps) } };
      t.deepEqual(await verifyAction(t, s, guest, rename(stranger, `Stranger ${Object.keys(caps).length}`), opts), [], 'not about an inaccessible user');
      const seen = await verifyAction(t, s, guest, rename(mate, `Mate ${Object.keys(caps).length}`), opts);
      t.deepEqual(types(seen), ['realm_user:update']);
      const byDirect = await verifyAction(t, s, guest, rename(penPal, `Pen Pal ${Object.keys(caps).length}`), opts);
      t.deepEqual(types(byDirect), ['realm_user:update'], 'about a user known from a direct conversation');
    }
  } finally {
    await setRealm(s, {}, { can_access_all_users_group: everyone });
  }
});
