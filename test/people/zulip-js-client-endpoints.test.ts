// zulip-js, unmodified, against the endpoints real clients call: its users methods with custom profile fields,
// and its callEndpoint (how zulip-js apps reach endpoints it has no method for) for the rest. zulip-js sends
// POST bodies as multipart forms and every other method's parameters in the query string.
import test from 'ava';
import { createRequire } from 'node:module';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { makeChannel, post, uniqueName } from '../messages/helpers.js';

const require = createRequire(import.meta.url);
const zulipInit = require('zulip-js') as (config: { username: string; apiKey: string; realm: string }) => Promise<any>;

let s: TestServer;
let admin: TestUser;
test.before(async () => {
  s = await startTestServer();
  admin = await addUser(s, { role: 200 });
});
test.after.always(() => s?.close());

const client = (u: TestUser) => zulipInit({ username: u.email, apiKey: u.apiKey, realm: `http://127.0.0.1:${s.port}` });

test('custom profile fields: created and set through zulip-js, read back with users.retrieve and users.me.getProfile', async (t) => {
  const z = await client(admin);
  const user = await addUser(s);
  const zu = await client(user);
  const created = await z.callEndpoint('/realm/profile_fields', 'POST', { name: 'Team', field_type: 1, hint: 'Your team' });
  t.like(created, { result: 'success' });
  const listed = await zu.callEndpoint('/realm/profile_fields', 'GET');
  t.true(listed.custom_fields.some((f: any) => f.id === created.id && f.name === 'Team'));
  const set = await zu.callEndpoint('/users/me/profile_data', 'PATCH', { data: JSON.stringify([{ id: created.id, value: 'Core' }]) });
  t.like(set, { result: 'success' });
  const users = await z.users.retrieve({ include_custom_profile_fields: true });
  t.deepEqual(users.members.find((m: any) => m.user_id === user.id).profile_data, { [created.id]: { value: 'Core', rendered_value: '<p>Core</p>' } });
  t.false('profile_data' in (await z.users.retrieve({})).members.find((m: any) => m.user_id === user.id));
  t.deepEqual((await zu.users.me.getProfile()).profile_data, { [created.id]: { value: 'Core', rendered_value: '<p>Core</p>' } });
  const reordered = await z.callEndpoint('/realm/profile_fields', 'PATCH', { order: JSON.stringify(listed.custom_fields.map((f: any) => f.id).reverse()) });
  t.like(reordered, { result: 'success' });
  const refused = await zu.callEndpoint(`/realm/profile_fields/${created.id}`, 'DELETE');
  t.like(refused, { result: 'error', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.like(await z.callEndpoint(`/realm/profile_fields/${created.id}`, 'DELETE'), { result: 'success' });
});

test('muted users, read receipts, reminders, reports and playgrounds through zulip-js', async (t) => {
  const me = await addUser(s);
  const other = await addUser(s);
  const z = await client(me);
  const name = uniqueName('zulip-js');
  await makeChannel(s, name, [me.id, other.id]);
  const id = await post(s, other, name, 'topic', 'hello zulip-js');

  t.like(await z.callEndpoint(`/users/me/muted_users/${other.id}`, 'POST'), { result: 'success' });
  const state = await z.queues.register({ fetch_event_types: JSON.stringify(['muted_users']) });
  t.deepEqual(state.muted_users.map((m: any) => m.id), [other.id]);
  t.like(await z.callEndpoint(`/users/me/muted_users/${other.id}`, 'DELETE'), { result: 'success' });
  t.like(await z.callEndpoint(`/users/me/muted_users/${other.id}`, 'DELETE'), { result: 'error', msg: 'User is not muted' });

  const receipts = await z.callEndpoint(`/messages/${id}/read_receipts`, 'GET');
  t.deepEqual(receipts.user_ids, [me.id]);

  const reminder = await z.callEndpoint('/reminders', 'POST', { message_id: id, scheduled_delivery_timestamp: Math.floor(Date.now() / 1000) + 3600 });
  t.like(reminder, { result: 'success' });
  t.deepEqual((await z.callEndpoint('/reminders', 'GET')).reminders.map((r: any) => r.reminder_id), [reminder.reminder_id]);
  t.like(await z.callEndpoint(`/reminders/${reminder.reminder_id}`, 'DELETE'), { result: 'success' });

  t.like(await z.callEndpoint(`/messages/${id}/report`, 'POST', { report_type: 'spam' }), {
    result: 'error',
    msg: 'Moderation request channel must be specified to enable message reporting.',
  });
  t.like(await z.callEndpoint(`/messages/${id}/typing`, 'POST', { op: 'start' }), { result: 'success' });
  t.like(await z.callEndpoint('/settings/notifications', 'PATCH', { enable_sounds: false }), { result: 'success' });

  const za = await client(admin);
  const playground = await za.callEndpoint('/realm/playgrounds', 'POST', { name: 'Rust', pygments_language: 'Rust', url_template: 'https://play.rust-lang.org/?code={code}' });
  t.like(playground, { result: 'success' });
  t.like(await za.callEndpoint(`/realm/playgrounds/${playground.id}`, 'DELETE'), { result: 'success' });
});

test('bot storage, legacy push tokens and a channel email address through zulip-js', async (t) => {
  const bot = await addUser(s, { isBot: true });
  const zb = await client(bot);
  t.like(await zb.callEndpoint('/bot_storage', 'PUT', { storage: JSON.stringify({ score: '42' }) }), { result: 'success' });
  t.deepEqual((await zb.callEndpoint('/bot_storage', 'GET', { keys: JSON.stringify(['score']) })).storage, { score: '42' });
  t.like(await zb.callEndpoint('/bot_storage', 'DELETE', { keys: JSON.stringify(['score']) }), { result: 'success' });

  const user = await addUser(s);
  const zu = await client(user);
  t.like(await zu.callEndpoint('/users/me/android_gcm_reg_id', 'POST', { token: 'fcm-token-1' }), { result: 'success' });
  t.like(await zu.callEndpoint('/users/me/android_gcm_reg_id', 'DELETE', { token: 'fcm-token-1' }), { result: 'success' });
  t.like(await zu.callEndpoint('/users/me/apns_device_token', 'POST', { token: 'c0ffee00', appid: 'org.zulip.Zulip' }), { result: 'success' });
  const channel = await makeChannel(s, uniqueName('email'), [user.id]);
  t.deepEqual(await zu.callEndpoint(`/streams/${channel}/email_address`, 'GET'), { result: 'success', msg: '', email: '' });
});
