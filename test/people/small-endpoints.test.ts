// The smaller endpoints real clients call: code playgrounds, bot storage, legacy push tokens, a channel's email
// address, PATCH /settings/notifications and typing while editing a message, with their errors and events.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { expectError } from '../helpers/errors.js';
import { verifyAction } from '../helpers/verify-action.js';
import { dm, events, makeChannel, post, register, uniqueName } from '../messages/helpers.js';

let s: TestServer;
let admin: TestUser;
test.before(async () => {
  s = await startTestServer();
  admin = await addUser(s, { role: 200 });
});
test.after.always(() => s?.close());

const json = (x: unknown) => JSON.stringify(x);

test.serial('code playgrounds: administrators add and remove them; realm_playgrounds events keep register consistent', async (t) => {
  const member = await addUser(s);
  const form = { name: 'Python3 playground', pygments_language: 'Python3', url_template: 'https://python.example/?code={code}' };
  let id = 0;
  const added = await verifyAction(t, s, member, async () => {
    const r = await s.client.as(admin).post('/realm/playgrounds', { form });
    t.is(r.status, 200, r.text);
    id = r.json.id;
  });
  t.deepEqual(added.find((e) => e.type === 'realm_playgrounds')!.realm_playgrounds, [
    { id, name: 'Python3 playground', pygments_language: 'Python3', url_template: 'https://python.example/?code={code}' },
  ]);
  expectError(t, await s.client.as(admin).post('/realm/playgrounds', { form }), 'Realm playground with this Realm, Pygments language and Name already exists.');
  expectError(t, await s.client.as(member).post('/realm/playgrounds', { form: { ...form, name: 'x' } }), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  const invalid: [Record<string, string>, string][] = [
    [{ pygments_language: 'py<thon>' }, 'Invalid characters in pygments language'],
    [{ url_template: 'https://x.example/?q={other}' }, 'Missing the required variable "code" in the URL template'],
    [{ url_template: 'https://x.example/{code}/{other}' }, '"code" should be the only variable present in the URL template'],
    [{ url_template: 'https://x.example/{code' }, 'Invalid URL template.'],
    [{ name: '  ' }, 'This field cannot be blank.'],
  ];
  for (const [change, msg] of invalid) expectError(t, await s.client.as(admin).post('/realm/playgrounds', { form: { ...form, ...change } }), msg);
  expectError(t, await s.client.as(member).delete(`/realm/playgrounds/${id}`), 'Must be an organization administrator', 'UNAUTHORIZED_PRINCIPAL');
  const removed = await verifyAction(t, s, member, () => s.client.as(admin).delete(`/realm/playgrounds/${id}`));
  t.deepEqual(removed.find((e) => e.type === 'realm_playgrounds')!.realm_playgrounds, []);
  expectError(t, await s.client.as(admin).delete(`/realm/playgrounds/${id}`), 'Invalid playground');
  t.deepEqual((await register(s, member, { fetch_event_types: json(['realm_playgrounds']) })).realm_playgrounds, []);
});

test('bot storage: bots put, get and delete entries; humans are refused', async (t) => {
  const bot = await addUser(s, { isBot: true });
  const human = await addUser(s);
  for (const method of ['get', 'delete'] as const) expectError(t, await s.client.as(human)[method]('/bot_storage'), 'Must be a bot user');
  expectError(t, await s.client.as(human).request('PUT', '/bot_storage', { form: { storage: '{}' } }), 'Must be a bot user');

  const put = (storage: unknown) => s.client.as(bot).request('PUT', '/bot_storage', { form: { storage: json(storage) } });
  const get = (keys?: string[]) => s.client.as(bot).get('/bot_storage', keys ? { query: { keys: json(keys) } } : {});
  const initial = { 'key 1': 'value 1', 'key 2': 'value 2', 'key 3': 'value 3' };
  t.is((await put(initial)).status, 200);
  t.deepEqual((await get(['key 1', 'key 3'])).json.storage, { 'key 1': 'value 1', 'key 3': 'value 3' });
  t.deepEqual((await get()).json.storage, initial);
  t.is((await put({ 'key 1': 'new value', 'key 4': 'value 4' })).status, 200);
  t.deepEqual((await get()).json.storage, { ...initial, 'key 1': 'new value', 'key 4': 'value 4' });
  expectError(t, await get(['key 1', 'nonexistent key']), 'Key does not exist.');
  expectError(t, await put({ foo: [1, 2, 3] }), 'storage["foo"] is not a string');
  expectError(t, await s.client.as(bot).get('/bot_storage', { query: { keys: 'not json' } }), 'Argument "keys" is not valid JSON.');

  // Deleting a missing key deletes nothing.
  expectError(t, await s.client.as(bot).delete('/bot_storage', { form: { keys: json(['key 3', 'nonexistent key']) } }), 'Key does not exist.');
  t.is(Object.keys((await get()).json.storage).length, 4);
  t.is((await s.client.as(bot).delete('/bot_storage', { form: { keys: json(['key 1', 'key 2']) } })).status, 200);
  t.deepEqual((await get()).json.storage, { 'key 3': 'value 3', 'key 4': 'value 4' });
  t.is((await s.client.as(bot).delete('/bot_storage')).status, 200);
  t.deepEqual((await get()).json.storage, {});
});

test('bot storage: the reference\'s size limit counts keys and values', async (t) => {
  const bot = await addUser(s, { isBot: true });
  const big = 'x'.repeat(5_000_000);
  const put = (storage: unknown) => s.client.as(bot).request('PUT', '/bot_storage', { form: { storage: json(storage) } });
  t.is((await put({ a: big })).status, 200);
  expectError(t, await put({ b: big }), 'Request exceeds storage limit by 2 characters. The limit is 10000000 characters.');
  // Replacing an entry counts its new size only.
  t.is((await put({ a: big.slice(1) })).status, 200);
});

test('legacy push tokens: humans add and remove APNs and FCM tokens with the reference\'s checks', async (t) => {
  const user = await addUser(s);
  const bot = await addUser(s, { isBot: true });
  const apns = '/users/me/apns_device_token';
  const gcm = '/users/me/android_gcm_reg_id';
  const hex = 'c0ffee'.repeat(10) + 'beef';
  t.is((await s.client.as(user).post(apns, { form: { token: hex, appid: 'org.zulip.Zulip' } })).status, 200);
  t.is((await s.client.as(user).post(gcm, { form: { token: 'fcm-registration-id' } })).status, 200);
  const stored = await s.server.services.db.pushTokens.forUser(user.id);
  t.deepEqual(stored, [
    { kind: 'apns', token: hex, iosAppId: 'org.zulip.Zulip' },
    { kind: 'fcm', token: 'fcm-registration-id', iosAppId: null },
  ]);
  expectError(t, await s.client.as(user).post(apns, { form: { token: '', appid: 'org.zulip.Zulip' } }), 'Empty or invalid length token');
  expectError(t, await s.client.as(user).post(gcm, { form: { token: 'x'.repeat(4097) } }), 'Empty or invalid length token');
  expectError(t, await s.client.as(user).post(apns, { form: { token: 'abcde', appid: 'org.zulip.Zulip' } }), 'Invalid APNS token');
  expectError(t, await s.client.as(user).post(apns, { form: { token: hex } }), "Missing 'appid' argument", 'REQUEST_VARIABLE_MISSING');
  expectError(t, await s.client.as(bot).post(gcm, { form: { token: 'x' } }), 'This endpoint does not accept bot requests.');
  t.is((await s.client.as(user).delete(apns, { form: { token: hex } })).status, 200);
  expectError(t, await s.client.as(user).delete(apns, { form: { token: hex } }), 'Token does not exist');
  t.is((await s.client.as(user).delete(gcm, { form: { token: 'fcm-registration-id' } })).status, 200);
  t.deepEqual(await s.server.services.db.pushTokens.forUser(user.id), []);
});

test('a channel\'s email address: the empty string without an email gateway, after the access checks', async (t) => {
  const member = await addUser(s);
  const outsider = await addUser(s);
  const guest = await addUser(s, { role: 600 });
  const open = await makeChannel(s, uniqueName('email'), [member.id]);
  const closed = await makeChannel(s, uniqueName('email private'), [member.id], { inviteOnly: true });
  const r = await s.client.as(member).get(`/streams/${open}/email_address`);
  t.is(r.status, 200, r.text);
  t.is(r.json.email, '');
  t.is((await s.client.as(outsider).get(`/streams/${open}/email_address`)).status, 200);
  expectError(t, await s.client.as(outsider).get(`/streams/${closed}/email_address`), 'Invalid channel ID');
  expectError(t, await s.client.as(guest).get(`/streams/${open}/email_address`), 'Invalid channel ID');
  expectError(t, await s.client.as(member).get(`/streams/${open}/email_address`, { query: { sender_id: String(outsider.id) } }), 'Invalid user ID');
  t.is((await s.client.as(member).get(`/streams/${open}/email_address`, { query: { sender_id: String(member.id) } })).status, 200);
});

test('PATCH /settings/notifications is PATCH /settings: same parameters, same events', async (t) => {
  const user = await addUser(s);
  const events = await verifyAction(t, s, user, async () => {
    const r = await s.client.as(user).patch('/settings/notifications', { form: { enable_sounds: 'false', enter_sends: 'true' } });
    t.is(r.status, 200, r.text);
  }, { eventTypes: ['user_settings'] });
  t.deepEqual(events.map((e) => [e.property, e.value]).sort(), [['enable_sounds', false], ['enter_sends', true]]);
  const bad = await s.client.as(user).patch('/settings/notifications', { form: { enable_sounds: 'maybe' } });
  t.is(bad.status, 400);
  t.is(bad.json.msg, (await s.client.as(user).patch('/settings', { form: { enable_sounds: 'maybe' } })).json.msg);
});

test('typing while editing: typing_edit_message to those who would see the edit', async (t) => {
  const author = await addUser(s);
  const partner = await addUser(s);
  const quiet = await addUser(s);
  const outsider = await addUser(s);
  await s.client.as(quiet).patch('/settings', { form: { receives_typing_notifications: 'false' } });
  const name = uniqueName('edit typing');
  const channel = await makeChannel(s, name, [author.id, partner.id, quiet.id]);
  const channelMessage = await post(s, author, name, 'plans', 'hello');
  const direct = await dm(s, author, [partner.id], 'hi');
  const q = (await register(s, partner, { event_types: json(['typing_edit_message']) })).queue_id;
  const quietQ = (await register(s, quiet, { event_types: json(['typing_edit_message']) })).queue_id;
  t.is((await s.client.as(author).post(`/messages/${channelMessage}/typing`, { form: { op: 'start' } })).status, 200);
  t.is((await s.client.as(author).post(`/messages/${direct}/typing`, { form: { op: 'stop' } })).status, 200);
  const got = (await events(s, partner, q)).map(({ id: _id, ...e }) => e);
  t.deepEqual(got, [
    { type: 'typing_edit_message', op: 'start', sender_id: author.id, message_id: channelMessage, recipient: { type: 'channel', channel_id: channel, topic: 'plans' } },
    { type: 'typing_edit_message', op: 'stop', sender_id: author.id, message_id: direct, recipient: { type: 'direct', user_ids: [author.id, partner.id].sort((a, b) => a - b) } },
  ]);
  t.deepEqual(await events(s, quiet, quietQ), []);
  expectError(t, await s.client.as(outsider).post(`/messages/${direct}/typing`, { form: { op: 'start' } }), 'Invalid message(s)');
  expectError(t, await s.client.as(author).post(`/messages/${direct}/typing`, { form: { op: 'begin' } }), "Invalid op");
});
