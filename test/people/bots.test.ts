// Bots over HTTP: create, list, configure, deactivate, reactivate and regenerate keys, with permissions, the
// request limits of bots, and realm_bot events checked against a fresh register.
import test from 'ava';
import { verifyAction } from '../helpers/verify-action.js';
import { addUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Credentials } from '../helpers/http.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s.close());

let n = 0;
async function createBot(as: Credentials, form: Record<string, string> = {}) {
  const short = `b${++n}`;
  const res = await s.client.as(as).post('/bots', { form: { full_name: `Bot ${n}`, short_name: short, ...form } });
  return { res, short, email: `${short}-bot@${new URL(`http://${s.config.rootDomain}`).hostname}` };
}
const creds = (email: string, apiKey: string): Credentials => ({ email, apiKey });

test.serial('POST /bots creates a generic bot owned by its creator; its key works; GET /bots lists it', async (t) => {
  const member = await addUser(s);
  const { res, email } = await createBot(member, { default_all_public_streams: 'true' });
  t.is(res.status, 200, JSON.stringify(res.json));
  t.is(typeof res.json.user_id, 'number');
  t.is(res.json.api_key.length, 32);
  t.is(res.json.default_sending_stream, null);
  t.is(res.json.default_all_public_streams, true);
  const me = await s.client.as(creds(email, res.json.api_key)).get('/users/me');
  t.is(me.status, 200);
  t.is(me.json.is_bot, true);
  t.is(me.json.bot_type, 1);
  t.is(me.json.bot_owner_id, member.id);
  const list = await s.client.as(member).get('/bots');
  t.deepEqual(list.json.bots.map((b: any) => b.username), [email]);
  t.is(list.json.bots[0].api_key, res.json.api_key);
  // Another member's list does not show it.
  const other = await addUser(s);
  t.deepEqual((await s.client.as(other).get('/bots')).json.bots, []);
});

test.serial('POST /bots refuses bad names, taken names, embedded and unknown types, bad URLs, unknown channels', async (t) => {
  const member = await addUser(s);
  const err = async (form: Record<string, string>) => {
    const r = await s.client.as(member).post('/bots', { form });
    t.is(r.status, 400);
    return r.json.msg as string;
  };
  t.is(await err({ full_name: 'X', short_name: '  ' }), 'Bad name or username');
  t.is(await err({ full_name: '', short_name: 'ok' }), 'Name too short!');
  const { short } = await createBot(member);
  t.is(await err({ full_name: 'Another', short_name: short }), 'Username already in use');
  t.is(await err({ full_name: `Bot ${n}`, short_name: 'fresh' }), 'Name is already in use!');
  t.is(await err({ full_name: 'E', short_name: 'emb', bot_type: '4' }), 'Embedded bots are not enabled.');
  t.is(await err({ full_name: 'E', short_name: 'emb', bot_type: '9' }), 'Invalid bot type');
  t.is(await err({ full_name: 'E', short_name: 'emb', bot_type: '3', interface_type: '7' }), 'Invalid interface type');
  t.is(await err({ full_name: 'E', short_name: 'emb', bot_type: '3', payload_url: 'ftp://x' }), 'payload_url is not a URL');
  t.is(await err({ full_name: 'E', short_name: 'emb', default_sending_stream: 'no such channel' }), "Invalid channel name 'no such channel'");
  t.is(await err({ short_name: 'emb' }), "Missing 'full_name' argument");
});

test.serial('bot creation follows can_create_bots_group and can_create_write_only_bots_group; guests and bots are refused', async (t) => {
  const guest = await addUser(s, { role: 600 });
  t.is((await createBot(guest)).res.json.msg, 'Not allowed for guest users');
  const member = await addUser(s);
  const { res, email } = await createBot(member);
  const bot = creds(email, res.json.api_key);
  t.is((await createBot(bot)).res.json.msg, 'This endpoint does not accept bot requests.');

  // Only administrators may create bots; members may still create incoming-webhook bots.
  const state = (await s.server.services.realms.forHost(undefined)).state;
  const admins = state.systemGroup('role:administrators').id;
  const realmId = state.realm.id;
  await s.server.services.db.none(
    `UPDATE realms SET group_settings = group_settings || jsonb_build_object('can_create_bots_group', $2::int) WHERE id = $1`,
    [realmId, admins],
  );
  await (await s.server.services.realms.get(realmId)).dispatch('realm.reload');
  const refused = await createBot(member);
  t.is(refused.res.status, 400);
  t.is(refused.res.json.msg, 'Insufficient permission');
  t.is((await createBot(member, { bot_type: '2' })).res.status, 200);
  t.is((await createBot(s.owner)).res.status, 200);
  await s.server.services.db.none(`UPDATE realms SET group_settings = group_settings - 'can_create_bots_group' || jsonb_build_object('can_create_bots_group', $2::int) WHERE id = $1`, [
    realmId,
    state.systemGroup('role:members').id,
  ]);
  await (await s.server.services.realms.get(realmId)).dispatch('realm.reload');
});

test.serial('an incoming-webhook bot may send messages and nothing else; bots may not change settings', async (t) => {
  const member = await addUser(s);
  const { res, email } = await createBot(member, { bot_type: '2' });
  const hook = creds(email, res.json.api_key);
  const sent = await s.client.as(hook).post('/messages', { form: { type: 'direct', to: JSON.stringify([member.id]), content: 'ping' } });
  t.is(sent.status, 200, JSON.stringify(sent.json));
  for (const r of [await s.client.as(hook).get('/users/me'), await s.client.as(hook).get('/messages', { query: { anchor: 'newest', num_before: '1', num_after: '0' } })]) {
    t.is(r.status, 400);
    t.is(r.json.msg, 'This API is not available to incoming webhook bots.');
  }
  const generic = await createBot(member);
  const g = creds(generic.email, generic.res.json.api_key);
  t.is((await s.client.as(g).get('/users/me')).status, 200);
  const settings = await s.client.as(g).patch('/settings', { form: { full_name: 'New' } });
  t.is(settings.json.msg, 'This endpoint does not accept bot requests.');
  t.is((await s.client.as(g).post('/users/me/api_key/regenerate')).json.msg, 'This endpoint does not accept bot requests.');
});

test.serial('PATCH /bots/{id} by the owner: name, defaults, payload URL; others are refused', async (t) => {
  const member = await addUser(s);
  const sub = await s.client.as(member).post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: 'general' }]) } });
  t.is(sub.status, 200);
  const { res } = await createBot(member, { bot_type: '3', payload_url: 'http://127.0.0.1:9/hook' });
  const id = res.json.user_id;
  const events = await verifyAction(t, s, member, async () => {
    const r = await s.client.as(member).patch(`/bots/${id}`, {
      form: { full_name: 'Renamed Bot', default_sending_stream: 'general', default_all_public_streams: 'true', service_payload_url: '"http://127.0.0.1:9/other"' },
    });
    t.is(r.status, 200, JSON.stringify(r.json));
    t.is(r.json.full_name, 'Renamed Bot');
    t.is(r.json.default_sending_stream, 'general');
    t.is(r.json.bot_owner, member.email);
  });
  const update = events.find((e) => e.type === 'realm_bot' && e.bot.services);
  t.is(update?.bot.services[0].base_url, 'http://127.0.0.1:9/other');
  t.truthy(events.find((e) => e.type === 'realm_user' && e.person.full_name === 'Renamed Bot'));

  const other = await addUser(s);
  t.is((await s.client.as(other).patch(`/bots/${id}`, { form: { full_name: 'Mine' } })).json.msg, 'Insufficient permission');
  t.is((await s.client.as(member).patch(`/bots/${member.id}`, { form: { full_name: 'Mine' } })).json.msg, 'No such bot');
  t.is((await s.client.as(member).patch(`/bots/${id}`, { form: { role: '200' } })).json.msg, 'Must be an organization administrator');
  t.is((await s.client.as(member).patch(`/bots/${id}`, { form: { bot_owner_id: '999999' } })).json.msg, 'Failed to change owner, no such user');
  t.is((await s.client.as(member).patch(`/bots/${id}`, { form: { bot_owner_id: String(id) } })).json.msg, "Failed to change owner, bots can't own other bots");
});

test.serial('changing the owner moves the bot between the owners lists (consistency check for both)', async (t) => {
  const first = await addUser(s);
  const second = await addUser(s);
  const { res } = await createBot(first);
  const id = res.json.user_id;
  const change = () => s.client.as(s.owner).patch(`/bots/${id}`, { form: { bot_owner_id: String(second.id) } });
  // Each viewer registers before the change; the first viewer's change is made by the second's run.
  const secondEvents = await verifyAction(t, s, second, () => verifyAction(t, s, first, change));
  t.truthy(secondEvents.find((e) => e.type === 'realm_bot' && e.op === 'add' && e.bot.user_id === id));
  t.deepEqual((await s.client.as(second).get('/bots')).json.bots.map((b: any) => b.user_id), [id]);
  t.deepEqual((await s.client.as(first).get('/bots')).json.bots, []);
});

test.serial('register realm_bots: own bots for members, every bot for administrators; create events are consistent', async (t) => {
  const member = await addUser(s);
  const events = await verifyAction(t, s, member, () => createBot(member, { bot_type: '3', payload_url: 'http://127.0.0.1:9/x' }));
  const add = events.find((e) => e.type === 'realm_bot' && e.op === 'add');
  t.is(add?.bot.services.length, 1);
  t.is(add?.bot.owner_id, member.id);
  t.is(add?.bot.bot_type, 3);
  await verifyAction(t, s, s.owner, () => createBot(member));
  const mine = (await s.client.as(member).post('/register', { form: { fetch_event_types: '["realm_bot"]' } })).json.realm_bots;
  t.true(mine.every((b: any) => b.owner_id === member.id));
  t.is(mine.length, 2);
  const all = (await s.client.as(s.owner).post('/register', { form: { fetch_event_types: '["realm_bot"]' } })).json.realm_bots;
  t.true(all.length > mine.length);
});

test.serial('DELETE /bots/{id} deactivates, POST /users/{id}/reactivate brings it back; events consistent', async (t) => {
  const member = await addUser(s);
  const { res, email } = await createBot(member);
  const id = res.json.user_id;
  // Group membership of a (re)activated account is outside this test (the reference's clients drop deactivated
  // members themselves); the bot and user records are checked.
  const eventTypes = ['realm_bot', 'realm_user'];
  await verifyAction(t, s, member, async () => t.is((await s.client.as(member).delete(`/bots/${id}`)).status, 200), { eventTypes });
  t.is((await s.client.as(creds(email, res.json.api_key)).get('/users/me')).status, 401);
  t.is((await s.client.as(member).delete(`/bots/${id}`)).json.msg, 'No such bot');
  t.is((await s.client.as(member).post(`/users/${id}/reactivate`)).json.msg, 'Must be an organization administrator');
  await verifyAction(t, s, member, async () => t.is((await s.client.as(s.owner).post(`/users/${id}/reactivate`)).status, 200), { eventTypes });
  const other = await addUser(s);
  t.is((await s.client.as(other).delete(`/bots/${id}`)).json.msg, 'Insufficient permission');
});

test.serial('API keys: a bot key regenerated by its owner, one\'s own key; the old keys stop working', async (t) => {
  const member = await addUser(s);
  const { res, email } = await createBot(member);
  const id = res.json.user_id;
  const events = await verifyAction(t, s, member, async () => {
    const r = await s.client.as(member).post(`/bots/${id}/api_key/regenerate`);
    t.is(r.status, 200);
    t.not(r.json.api_key, res.json.api_key);
    t.is((await s.client.as(creds(email, r.json.api_key)).get('/users/me')).status, 200);
  });
  t.truthy(events.find((e) => e.type === 'realm_bot' && e.op === 'update' && typeof e.bot.api_key === 'string'));
  t.is((await s.client.as(creds(email, res.json.api_key)).get('/users/me')).status, 401);
  const other = await addUser(s);
  t.is((await s.client.as(other).post(`/bots/${id}/api_key/regenerate`)).json.msg, 'Insufficient permission');

  const mine = await s.client.as(member).post('/users/me/api_key/regenerate');
  t.is(mine.status, 200);
  t.is((await s.client.as(member).get('/users/me')).status, 401);
  t.is((await s.client.as(creds(member.email, mine.json.api_key)).get('/users/me')).status, 200);
});
