// ReadBatch: reads issued in one turn reach PostgreSQL as one multi-statement query, each caller getting the rows
// its own query would have returned; and the register snapshot read through it is the one read directly, in at most
// two round trips.
import test from 'ava';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { migrate } from '../../src/persistence/migrate.js';
import { batchedReads, ReadBatch } from '../../src/persistence/read-batch.js';
import { buildSnapshot } from '../../src/events/snapshot/index.js';
import { capabilitiesFrom } from '../../src/events/registration.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

let testDb: TestDatabase;
let database: Database;
let s: TestServer;

test.before(async () => {
  testDb = await createTestDatabase();
  database = createDatabase(testDb.url);
  await migrate(database.db);
  s = await startTestServer();
});
test.after.always(async () => {
  await database?.close();
  await testDb?.drop();
  await s?.close();
});

test('reads issued together take one round trip and each gets its own rows', async (t) => {
  const batch = new ReadBatch(database.db);
  const [a, b, c, d, e] = await Promise.all([
    batch.any('SELECT generate_series(1, $1) AS n', [3]),
    batch.map('SELECT $1::text AS s', ['one; two'], (r) => r.s),
    batch.one('SELECT 42 AS x', [], (r) => r.x),
    batch.oneOrNone('SELECT 1 AS x WHERE false', [], (r) => (r === null ? 'none' : 'some')),
    batch.any('SELECT generate_series(1, $1) AS n', [3]),
  ]);
  t.deepEqual(a, [{ n: 1 }, { n: 2 }, { n: 3 }]);
  t.deepEqual(b, ['one; two'], 'a value with a semicolon stays inside its statement');
  t.is(c, 42);
  t.is(d, 'none');
  t.deepEqual(e, a, 'the same statement twice: both callers get its rows');
  t.is(batch.roundTrips, 1);
  // Reads issued after the first answer go in a second round trip.
  t.deepEqual(await batch.any('SELECT 7 AS x'), [{ x: 7 }]);
  t.is(batch.roundTrips, 2);
});

test('a failing statement fails every read of its batch, and the next batch works', async (t) => {
  const batch = new ReadBatch(database.db);
  const results = await Promise.allSettled([batch.any('SELECT 1 AS x'), batch.any('SELECT * FROM no_such_table')]);
  t.deepEqual(results.map((r) => r.status), ['rejected', 'rejected']);
  await t.throwsAsync(batch.one('SELECT generate_series(1, 2) AS x'), { message: /Multiple rows/ });
  t.deepEqual(await batch.any('SELECT 2 AS x'), [{ x: 2 }]);
});

test("repositories over a batch return what they return over the database", async (t) => {
  const reads = batchedReads(database.db);
  const [direct, batched] = await Promise.all([
    Promise.all([database.db.userMessages.maxMessageId(1), database.db.userTopics.forUser(1), database.db.drafts.forUser(1)]),
    Promise.all([reads.userMessages.maxMessageId(1), reads.userTopics.forUser(1), reads.drafts.forUser(1)]),
  ]);
  t.deepEqual(batched, direct);
  t.is(reads.roundTrips, 1);
});

test('the register snapshot read through a batch is the one read directly, in at most two round trips', async (t) => {
  const user = await addUser(s, { fullName: 'Batch Reader' });
  const as = s.client.as(user);
  t.is((await as.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: 'batch reads' }]) } })).status, 200);
  const sent = await as.post('/messages', { form: { type: 'stream', to: 'batch reads', topic: 't', content: 'hello' } });
  t.is(sent.status, 200);
  t.is((await as.post('/messages/flags', { form: { messages: JSON.stringify([sent.json.id]), op: 'add', flag: 'starred' } })).status, 200);
  t.is((await as.post('/drafts', { form: { drafts: JSON.stringify([{ type: '', to: [], topic: '', content: 'draft' }]) } })).status, 200);
  const realm = await s.server.services.realms.forHost(undefined);
  const db = s.server.services.db;
  const me = realm.state.usersById.get(user.id)!;
  const ctx = (reads: typeof db | ReturnType<typeof batchedReads>) => ({
    state: realm.state,
    user: me,
    registration: {
      eventTypes: null, narrow: [], allPublicStreams: false, applyMarkdown: true, clientGravatar: true, slimPresence: false,
      includeSubscribers: 'false' as const, capabilities: capabilitiesFrom(undefined), clientName: 'test',
    },
    db: reads,
    config: s.config,
    presence: { all: () => s.server.services.presence.all(realm), now: () => s.server.services.presence.now() },
    presenceHistoryLimitDays: 14,
    fetchTypes: null,
    messagesUpTo: realm.state.messages.lastId,
  });
  const reads = batchedReads(db);
  const direct = await buildSnapshot(ctx(db), null);
  const batched = await buildSnapshot(ctx(reads), null);
  const plain = (v: Record<string, unknown>) => JSON.parse(JSON.stringify({ ...v, server_timestamp: 0 }));
  t.deepEqual(plain(batched), plain(direct));
  t.is((batched.starred_messages as number[]).length, 1);
  t.is((batched.drafts as unknown[]).length, 1);
  t.true(reads.roundTrips <= 2, `${reads.roundTrips} round trips`);
});
