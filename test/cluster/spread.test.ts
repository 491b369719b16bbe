// Cluster mode: ownership spreads realms over processes. Several realms on three processes: their writers do not all
// run on one process, and each realm works through every process (sends forwarded to its owner, history and events
// on every process).
import test from 'ava';
import { execFile } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import type { Credentials } from '../helpers/http.js';

const ROOT = 'spread.example.test';
const REALMS = 6;
let cluster: TestCluster;
let database: Database;

test.before(async () => {
  cluster = await startCluster(3, { ROOT_DOMAIN: ROOT });
  database = createDatabase(cluster.db.url, { max: 2 });
});

test.after.always(async () => {
  await database?.close();
  await cluster?.stop();
});

/** Realm ID → the node holding its live lease. */
async function owners(): Promise<Map<number, string>> {
  const rows = await database.db.any<{ key: string; owner: string }>("SELECT key, owner FROM cluster_leases WHERE key LIKE 'realm:%' AND expires_at > now()");
  return new Map(rows.map((r) => [Number(r.key.slice('realm:'.length)), r.owner]));
}

test('realms are owned by more than one process, and each realm works through every process', async (t) => {
  const password = 'spread-owner-pass-1';
  const realms: { id: number; host: (port: number) => string; auth: Credentials }[] = [];
  for (let i = 0; i < REALMS; i++) {
    const email = `boss${i}@spread.example`;
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['dist/src/cli/main.js', 'create-realm', '--subdomain', `r${i}`, '--name', `Realm ${i}`, '--owner-email', email, '--owner-password', password, '--owner-name', `Boss ${i}`],
      { env: { ...process.env, DATABASE_URL: cluster.db.url, ROOT_DOMAIN: ROOT, PASSWORD_HASH_COST: '10' } },
    );
    const made = JSON.parse(stdout) as { realm_id: number };
    realms.push({ id: made.realm_id, host: (port) => `r${i}.${ROOT}:${port}`, auth: { email, apiKey: '' } });
  }
  // The processes claim the free realms by themselves (no request has touched them yet): wait until all are owned.
  const all = realms.map((r) => r.id);
  let owned = await owners();
  for (let i = 0; i < 300 && !all.every((id) => owned.has(id)); i++) {
    await sleep(100);
    owned = await owners();
  }
  t.true(all.every((id) => owned.has(id)), `every realm has an owner: ${JSON.stringify([...owned])}`);
  const perNode = new Map<string, number>();
  for (const node of owned.values()) perNode.set(node, (perNode.get(node) ?? 0) + 1);
  t.log('realms per node', JSON.stringify([...perNode]));
  t.true(perNode.size >= 2, `the realms' owners are spread, not all on one process: ${JSON.stringify([...perNode])}`);

  for (const realm of realms) {
    const at = (n: number) => cluster.nodes[n]!.client.withHost(realm.host(cluster.nodes[n]!.port));
    const key = await at(0).post('/fetch_api_key', { form: { username: realm.auth.email, password } });
    t.is(key.status, 200, key.text);
    const auth = { email: realm.auth.email, apiKey: key.json.api_key as string };
    const made = await at(1).post('/users/me/subscriptions', { auth, form: { subscriptions: JSON.stringify([{ name: 'spread' }]) } });
    t.is(made.status, 200, made.text);
    // A queue on each process; one message sent through each process.
    const queues: string[] = [];
    for (let n = 0; n < 3; n++) {
      const r = await at(n).post('/register', { auth, form: { event_types: JSON.stringify(['message']), apply_markdown: 'false' } });
      t.is(r.status, 200, r.text);
      queues.push(r.json.queue_id as string);
    }
    const sent: number[] = [];
    for (let n = 0; n < 3; n++) {
      const r = await at(n).post('/messages', { auth, form: { type: 'stream', to: 'spread', topic: 't', content: `realm ${realm.id} via ${n}` } });
      t.is(r.status, 200, `realm ${realm.id} through ${cluster.nodes[n]!.node}: ${r.text}`);
      sent.push(r.json.id);
    }
    for (let n = 0; n < 3; n++) {
      // History through every process, and each queue (polled through the next process) gets every message once.
      const history = await at(n).get('/messages', {
        auth,
        query: { anchor: 'newest', num_before: '10', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: 'spread' }]) },
      });
      t.is(history.status, 200, history.text);
      t.deepEqual(history.json.messages.map((m: { id: number }) => m.id), sent, `realm ${realm.id}'s history through ${cluster.nodes[n]!.node}`);
      const got: number[] = [];
      for (let last = -1; got.length < sent.length; ) {
        const r = await at((n + 1) % 3).get('/events', { auth, query: { queue_id: queues[n]!, last_event_id: String(last) } });
        t.is(r.status, 200, r.text);
        for (const e of r.json.events) {
          last = Math.max(last, e.id);
          if (e.type === 'message') got.push(e.message.id);
        }
      }
      t.deepEqual(got, sent, `realm ${realm.id}'s queue on ${cluster.nodes[n]!.node}: every message once, in order`);
    }
  }
});
