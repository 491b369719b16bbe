// Cluster mode: a process whose realm lease was taken over behind its back cannot write the realm any more, even
// before its own lease round notices; nothing it was asked to write is committed.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { createDatabase } from '../../src/persistence/db.js';
import { startCluster, type TestCluster } from '../helpers/cluster.js';

let cluster: TestCluster;

test.before(async () => {
  // A long lease: its renewal round (every 10 s) is unlikely to notice the takeover before the write meets the fence.
  cluster = await startCluster(2, { CLUSTER_COMMAND_TIMEOUT_MS: '3000', CLUSTER_LEASE_MS: '30000' });
});

test.after.always(async () => {
  await cluster?.stop();
});

test("a fenced former owner's write is refused and nothing of it is stored", async (t) => {
  const owner = cluster.owner;
  const a = cluster.nodes[0]!.client;
  t.is((await a.post('/users/me/subscriptions', { auth: owner, form: { subscriptions: JSON.stringify([{ name: 'fence' }]) } })).status, 200);
  const database = createDatabase(cluster.db.url, { max: 2 });
  try {
    const lease = await database.db.one<{ owner: string }>("SELECT owner FROM cluster_leases WHERE key LIKE 'realm:%'");
    const former = cluster.nodes.find((n) => n.node === lease.owner)!;
    t.truthy(former, 'a process owns the realm');
    // Another "process" takes the lease over behind the owner's back (as after a pause longer than the lease).
    await database.db.none("UPDATE cluster_leases SET owner = 'intruder', epoch = epoch + 1, expires_at = now() + interval '1 hour' WHERE key LIKE 'realm:%'");
    const r = await former.client.post('/messages', { auth: owner, form: { type: 'stream', to: 'fence', topic: 'f', content: 'from the former owner' } });
    t.is(r.status, 503, r.text);
    // Refused by the fence inside the transaction, or (had its lease round noticed first) for want of an owner.
    t.log(r.json.msg);
    t.is(r.json.code, 'SERVICE_UNAVAILABLE');
    const stored = await database.db.one<{ n: number }>("SELECT count(*)::int AS n FROM messages WHERE content = 'from the former owner'");
    t.is(stored.n, 0, 'nothing committed');
    // The former owner noticed: its log says so (through the fenced write or its next lease round).
    for (let i = 0; i < 50 && !/realm ownership lost/.test(former.output()); i++) await sleep(100);
    t.regex(former.output(), /realm ownership lost/);
    // Once the intruder's lease lapses, a process of the cluster takes the realm again and writes work.
    await database.db.none("UPDATE cluster_leases SET expires_at = now() - interval '1 second' WHERE owner = 'intruder'");
    let after = 0;
    for (let i = 0; i < 20 && after !== 200; i++) {
      after = (await a.post('/messages', { auth: owner, form: { type: 'stream', to: 'fence', topic: 'f', content: 'after' } })).status;
      if (after !== 200) await sleep(500);
    }
    t.is(after, 200);
  } finally {
    await database.close();
  }
});
