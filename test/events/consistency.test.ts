// The consistency check over real operations: for each, a register snapshot plus the operation's events equals a
// fresh register snapshot (test/helpers/verify-action.ts), and the operation produced the expected event types.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';

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
