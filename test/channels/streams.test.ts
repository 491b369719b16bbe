// GET /streams (every filter), GET /streams/{id}, GET /get_stream_id, GET /streams/{id}/members.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { createChannel, insertMessages, makeCast, setRealmSettings, sorted, uniqueName, type Cast } from './helpers.js';

let s: TestServer;
let cast: Cast;
const ids: Record<string, number> = {};

test.before(async () => {
  s = await startTestServer();
  cast = await makeCast(s);
  await setRealmSettings(s, { enable_spectator_access: true });
  ids.pub = await createChannel(s, cast.member, 'b-public', [cast.member.id]);
  ids.pubOther = await createChannel(s, cast.other, 'c-public-other', [cast.other.id]);
  ids.priv = await createChannel(s, cast.member, 'd-private', [cast.member.id, cast.guest.id], { invite_only: 'true' });
  ids.privOther = await createChannel(s, cast.other, 'e-private-other', [cast.other.id], { invite_only: 'true' });
  ids.web = await createChannel(s, cast.owner, 'a-web', [cast.owner.id], { is_web_public: 'true' });
  ids.def = await createChannel(s, cast.admin, 'f-default', [], { is_default_stream: 'true' });
  ids.archived = await createChannel(s, cast.admin, 'g-archived', [cast.member.id]);
  const archived = await s.client.as(cast.admin).delete(`/streams/${ids.archived}`);
  if (archived.status !== 200) throw new Error(archived.text);
});
test.after.always(() => s?.close());

async function list(as: { email: string; apiKey: string } | null, query: Record<string, string> = {}): Promise<number[]> {
  const client = as ? s.client.as(as) : s.client;
  const r = await client.get('/streams', { query });
  if (r.status !== 200) throw new Error(r.text);
  return r.json.streams.map((c: any) => c.stream_id);
}

const names = (found: number[]) => Object.entries(ids).filter(([, id]) => found.includes(id)).map(([k]) => k).sort();

test('by default: public and subscribed channels, sorted by name, archived ones excluded', async (t) => {
  const r = await s.client.as(cast.member).get('/streams');
  const found = r.json.streams.map((c: any) => c.stream_id);
  t.deepEqual(names(found), ['def', 'priv', 'pub', 'pubOther', 'web']);
  const ordered = r.json.streams.map((c: any) => c.name);
  t.deepEqual(ordered, [...ordered].sort());
  t.is(r.json.streams.find((c: any) => c.stream_id === ids.pub).subscriber_count, 1);
});

test('include_public=false leaves the subscribed ones; include_subscribed=false the public ones', async (t) => {
  t.deepEqual(names(await list(cast.member, { include_public: 'false' })), ['priv', 'pub']);
  t.deepEqual(names(await list(cast.member, { include_subscribed: 'false' })), ['def', 'pub', 'pubOther', 'web']);
  t.deepEqual(names(await list(cast.member, { include_subscribed: 'false', include_public: 'false' })), []);
  t.deepEqual(names(await list(cast.member, { include_subscribed: 'false', include_public: 'false', include_web_public: 'true' })), ['web']);
  t.deepEqual(names(await list(cast.member, { include_public: 'false', include_subscribed: 'false', include_default: 'true' })), ['def']);
});

test('exclude_archived=false adds archived channels the user may see', async (t) => {
  t.deepEqual(names(await list(cast.member, { exclude_archived: 'false' })), ['archived', 'def', 'priv', 'pub', 'pubOther', 'web']);
});

test('include_all: every channel with metadata access (all of them for administrators)', async (t) => {
  t.deepEqual(names(await list(cast.admin, { include_all: 'true' })), ['def', 'priv', 'privOther', 'pub', 'pubOther', 'web']);
  t.deepEqual(names(await list(cast.member, { include_all: 'true' })), ['def', 'priv', 'pub', 'pubOther', 'web']);
  t.deepEqual(names(await list(cast.admin, { include_all: 'true', exclude_archived: 'false' })).length, 7);
});

test('include_all_active is for administrators only', async (t) => {
  const r = await s.client.as(cast.member).get('/streams', { query: { include_all_active: 'true' } });
  t.deepEqual(r.json, { result: 'error', msg: 'User not authorized for this query', code: 'BAD_REQUEST' });
  t.deepEqual(names(await list(cast.owner, { include_all_active: 'true' })), ['def', 'priv', 'privOther', 'pub', 'pubOther', 'web']);
});

test('include_can_access_content: administrators do not read private channels they are not in', async (t) => {
  const found = names(await list(cast.admin, { include_public: 'false', include_subscribed: 'false', include_can_access_content: 'true' }));
  t.deepEqual(found, ['def', 'pub', 'pubOther', 'web']);
  const member = names(await list(cast.member, { include_public: 'false', include_subscribed: 'false', include_can_access_content: 'true' }));
  t.deepEqual(member, ['def', 'priv', 'pub', 'pubOther', 'web']);
});

test('guests see what they are subscribed to, and web-public channels when asking for them', async (t) => {
  t.deepEqual(names(await list(cast.guest)), ['priv']);
  t.deepEqual(names(await list(cast.guest, { include_web_public: 'true' })), ['priv', 'web']);
  t.deepEqual(names(await list(cast.guest, { include_all: 'true' })), ['priv', 'web']);
});

test.serial('include_owner_subscribed: a bot also gets the channels its owner is in', async (t) => {
  const bot = await addUser(s, { isBot: true, fullName: 'Helper Bot' });
  await s.server.services.db.none('UPDATE users SET bot_owner_id = $2 WHERE id = $1', [bot.id, cast.other.id]);
  await (await s.server.services.realms.forHost(undefined)).dispatch('realm.reload');
  t.deepEqual(names(await list(bot, { include_public: 'false' })), []);
  t.deepEqual(names(await list(bot, { include_public: 'false', include_owner_subscribed: 'true' })), ['pubOther']);
});

test.serial('spectators see web-public channels, and nothing when spectator access is off', async (t) => {
  t.deepEqual(names(await list(null)), ['web']);
  const one = await s.client.get(`/streams/${ids.web}`);
  t.is(one.json.stream.name, 'a-web');
  t.is((await s.client.get(`/streams/${ids.pub}`)).json.msg, 'Invalid channel ID');
  await setRealmSettings(s, { enable_spectator_access: false });
  const off = await s.client.get('/streams');
  t.is(off.status, 401);
  t.is(off.json.code, 'UNAUTHORIZED');
  await setRealmSettings(s, { enable_spectator_access: true });
});

test('GET /streams/{id}: a channel the user may see; others and unknown IDs are "Invalid channel ID"', async (t) => {
  const r = await s.client.as(cast.admin).get(`/streams/${ids.privOther}`);
  t.is(r.status, 200);
  t.is(r.json.stream.invite_only, true);
  t.is(r.json.stream.subscriber_count, 1);
  for (const [who, id] of [[cast.member, ids.privOther], [cast.guest, ids.pub], [cast.member, 999999]] as const) {
    const denied = await s.client.as(who).get(`/streams/${id}`);
    t.is(denied.status, 400);
    t.deepEqual(denied.json, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  }
  t.is((await s.client.as(cast.member).get('/streams/abc')).json.msg, 'stream_id is not an integer');
});

test('GET /get_stream_id: by name, case-insensitively; unknown or hidden names are refused', async (t) => {
  t.deepEqual((await s.client.as(cast.member).get('/get_stream_id', { query: { stream: 'B-PUBLIC' } })).json, {
    result: 'success',
    msg: '',
    stream_id: ids.pub,
  });
  t.deepEqual((await s.client.as(cast.member).get('/get_stream_id', { query: { stream: 'e-private-other' } })).json, {
    result: 'error',
    msg: "Invalid channel name 'e-private-other'",
    code: 'BAD_REQUEST',
  });
  t.is((await s.client.as(cast.member).get('/get_stream_id', { query: { stream: 'nope' } })).json.msg, "Invalid channel name 'nope'");
  t.is((await s.client.as(cast.admin).get('/get_stream_id', { query: { stream: 'e-private-other' } })).json.stream_id, ids.privOther);
  t.is((await s.client.as(cast.member).get('/get_stream_id')).json.code, 'REQUEST_VARIABLE_MISSING');
});

test('GET /streams/{id}/members: active subscribers, for those with metadata access', async (t) => {
  t.deepEqual((await s.client.as(cast.guest).get(`/streams/${ids.priv}/members`)).json.subscribers, sorted([cast.member.id, cast.guest.id]));
  t.deepEqual((await s.client.as(cast.admin).get(`/streams/${ids.privOther}/members`)).json.subscribers, [cast.other.id]);
  t.is((await s.client.as(cast.member).get(`/streams/${ids.privOther}/members`)).json.msg, 'Invalid channel ID');
  t.is((await s.client.as(cast.guest).get(`/streams/${ids.pub}/members`)).json.msg, 'Invalid channel ID');
});

test.serial('first_message_id, stream_weekly_traffic and is_recently_active follow the messages', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('busy'), [cast.member.id]);
  const state = (await s.server.services.realms.forHost(undefined)).state;
  const [first] = await insertMessages(s, id, 'old', 3, { senderId: cast.member.id, recipients: [cast.member.id], daysAgo: 10 });
  await insertMessages(s, id, 'new', 2, { senderId: cast.member.id, recipients: [cast.member.id] });
  let ch = (await s.client.as(cast.member).get(`/streams/${id}`)).json.stream;
  t.is(ch.first_message_id, first);
  t.is(ch.stream_weekly_traffic, null, 'a channel younger than a week has no estimate');
  // Age the channel: 40 days old, with 5 messages in the last four weeks → 1 a week.
  await s.server.services.db.none("UPDATE channels SET date_created = now() - interval '40 days' WHERE id = $1", [id]);
  await (await s.server.services.realms.forHost(undefined)).dispatch('realm.reload');
  ch = (await s.client.as(cast.member).get(`/streams/${id}`)).json.stream;
  t.is(ch.stream_weekly_traffic, 1);
  t.is(ch.is_recently_active, true);
  await s.server.services.db.none("UPDATE channels SET date_created = now() - interval '400 days' WHERE id = $1", [id]);
  await s.server.services.db.none("UPDATE messages SET date_sent = now() - interval '200 days' WHERE stream_id = $1", [id]);
  await (await s.server.services.realms.forHost(undefined)).dispatch('realm.reload');
  ch = (await s.client.as(cast.member).get(`/streams/${id}`)).json.stream;
  t.is(ch.is_recently_active, false);
  t.is(ch.stream_weekly_traffic, 0);
  t.truthy(state);
});
