// E13 push device registration (unconfigured and configured servers) and POST /typing over HTTP.
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeChannel } from './channels-fixture.js';
import { ids, watchEvents } from './helpers.js';

let plain: TestServer;
let s: TestServer;
test.before(async () => {
  [plain, s] = await Promise.all([startTestServer(), startTestServer({ env: { PUSH_SERVICE_URL: 'https://push.invalid' } })]);
});
test.after.always(async () => {
  await Promise.all([plain?.close(), s?.close()]);
});

const device = (over: Record<string, string> = {}) => ({
  token_kind: 'fcm',
  push_account_id: '4242',
  push_public_key: Buffer.from('client-public-key-32-bytes-long!').toString('base64'),
  bouncer_public_key: 'bouncer-key-1',
  encrypted_push_registration: Buffer.from('{"ciphertext":true}').toString('base64'),
  ...over,
});

test.serial('E13 without a push service: PUSH_SERVICE_NOT_CONFIGURED', async (t) => {
  const r = await plain.client.as(plain.owner).post('/mobile_push/register', { form: device() });
  t.is(r.status, 400);
  t.is(r.json.code, 'PUSH_SERVICE_NOT_CONFIGURED');
  t.is(r.json.msg, 'Server is not configured to use push notification service.');
});

test.serial('E13 with a push service: validated, stored, replaced on re-registration, removed on deactivation', async (t) => {
  const u = await addUser(s, { role: 400 });
  const log = watchEvents(s);
  const r = await s.client.as(u).post('/mobile_push/register', { form: device() });
  t.is(r.status, 200, r.text);
  t.deepEqual(log.of('push_device')[0]!.event, { type: 'push_device', push_account_id: '4242', status: 'pending' });
  t.deepEqual(log.of('push_device')[0]!.users, [u.id]);
  log.stop();
  const db = s.server.services.db;
  let rows = await db.people.pushDevices(u.id);
  t.is(rows.length, 1);
  t.is(rows[0]!.tokenKind, 'fcm');
  t.is(rows[0]!.pushAccountId, 4242);
  // Re-registering the same push_account_id replaces; another id adds.
  t.is((await s.client.as(u).post('/mobile_push/register', { form: device({ token_kind: 'apns' }) })).status, 200);
  t.is((await s.client.as(u).post('/mobile_push/register', { form: device({ push_account_id: '7' }) })).status, 200);
  rows = await db.people.pushDevices(u.id);
  t.deepEqual(rows.map((d) => [d.pushAccountId, d.tokenKind]), [[4242, 'apns'], [7, 'fcm']]);

  const bad: [Record<string, string>, string][] = [
    [{ token_kind: 'gcm' }, 'Invalid token_kind'],
    [{ push_account_id: 'abc' }, 'push_account_id is not an integer'],
    [{ push_public_key: 'not base64!' }, 'Invalid push_public_key: not standard base64 (RFC 4648).'],
    [{ push_public_key: 'YWJj-_' }, 'Invalid push_public_key: not standard base64 (RFC 4648).'],
    [{ push_public_key: 'YWJjZA' }, 'Invalid push_public_key: not standard base64 (RFC 4648).'],
    [{ encrypted_push_registration: 'a=b' }, 'Invalid encrypted_push_registration: not standard base64 (RFC 4648).'],
    [{ bouncer_public_key: ' ' }, 'Invalid bouncer_public_key'],
  ];
  for (const [over, msg] of bad) {
    const res = await s.client.as(u).post('/mobile_push/register', { form: device(over) });
    t.is(res.json.msg, msg, JSON.stringify(over));
  }
  const { token_kind: _omit, ...missing } = device();
  t.is((await s.client.as(u).post('/mobile_push/register', { form: missing })).json.code, 'REQUEST_VARIABLE_MISSING');

  t.is((await s.client.as(s.owner).delete(`/users/${u.id}`)).status, 200);
  t.deepEqual(await db.people.pushDevices(u.id), []);
});

test.serial('typing in a direct message: event to recipients who receive typing notifications, sender included', async (t) => {
  const a = await addUser(s, { role: 400 });
  const b = await addUser(s, { role: 400 });
  const c = await addUser(s, { role: 600 });
  await s.client.as(c).patch('/settings', { form: { receives_typing_notifications: 'false' } });
  const log = watchEvents(s);
  const r = await s.client.as(a).post('/typing', { form: { op: 'start', to: JSON.stringify([b.id, c.id]) } });
  t.is(r.status, 200, r.text);
  const ev = log.of('typing')[0]!;
  t.deepEqual(ev.event, {
    type: 'typing',
    op: 'start',
    message_type: 'direct',
    sender: { user_id: a.id, email: a.email },
    recipients: [a, b, c].sort((x, y) => x.id - y.id).map((u) => ({ user_id: u.id, email: u.email })),
  });
  t.deepEqual(ids(ev.users), [a.id, b.id].sort((x, y) => x - y));
  await s.client.as(a).post('/typing', { form: { type: 'direct', op: 'stop', to: JSON.stringify([b.id]) } });
  t.is(log.of('typing')[1]!.event.op, 'stop');
  log.stop();
  // Typing publishes without touching the database: no transaction is needed (nothing is stored).
  t.is((await s.client.as(a).post('/typing', { form: { op: 'start' } })).json.msg, "Missing 'to' argument");
  t.is((await s.client.as(a).post('/typing', { form: { op: 'start', to: '[]' } })).json.msg, "Empty 'to' list");
  t.is((await s.client.as(a).post('/typing', { form: { op: 'start', to: '[99999]' } })).json.msg, 'Invalid user ID 99999');
  t.is((await s.client.as(a).post('/typing', { form: { op: 'typing', to: `[${b.id}]` } })).json.msg, 'Invalid op');
  t.is((await s.client.as(a).post('/typing', { form: { type: 'private', op: 'start', to: `[${b.id}]` } })).json.msg, 'Invalid type');
  // send_private_typing_notifications off: refused.
  await s.client.as(a).patch('/settings', { form: { send_private_typing_notifications: 'false' } });
  t.is((await s.client.as(a).post('/typing', { form: { op: 'start', to: `[${b.id}]` } })).json.msg, 'User has disabled typing notifications for direct messages');
});

test.serial('typing in a channel topic: to subscribers but the sender; only clients with stream_typing_notifications', async (t) => {
  const me = (await s.client.as(s.owner).get('/users/me')).json;
  const owner = { ...s.owner, id: me.user_id as number };
  const channelId = await makeChannel(s, owner, 'typing-room');
  const sub: TestUser = await addUser(s, { role: 400 });
  const r0 = await s.client.as(sub).post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: 'typing-room' }]) } });
  t.is(r0.status, 200, r0.text);
  const log = watchEvents(s);
  const r = await s.client.as(owner).post('/typing', { form: { type: 'channel', op: 'start', stream_id: String(channelId), topic: 'lunch' } });
  t.is(r.status, 200, r.text);
  const ev = log.of('typing')[0]!;
  t.deepEqual(ev.event, { type: 'typing', op: 'start', message_type: 'stream', sender: { user_id: owner.id, email: owner.email }, stream_id: channelId, topic: 'lunch' });
  t.deepEqual(ids(ev.users), [sub.id]);
  t.deepEqual(ev.legacy, { stream_typing_notifications: [] });
  await s.client.as(owner).post('/typing', { form: { type: 'stream', op: 'stop', stream_id: String(channelId), topic: '(no topic)' } });
  t.is(log.of('typing')[1]!.event.topic, '');
  log.stop();
  t.is((await s.client.as(owner).post('/typing', { form: { type: 'channel', op: 'start', topic: 'x' } })).json.msg, 'Missing channel ID');
  t.is((await s.client.as(owner).post('/typing', { form: { type: 'channel', op: 'start', stream_id: String(channelId) } })).json.msg, 'Missing topic');
  t.is((await s.client.as(owner).post('/typing', { form: { type: 'channel', op: 'start', stream_id: '99999', topic: 'x' } })).json.msg, 'Invalid channel ID');
  await s.client.as(owner).patch('/settings', { form: { send_stream_typing_notifications: 'false' } });
  t.is(
    (await s.client.as(owner).post('/typing', { form: { type: 'channel', op: 'start', stream_id: String(channelId), topic: 'x' } })).json.msg,
    'User has disabled typing notifications for channel messages',
  );
});
