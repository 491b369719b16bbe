// Spectators (no credentials) reading history: GET /messages with web-public narrows only, results from web-public
// channels only with flags ["read"], Zulip's anchors for them, GET /messages/{id}, and the one spectator check
// (the realm's enable_spectator_access and the server's WEB_PUBLIC_STREAMS_ENABLED) on every spectator read.
import test from 'ava';
import type { Client } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dm, getMessages, makeCast, post, realmOf, setRealm, type Cast } from './helpers.js';

const NEWEST = 10_000_000_000_000_000;
const NOT_LOGGED_IN = { result: 'error', code: 'UNAUTHORIZED', msg: 'Not logged in: API authentication or user session required' };

let s: TestServer;
let cast: Cast;
let spectator: Client;
/** A web-public channel with three messages (two topics), and what no spectator may see. */
const web = { id: 0, name: 'open house', ids: [] as number[] };
const hidden = { publicId: 0, privateId: 0, dmId: 0, webDmWord: 'hiddenword' };

test.before(async () => {
  s = await startTestServer();
  spectator = s.client;
  cast = await makeCast(s);
  await setRealm(s, { enable_spectator_access: true });
  const owner = s.client.as(cast.owner);
  const create = async (name: string, extra: Record<string, string>) => {
    const r = await owner.post('/channels/create', { form: { name, subscribers: JSON.stringify([cast.owner.id, cast.member.id]), ...extra } });
    if (r.status !== 200) throw new Error(`create ${name}: ${r.text}`);
    return r.json.id as number;
  };
  web.id = await create(web.name, { is_web_public: 'true' });
  const pub = await create('plain public', {});
  const priv = await create('back office', { invite_only: 'true' });
  web.ids.push(await post(s, cast.member, web.id, 'welcome', 'hello **visitors** https://example.com'));
  hidden.publicId = await post(s, cast.member, pub, 'welcome', `public but not web-public ${hidden.webDmWord}`);
  web.ids.push(await post(s, cast.owner, web.id, 'schedule', 'opening hours: nine to five'));
  hidden.privateId = await post(s, cast.member, priv, 'welcome', `private ${hidden.webDmWord}`);
  hidden.dmId = await dm(s, cast.member, [cast.owner.id], `direct ${hidden.webDmWord}`);
  web.ids.push(await post(s, cast.member, web.id, 'welcome', 'second welcome to visitors'));
});
test.after.always(() => s?.close());

const narrowOf = (...terms: [string, unknown, boolean?][]) =>
  JSON.stringify(terms.map(([operator, operand, negated]) => ({ operator, operand, ...(negated ? { negated } : {}) })));
const WEB_PUBLIC: [string, unknown] = ['channels', 'web-public'];
const ids = (r: { json: { messages: { id: number }[] } }) => r.json.messages.map((m) => m.id);

async function get(query: Record<string, unknown>) {
  const q: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) q[k] = typeof v === 'string' ? v : JSON.stringify(v);
  return spectator.get('/messages', { query: q });
}

test('channels:web-public gives the web-public channels’ messages only, each with flags ["read"]', async (t) => {
  const r = await get({ anchor: 'newest', num_before: 100, num_after: 0, narrow: narrowOf(WEB_PUBLIC) });
  t.is(r.status, 200, r.text);
  t.deepEqual(ids(r), web.ids);
  for (const m of r.json.messages) {
    t.deepEqual(m.flags, ['read']);
    t.is(m.stream_id, web.id);
    t.is(m.display_recipient, web.name);
  }
  t.regex(r.json.messages[0].content, /<strong>visitors<\/strong>/);
  t.false(r.text.includes(hidden.webDmWord));
  t.like(r.json, { found_newest: true, found_oldest: true, history_limited: false });
});

test('web-public narrows: a web-public channel by ID or name, with topic, sender, has, search, id and near', async (t) => {
  const [first, second, third] = web.ids as [number, number, number];
  const cases: [string, number[]][] = [
    [narrowOf(['channel', web.id]), web.ids],
    [narrowOf(['stream', web.name]), web.ids],
    [narrowOf(['channel', String(web.id)], ['topic', 'welcome']), [first, third]],
    [narrowOf(WEB_PUBLIC, ['topic', 'schedule']), [second]],
    [narrowOf(WEB_PUBLIC, ['sender', cast.owner.email]), [second]],
    [narrowOf(WEB_PUBLIC, ['sender', cast.member.id]), [first, third]],
    [narrowOf(WEB_PUBLIC, ['has', 'link']), [first]],
    [narrowOf(WEB_PUBLIC, ['search', 'welcome']), [first, third]],
    [narrowOf(WEB_PUBLIC, ['search', 'second']), [third]],
    [narrowOf(WEB_PUBLIC, ['id', second]), [second]],
    [narrowOf(WEB_PUBLIC, ['near', String(second)]), web.ids],
    [narrowOf(WEB_PUBLIC, ['topic', 'welcome', true]), [second]],
    [narrowOf(['streams', 'web-public'], ['channels', 'public']), web.ids],
    // Legacy pairs.
    [JSON.stringify([['streams', 'web-public'], ['topic', 'schedule']]), [second]],
  ];
  for (const [narrow, want] of cases) {
    const r = await get({ anchor: 'newest', num_before: 100, num_after: 0, narrow });
    t.is(r.status, 200, `${narrow}: ${r.text}`);
    t.deepEqual(ids(r), want, narrow);
  }
  const searched = await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowOf(WEB_PUBLIC, ['search', 'opening']) });
  t.regex(searched.json.messages[0].match_content, /<span class="highlight">opening<\/span>/);
});

test('`with` for a spectator follows a web-public message only', async (t) => {
  const [first, , third] = web.ids as [number, number, number];
  const followed = await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowOf(WEB_PUBLIC, ['with', first]) });
  t.deepEqual(ids(followed), [first, third]);
  for (const id of [hidden.publicId, hidden.privateId, hidden.dmId]) {
    const r = await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowOf(WEB_PUBLIC, ['with', id]) });
    t.like(r.json, { result: 'error', code: 'BAD_REQUEST', msg: "Invalid narrow operator: Invalid 'with' operator" }, String(id));
    t.false(r.text.includes(hidden.webDmWord));
  }
});

test('narrows that are not web-public, or use operators spectators may not, are the missing-login 401', async (t) => {
  const refused = [
    JSON.stringify([]),
    narrowOf(['channel', 'plain public']),
    narrowOf(['channel', 'back office']),
    narrowOf(['channel', 'no such channel']),
    narrowOf(['channels', 'public']),
    narrowOf(['channels', 'web-public', true]),
    narrowOf(['channel', web.id, true], ['channels', 'public']),
    narrowOf(['topic', 'welcome']),
    narrowOf(['search', hidden.webDmWord]),
    narrowOf(WEB_PUBLIC, ['is', 'starred']),
    narrowOf(WEB_PUBLIC, ['is', 'unread']),
    narrowOf(WEB_PUBLIC, ['in', 'home']),
    narrowOf(['dm', [cast.owner.id]]),
    narrowOf(WEB_PUBLIC, ['dm-including', cast.owner.id]),
    JSON.stringify([['pm-with', cast.owner.email]]),
    // Zulip asks for a login before it looks at operator names at all.
    narrowOf(WEB_PUBLIC, ['frobnicate', 'x']),
  ];
  for (const narrow of refused) {
    const r = await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow });
    t.is(r.status, 401, narrow);
    t.deepEqual(r.json, NOT_LOGGED_IN, narrow);
  }
  // Without a narrow at all, and with message_ids.
  t.deepEqual((await get({ anchor: 'newest', num_before: 10, num_after: 0 })).json, NOT_LOGGED_IN);
  t.deepEqual((await get({ message_ids: [hidden.privateId] })).json, NOT_LOGGED_IN);
});

test('a web-public narrow naming another channel is "unknown web-public channel", whether it exists or not', async (t) => {
  for (const operand of ['plain public', 'back office', 'no such channel', 987654]) {
    const r = await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowOf(WEB_PUBLIC, ['channel', operand]) });
    t.deepEqual(r.json, { result: 'error', code: 'BAD_REQUEST', msg: `Invalid narrow operator: unknown web-public channel ${operand}` });
  }
  const priv = (await realmOf(s)).state.channels.channelByName('back office')!.id;
  const byId = await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowOf(['channel', web.id], ['channel', priv, true]) });
  t.is(byId.json.msg, `Invalid narrow operator: unknown web-public channel ${priv}`);
});

test('anchors for a spectator: first_unread is the newest (all is read), ranges around an ID, message_ids', async (t) => {
  const [first, second, third] = web.ids as [number, number, number];
  const narrow = narrowOf(WEB_PUBLIC);
  const unread = await get({ anchor: 'first_unread', num_before: 1, num_after: 5, narrow });
  t.like(unread.json, { anchor: NEWEST, found_newest: true, found_anchor: false });
  t.deepEqual(ids(unread), [third]);
  const legacy = await get({ use_first_unread_anchor: true, num_before: 2, num_after: 0, narrow });
  t.is(legacy.json.anchor, NEWEST);
  t.deepEqual(ids(legacy), [second, third]);

  const around = await get({ anchor: second, num_before: 1, num_after: 1, narrow });
  t.deepEqual(ids(around), [first, second, third]);
  t.like(around.json, { anchor: second, found_anchor: true, found_oldest: false, found_newest: false });
  const excluded = await get({ anchor: second, num_before: 0, num_after: 5, include_anchor: false, narrow });
  t.deepEqual(ids(excluded), [third]);
  t.false(excluded.json.found_anchor);
  const oldest = await get({ anchor: 'oldest', num_before: 0, num_after: 2, narrow });
  t.deepEqual(ids(oldest), [first, second]);
  t.like(oldest.json, { anchor: 0, found_oldest: true, found_newest: false });
  // An anchor on a message the spectator may not see is simply not found.
  const elsewhere = await get({ anchor: hidden.privateId, num_before: 0, num_after: 0, narrow });
  t.deepEqual(ids(elsewhere), []);
  t.false(elsewhere.json.found_anchor);

  const byIds = await get({ message_ids: [first, hidden.publicId, hidden.privateId, hidden.dmId, third], narrow });
  t.deepEqual(ids(byIds), [first, third]);
  t.deepEqual(byIds.json.messages.map((m: { flags: string[] }) => m.flags), [['read'], ['read']]);
  t.false(byIds.text.includes(hidden.webDmWord));
});

test('GET /messages/{id}: a web-public channel’s message with flags ["read"]; any other is the missing-login 401', async (t) => {
  const [first] = web.ids as [number];
  const r = await spectator.get(`/messages/${first}`, { query: { apply_markdown: 'false' } });
  t.is(r.status, 200, r.text);
  t.like(r.json, { raw_content: 'hello **visitors** https://example.com', message: { id: first, stream_id: web.id, content: 'hello **visitors** https://example.com' } });
  t.deepEqual(r.json.message.flags, ['read']);
  for (const id of [hidden.publicId, hidden.privateId, hidden.dmId, 999_999_999]) {
    const refused = await spectator.get(`/messages/${id}`);
    t.is(refused.status, 401, String(id));
    t.deepEqual(refused.json, NOT_LOGGED_IN, String(id));
  }
});

test('users can narrow to channels:web-public too, and read its history from before they subscribed', async (t) => {
  const r = await getMessages(s, cast.other, { anchor: 'newest', num_before: 100, num_after: 0, narrow: narrowOf(WEB_PUBLIC) });
  t.is(r.status, 200, r.text);
  t.deepEqual(ids(r), web.ids);
  t.deepEqual(r.json.messages[0].flags, ['read', 'historical']);
  const negated = await getMessages(s, cast.member, { anchor: 'newest', num_before: 100, num_after: 0, narrow: narrowOf(['channels', 'web-public', true]) });
  t.false(ids(negated).some((id: number) => web.ids.includes(id)));
  t.true(ids(negated).includes(hidden.publicId));
});

test.serial('without the realm’s spectator access, spectator reads and register are the missing-login 401', async (t) => {
  await setRealm(s, { enable_spectator_access: false });
  try {
    const r = await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowOf(WEB_PUBLIC) });
    t.is(r.status, 401);
    t.deepEqual(r.json, NOT_LOGGED_IN);
    t.deepEqual((await spectator.get(`/messages/${web.ids[0]}`)).json, NOT_LOGGED_IN);
    t.deepEqual((await spectator.post('/register', { form: {} })).json, NOT_LOGGED_IN);
    // The realm setting is checked before the spectator's parameters, as in Zulip.
    t.deepEqual((await spectator.post('/register', { form: { client_gravatar: 'true' } })).json, NOT_LOGGED_IN);
  } finally {
    await setRealm(s, { enable_spectator_access: true });
  }
  t.is((await get({ anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowOf(WEB_PUBLIC) })).status, 200);
});

test('with WEB_PUBLIC_STREAMS_ENABLED off, spectators get the 401 everywhere, register included, even if the realm allows them', async (t) => {
  const off = await startTestServer({ env: { WEB_PUBLIC_STREAMS_ENABLED: 'false' } });
  try {
    await setRealm(off, { enable_spectator_access: true });
    const realm = await realmOf(off);
    // A web-public channel left from when the server allowed them.
    const owner = realm.state.userByEmail(off.owner.email)!;
    await realm.dispatch('channels.create', {
      actorId: owner.id,
      name: 'left over',
      description: '',
      subscriberIds: [owner.id],
      announce: false,
      settings: { inviteOnly: false, isWebPublic: true, isDefault: false, groupSettings: {} },
      server: { realmUrl: `http://127.0.0.1:${off.port}`, webPublicStreamsEnabled: true },
    });
    const channelId = realm.state.channels.channelByName('left over')!.id;
    const sent = await off.client.as(off.owner).post('/messages', { form: { type: 'stream', to: String(channelId), topic: 't', content: 'x' } });
    t.is(sent.status, 200, sent.text);
    const anon = off.client;
    const checks = [
      await anon.post('/register', { form: {} }),
      await anon.get('/messages', { query: { anchor: 'newest', num_before: '1', num_after: '0', narrow: narrowOf(WEB_PUBLIC) } }),
      await anon.get(`/messages/${sent.json.id}`),
      await anon.get('/streams'),
      await anon.get(`/users/me/${channelId}/topics`),
    ];
    for (const r of checks) {
      t.is(r.status, 401, r.text);
      t.deepEqual(r.json, NOT_LOGGED_IN);
    }
    // The owner still reads it, and register tells clients web-public channels are off on this server.
    t.is((await off.client.as(off.owner).get(`/messages/${sent.json.id}`)).status, 200);
    const snapshot = await off.client.as(off.owner).post('/register', { form: { fetch_event_types: '["realm"]' } });
    t.is(snapshot.json.server_web_public_streams_enabled, false);
    const on = await s.client.as(s.owner).post('/register', { form: { fetch_event_types: '["realm"]' } });
    t.is(on.json.server_web_public_streams_enabled, true);
  } finally {
    await off.close();
  }
});
