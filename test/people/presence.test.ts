// Presence over HTTP: the modern last_update_id protocol, the legacy format, ping_only, history, visibility, events,
// batched persistence (no write per ping) and survival across a restart.
import test from 'ava';
import { PresenceSessions } from '../../src/actors/presence-sessions.js';
import { ActorSystem } from '../../src/actors/system.js';
import { OFFLINE_THRESHOLD_S } from '../../src/realm/people/presence-times.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ids, watchEvents } from './helpers.js';

let s: TestServer;
let a: TestUser;
let b: TestUser;
let old: TestUser;
test.before(async () => {
  s = await startTestServer();
  a = await addUser(s, { role: 400 });
  b = await addUser(s, { role: 600 });
  old = await addUser(s, { role: 400 });
  // A presence from 20 days ago, written before the realm's sessions are first loaded.
  const t20 = Math.floor(Date.now() / 1000) - 20 * 86400;
  const realmId = (await s.server.services.realms.forHost(undefined)).id;
  await s.server.services.db.presence.upsertMany([{ userId: old.id, realmId, lastConnectedTime: t20, lastActiveTime: t20, lastUpdateId: 1 }]);
});
test.after.always(() => s.close());

const ping = (u: TestUser, form: Record<string, string>) => s.client.as(u).post('/users/me/presence', { form });

test.serial('modern protocol: last_update_id -1 fetches all, then only what changed', async (t) => {
  const log = watchEvents(s);
  const first = await ping(a, { status: 'active', last_update_id: '-1' });
  t.is(first.status, 200, first.text);
  const body = first.json;
  t.is(typeof body.server_timestamp, 'number');
  t.is(body.zephyr_mirror_active, false);
  const mine = body.presences[String(a.id)];
  t.deepEqual(Object.keys(mine).sort(), ['active_timestamp', 'idle_timestamp']);
  t.true(Math.abs(mine.active_timestamp - Date.now() / 1000) < 60);
  t.true(body.presence_last_update_id >= 2);
  // The 20-day-old presence is outside the default 14 days.
  t.false(String(old.id) in body.presences);
  // Coming online publishes a presence event: modern for simplified_presence_events clients, legacy otherwise.
  const ev = log.of('presence')[0]!;
  t.deepEqual(Object.keys(ev.event.presences as object), [String(a.id)]);
  const legacy = ev.legacy!.simplified_presence_events![0]!;
  t.is(legacy.user_id, a.id);
  t.is(legacy.email, a.email);
  t.is((legacy.presence as any).website.status, 'active');
  t.true(ids(ev.users).includes(b.id));
  log.stop();

  // b comes online; a asks with its last id and gets only b.
  const before = body.presence_last_update_id as number;
  await ping(b, { status: 'idle', ping_only: 'true' });
  const second = await ping(a, { status: 'active', last_update_id: String(before) });
  t.deepEqual(Object.keys(second.json.presences), [String(b.id)]);
  t.true(second.json.presence_last_update_id > before);
  // Nothing new: the same id back, no presences.
  const third = await ping(a, { status: 'active', last_update_id: String(second.json.presence_last_update_id) });
  t.deepEqual(third.json.presences, {});
  t.is(third.json.presence_last_update_id, second.json.presence_last_update_id);
  // history_limit_days reaches back further on an initial fetch, and is ignored once an id is known.
  const longer = await ping(a, { status: 'active', last_update_id: '-1', history_limit_days: '30' });
  t.true(String(old.id) in longer.json.presences);
  const ignored = await ping(a, { status: 'active', last_update_id: String(third.json.presence_last_update_id), history_limit_days: '30' });
  t.false(String(old.id) in ignored.json.presences);
});

test.serial('legacy format by email without last_update_id; slim_presence asks for the modern one; ping_only returns no data', async (t) => {
  const legacy = await ping(b, { status: 'idle' });
  const entry = legacy.json.presences[a.email];
  t.deepEqual(Object.keys(entry).sort(), ['aggregated', 'website']);
  t.deepEqual(entry.website.client, 'website');
  t.is(entry.website.pushable, false);
  t.is(entry.website.status, 'active');
  t.false('pushable' in entry.aggregated);
  t.deepEqual({ ...entry.aggregated }, { client: 'website', status: entry.website.status, timestamp: entry.website.timestamp });
  t.is(legacy.json.presences[b.email].website.status, 'idle');
  const slim = await ping(b, { status: 'idle', slim_presence: 'true' });
  t.true(String(a.id) in slim.json.presences);
  const only = await ping(b, { status: 'active', ping_only: 'true' });
  t.false('presences' in only.json);
  t.false('server_timestamp' in only.json);
  t.is(only.json.presence_last_update_id, -1);
  const onlyWithId = await ping(b, { status: 'active', ping_only: 'true', last_update_id: '5' });
  t.is(onlyWithId.json.presence_last_update_id, 5);
  const bad = await ping(b, { status: 'away' });
  t.is(bad.json.msg, 'Invalid status');
  t.is((await s.client.as(b).post('/users/me/presence')).json.code, 'REQUEST_VARIABLE_MISSING');
});

test.serial('GET /users/{id}/presence and GET /realm/presence', async (t) => {
  const one = await s.client.as(b).get(`/users/${a.id}/presence`);
  t.is(one.status, 200, one.text);
  t.is(one.json.presence.aggregated.status, 'active');
  t.is(one.json.presence.website.client, 'website');
  const byEmail = await s.client.as(b).get(`/users/${encodeURIComponent(a.email)}/presence`);
  t.deepEqual(byEmail.json.presence, one.json.presence);
  const never = await addUser(s, { role: 400 });
  t.is((await s.client.as(b).get(`/users/${never.id}/presence`)).json.msg, `No presence data for ${never.id}`);
  const bot = await addUser(s, { isBot: true });
  t.is((await s.client.as(b).get(`/users/${bot.id}/presence`)).json.msg, 'Presence is not supported for bot users.');
  const realm = await s.client.as(b).get('/realm/presence');
  t.is(typeof realm.json.server_timestamp, 'number');
  t.deepEqual(realm.json.presences[a.email].aggregated, one.json.presence.aggregated);
});

test.serial('presence_enabled off hides a user everywhere', async (t) => {
  const shy = await addUser(s, { role: 400 });
  await ping(shy, { status: 'active', ping_only: 'true' });
  t.true(String(shy.id) in (await ping(a, { status: 'active', last_update_id: '-1' })).json.presences);
  t.is((await s.client.as(shy).patch('/settings', { form: { presence_enabled: 'false' } })).status, 200);
  const log = watchEvents(s);
  await ping(shy, { status: 'active', ping_only: 'true' });
  const after = await ping(a, { status: 'active', last_update_id: '-1' });
  t.false(String(shy.id) in after.json.presences);
  t.false(shy.email in (await ping(a, { status: 'active' })).json.presences);
  t.is((await s.client.as(a).get(`/users/${shy.id}/presence`)).json.msg, `No presence data for ${shy.id}`);
  t.is(log.of('presence').filter((e) => String(shy.id) in (e.event.presences as object)).length, 0);
  log.stop();
});

test.serial('2,000 users pinging every 60 s cost no database write per ping: one batched statement per flush', async (t) => {
  const { db, realms } = s.server.services;
  const realm = await realms.forHost(undefined);
  await db.none(
    `INSERT INTO users (realm_id, email, full_name, role, api_key)
     SELECT $1, 'load' || g || '@test.example', 'Load ' || g, 400, md5(g::text) FROM generate_series(1, 2000) g`,
    [realm.id],
  );
  await realm.dispatch('realm.reload');
  const userIds: number[] = await db.map(`SELECT id FROM users WHERE email LIKE 'load%@test.example' ORDER BY id`, [], (r) => r.id);
  t.is(userIds.length, 2000);
  let clock = Math.floor(Date.now() / 1000);
  const sessions = new PresenceSessions(db, new ActorSystem(), { now: () => clock });
  const rows = () => db.one('SELECT count(*)::int AS n FROM user_presence WHERE user_id = ANY($1::int[])', [userIds], (r) => r.n as number);
  // What the database holds for these users: how many rows, and the newest and oldest last_connected_time.
  const stored = () => db.one(
    'SELECT count(*)::int AS n, min(last_connected_time)::bigint AS lo, max(last_connected_time)::bigint AS hi FROM user_presence WHERE user_id = ANY($1::int[])',
    [userIds],
    (r) => ({ n: r.n as number, lo: r.lo === null ? null : Number(r.lo), hi: r.hi === null ? null : Number(r.hi) }),
  );
  for (let minute = 0; minute < 3; minute++) {
    for (const id of userIds) await sessions.ping(realm, id, minute % 2 === 0 ? 'active' : 'idle');
    // Every ping so far lives in memory only: the database still holds what the previous flush wrote.
    t.is(sessions.stats.flushes, minute, `minute ${minute}`);
    t.deepEqual(
      await stored(),
      minute === 0 ? { n: 0, lo: null, hi: null } : { n: 2000, lo: clock - 60, hi: clock - 60 },
      `minute ${minute}: no row written by a ping`,
    );
    await sessions.flush();
    t.is(sessions.stats.flushes, minute + 1);
    // One flush wrote every user's row of this minute.
    t.deepEqual(await stored(), { n: 2000, lo: clock, hi: clock }, `minute ${minute}: written by the flush`);
    clock += 60;
  }
  t.is(sessions.stats.pings, 6000);
  t.is(sessions.stats.rowsFlushed, 6000);
  t.is(await rows(), 2000);
  await sessions.stop();
});

test.serial('the sweep takes offline the sessions past the threshold, each once, and no other', async (t) => {
  // Users of their own: stopping the sessions writes their rows at this test's clock.
  const [c, d] = [await addUser(s, { role: 400 }), await addUser(s, { role: 400 })];
  const realm = await s.server.services.realms.forHost(undefined);
  const start = Math.floor(Date.now() / 1000);
  let clock = start;
  const sessions = new PresenceSessions(s.server.services.db, new ActorSystem(), { now: () => clock });
  await sessions.ping(realm, c.id, 'active');
  await sessions.ping(realm, d.id, 'idle');
  t.is(await sessions.sweep(), 0, 'both just pinged');
  clock = start + OFFLINE_THRESHOLD_S - 20;
  await sessions.ping(realm, d.id, 'idle');
  clock = start + OFFLINE_THRESHOLD_S + 1;
  t.is(await sessions.sweep(), 1, 'c went offline; d pinged since');
  t.is(await sessions.sweep(), 0, 'c is offline already');
  clock += OFFLINE_THRESHOLD_S;
  t.is(await sessions.sweep(), 1, 'then d');
  // Offline, c's next ping comes online again.
  await sessions.ping(realm, c.id, 'active');
  t.is(await sessions.sweep(), 0);
  await sessions.stop();
});

test.serial('PRESENCE_EVENTS_USER_LIMIT: coming online is an event up to that many users who see it, none beyond (the answers still tell)', async (t) => {
  const LIMIT = 8;
  const s2 = await startTestServer({ env: { PRESENCE_EVENTS_USER_LIMIT: String(LIMIT) } });
  try {
    const active = async () => [...(await s2.server.services.realms.forHost(undefined)).state.usersById.values()].filter((u) => u.isActive).length;
    const users: TestUser[] = [];
    while ((await active()) < LIMIT) users.push(await addUser(s2, { role: 400 }));
    const log = watchEvents(s2);
    const ping2 = (u: TestUser) => s2.client.as(u).post('/users/me/presence', { form: { status: 'active', last_update_id: '-1' } });
    await ping2(users[0]!);
    t.is(log.of('presence').length, 1, `${LIMIT} users see them: an event`);
    t.is(ids(log.of('presence')[0]!.users).length, LIMIT);
    const more = await addUser(s2, { role: 400 });
    log.clear();
    await ping2(more);
    t.deepEqual(log.of('presence'), [], `${LIMIT + 1} users see them: no event`);
    log.stop();
    // The others learn it from their own presence requests.
    const seen = (await ping2(users[0]!)).json;
    t.true(String(more.id) in seen.presences);
  } finally {
    await s2.close();
  }
});

test.serial('presence survives a restart (flushed at shutdown)', async (t) => {
  const before = (await ping(a, { status: 'active', last_update_id: '-1' })).json;
  await s.stop();
  const s2 = await startTestServer({ reuse: { dataDir: s.dataDir, databaseUrl: s.databaseUrl } });
  try {
    const after = await s2.client.as(b).post('/users/me/presence', { form: { status: 'idle', last_update_id: '-1' } });
    t.deepEqual(after.json.presences[String(a.id)], before.presences[String(a.id)]);
    t.true(after.json.presence_last_update_id > before.presence_last_update_id - 1);
  } finally {
    await s2.stop();
  }
});
