// Database faults: PostgreSQL unreachable (connections reset, new ones refused), restarted (every connection dropped
// once), or partitioned (connections open but silent) for a few seconds. Requests fail fast with a 503 envelope and
// never hang; the server serves again by itself; no acknowledged write is lost; a failed write changes nothing.
import test, { type ExecutionContext } from 'ava';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import type { Client, Response } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { history, until } from './child-server.js';
import { startFaultProxy, type FaultProxy } from './fault-proxy.js';

/** A request that has not been answered after this long counts as hung (the test client's own timeout is 30 s). */
const HUNG_MS = 12_000;

let testDb: TestDatabase | null = null;
let proxy: FaultProxy;
let s: TestServer;
let dataDir: string;
let sender: TestUser;
let reader: TestUser;
let channelId: number;

test.before(async () => {
  testDb = await createTestDatabase();
  proxy = await startFaultProxy(testDb.url);
  dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-dbfaults-'));
  // Warnings while the database is away are expected.
  s = await startTestServer({ reuse: { dataDir, databaseUrl: proxy.url }, env: { LOG_LEVEL: 'fatal', DB_QUERY_TIMEOUT_MS: '2000' } });
  sender = await addUser(s);
  reader = await addUser(s);
  const r = await s.client.as(s.owner).post('/users/me/subscriptions', {
    form: { subscriptions: JSON.stringify([{ name: 'faults' }]), principals: JSON.stringify([sender.id, reader.id]) },
  });
  if (r.status !== 200) throw new Error(r.text);
  channelId = (await s.client.as(s.owner).get('/get_stream_id', { query: { stream: 'faults' } })).json.stream_id;
});
test.after.always(async () => {
  proxy?.set('up');
  await s?.stop();
  await proxy?.close();
  await testDb?.drop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

interface Outcome {
  content: string;
  status: number | 'hung' | 'network';
  json?: any;
  ms: number;
}

/** A request raced against HUNG_MS. */
async function timed(p: Promise<Response>): Promise<{ status: number | 'hung' | 'network'; json?: any; ms: number }> {
  let timer: NodeJS.Timeout | undefined;
  const start = performance.now();
  const hung = new Promise<'hung'>((resolve) => (timer = setTimeout(() => resolve('hung'), HUNG_MS)));
  try {
    const r = await Promise.race([p.catch(() => 'network' as const), hung]);
    const ms = Math.round(performance.now() - start);
    return typeof r === 'string' ? { status: r, ms } : { status: r.status, json: r.json, ms };
  } finally {
    clearTimeout(timer);
  }
}

/** Sends to the channel one after another until stopped, recording every outcome. */
function sendLoop(client: Client, tag: string) {
  const outcomes: Outcome[] = [];
  let stopped = false;
  const done = (async () => {
    for (let n = 0; !stopped; n++) {
      const content = `${tag} #${n}`;
      const r = await timed(client.post('/messages', { form: { type: 'stream', to: String(channelId), topic: tag, content } }));
      outcomes.push({ content, ...r });
      // Failures come back at once; do not spin on them.
      if (r.status !== 200) await new Promise((res) => setTimeout(res, 20));
    }
  })();
  const acked = () => outcomes.filter((o) => o.status === 200);
  return { outcomes, acked, done, stop: () => ((stopped = true), done) };
}

function assertFailuresAre503(t: ExecutionContext, outcomes: { status: unknown; json?: any; ms: number }[], what: string) {
  const failed = outcomes.filter((o) => o.status !== 200);
  if (failed.length) t.log(`${what}: ${failed.length} failed, slowest answer ${Math.max(...failed.map((o) => o.ms))} ms`);
  const bad = failed.filter((o) => !(o.status === 503 && o.json?.result === 'error' && o.json.code === 'SERVICE_UNAVAILABLE' && o.json.msg));
  t.deepEqual(bad, [], `${what}: every failure is a 503 SERVICE_UNAVAILABLE envelope, none hung`);
}

async function assertAckedInHistory(t: ExecutionContext, loop: ReturnType<typeof sendLoop>, tag: string, cuts = 1) {
  const seen = await history(s.client.as(reader), [{ operator: 'channel', operand: channelId }, { operator: 'topic', operand: tag }]);
  const counts = new Map<string, number>();
  for (const m of seen) counts.set(m.content, (counts.get(m.content) ?? 0) + 1);
  t.deepEqual([...counts].filter(([, n]) => n > 1), [], 'no message twice');
  t.deepEqual(loop.acked().filter((o) => counts.get(o.content) !== 1 || !seen.some((m) => m.id === o.json.id)), [], 'every acknowledged send is in history');
  // A send refused while the database was reachable is not stored. One whose COMMIT was on the wire when the
  // connection was cut may have committed without the server learning it (the ambiguity of any database client):
  // at most the one send the loop had in flight at each cut.
  const refusedButStored = loop.outcomes.filter((o) => o.status === 503 && counts.has(o.content));
  if (refusedButStored.length) t.log(`answered 503 but committed (COMMIT cut in flight): ${refusedButStored.map((o) => o.content).join(', ')}`);
  t.true(refusedButStored.length <= cuts, `${refusedButStored.length} sends answered 503 were stored`);
}

test.serial('database unreachable for a few seconds: 503 envelopes at once, served again by itself, nothing acknowledged lost', async (t) => {
  const loop = sendLoop(s.client.as(sender), 'unreachable');
  await until(() => loop.acked().length >= 20, 'sends before the outage');
  // GET /users/{id} answers from memory (GET /users/me reads max_message_id from the database).
  const before = (await s.client.as(sender).get(`/users/${sender.id}`)).json.user.full_name;

  proxy.set('down');
  const outageStart = loop.outcomes.length;
  await until(() => loop.outcomes.slice(outageStart).filter((o) => o.status !== 200).length >= 5, 'sends refused during the outage');
  // Reads that need the database, and a write that would change the working set, fail the same way.
  const reads = await Promise.all([
    timed(s.client.as(reader).get('/messages', { query: { anchor: 'newest', num_before: '10', num_after: '0' } })),
    timed(s.client.as(reader).post('/register')),
  ]);
  const rename = await timed(s.client.as(sender).patch('/settings', { form: { full_name: 'Renamed During Outage' } }));
  // A few seconds of outage, the send load going on.
  await new Promise((r) => setTimeout(r, 3000));
  assertFailuresAre503(t, [...reads, rename], 'reads and a settings change');
  t.is(rename.status, 503);
  t.is((await s.client.as(sender).get(`/users/${sender.id}`)).json.user.full_name, before, 'the refused write was not applied to memory');

  proxy.set('up');
  await until(() => loop.outcomes.at(-1)?.status === 200, 'a send succeeds once the database is back');
  const afterOutage = loop.acked().length;
  await until(() => loop.acked().length >= afterOutage + 20, 'sends after the outage');
  await loop.stop();

  const refused = loop.outcomes.filter((o) => o.status !== 200).length;
  t.log(`${loop.acked().length} sends acknowledged, ${refused} refused during the outage`);
  t.true(refused >= 5);
  assertFailuresAre503(t, loop.outcomes, 'sends');
  await assertAckedInHistory(t, loop, 'unreachable');
  // The refused settings change left the database as it was too, and can be made now.
  t.is((await s.server.services.db.one('SELECT full_name FROM users WHERE id = $1', [sender.id])).full_name, before);
  const again = await s.client.as(sender).patch('/settings', { form: { full_name: 'Renamed After' } });
  t.is(again.status, 200, again.text);
  t.is((await s.client.as(sender).get(`/users/${sender.id}`)).json.user.full_name, 'Renamed After');
});

test.serial('database restart (every connection dropped once): in-flight requests fail with 503, the pool reconnects', async (t) => {
  const loops = [sendLoop(s.client.as(sender), 'restart a'), sendLoop(s.client.as(reader), 'restart b')];
  const restarts = 3;
  for (let round = 0; round < restarts; round++) {
    const base = loops.map((l) => l.acked().length);
    await until(() => loops.every((l, i) => l.acked().length >= base[i]! + 10), 'sends between restarts');
    proxy.restart();
  }
  const base = loops.map((l) => l.acked().length);
  await until(() => loops.every((l, i) => l.acked().length >= base[i]! + 10), 'sends after the last restart');
  await Promise.all(loops.map((l) => l.stop()));
  for (const [i, l] of loops.entries()) {
    assertFailuresAre503(t, l.outcomes, `loop ${i}`);
    await assertAckedInHistory(t, l, i === 0 ? 'restart a' : 'restart b', restarts);
  }
  const ready = await s.client.get('/health/ready', { root: true });
  t.is(ready.status, 200, ready.text);
});

test.serial('database partitioned (connections open, nothing answers): requests fail instead of hanging, and recover', async (t) => {
  const loop = sendLoop(s.client.as(sender), 'partition');
  await until(() => loop.acked().length >= 10, 'sends before the partition');
  proxy.set('stall');
  const start = loop.outcomes.length;
  const reads = await Promise.all([
    timed(s.client.as(reader).get('/messages', { query: { anchor: 'newest', num_before: '10', num_after: '0' } })),
    timed(s.client.as(reader).post('/register')),
  ]);
  await until(() => loop.outcomes.slice(start).filter((o) => o.status !== 200).length >= 2, 'sends refused during the partition', 60_000);
  proxy.set('up');
  await until(() => loop.outcomes.at(-1)?.status === 200, 'a send succeeds after the partition', 60_000);
  const after = loop.acked().length;
  await until(() => loop.acked().length >= after + 10, 'sends after the partition');
  await loop.stop();
  assertFailuresAre503(t, reads, 'reads');
  assertFailuresAre503(t, loop.outcomes, 'sends');
  await assertAckedInHistory(t, loop, 'partition');
});

test.serial('a COMMIT whose answer is lost: the send is answered 503, and the working set is reloaded before the next write', async (t) => {
  const owner = s.client.as(s.owner);
  const created = await owner.post('/users/me/subscriptions', {
    form: { subscriptions: JSON.stringify([{ name: 'uncertain' }]), principals: JSON.stringify([sender.id, reader.id]) },
  });
  t.is(created.status, 200, created.text);
  const id = (await owner.get('/get_stream_id', { query: { stream: 'uncertain' } })).json.stream_id as number;
  const firstMessageId = async () => (await owner.get(`/streams/${id}`)).json.stream.first_message_id as number | null;
  t.is(await firstMessageId(), null);

  const cutBefore = proxy.commitsCut;
  proxy.cutAfterCommit();
  const lost = await s.client.as(sender).post('/messages', { form: { type: 'stream', to: String(id), topic: 't', content: 'committed, answer lost' } });
  t.is(proxy.commitsCut, cutBefore + 1, 'the answer of a COMMIT was cut');
  t.is(lost.status, 503, lost.text);
  t.is(lost.json.code, 'SERVICE_UNAVAILABLE');
  // The database has it, as it would after any commit whose answer was lost.
  const [stored] = await history(s.client.as(reader), [{ operator: 'channel', operand: id }]);
  t.is(stored?.content, 'committed, answer lost');

  // The next write first reloads the working set, so memory agrees with the database again: the channel's first
  // message is the one the database holds, not the next one sent.
  const next = await s.client.as(sender).post('/messages', { form: { type: 'stream', to: String(id), topic: 't', content: 'next' } });
  t.is(next.status, 200, next.text);
  t.is(await firstMessageId(), stored!.id);
});
