// Cluster mode: the owner of a realm killed with SIGKILL in the middle of a load.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { startCluster, type Node, type TestCluster } from '../helpers/cluster.js';
import type { Credentials } from '../helpers/http.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(3);
});

test.after.always(async () => {
  await cluster?.stop();
});

/** The realms a process owns, as its readiness reports them. */
async function ownedBy(node: Node): Promise<number[]> {
  const r = await node.client.get('/health/ready', { root: true });
  const m = /owns realms \[([\d, ]*)\]/.exec(r.json?.checks?.cluster?.detail ?? '');
  return m && m[1] ? m[1].split(',').map(Number) : [];
}

async function ownerOfRealm(nodes: Node[]): Promise<Node> {
  for (const deadline = Date.now() + 60_000; Date.now() < deadline; await sleep(200)) {
    for (const n of nodes) if ((await ownedBy(n)).length > 0) return n;
  }
  throw new Error('no process owns the realm');
}

test('SIGKILL of a realm owner mid-load: no acknowledged message lost, another process takes over, clients keep working', async (t) => {
  const owner: Credentials = cluster.owner;
  const sub = await cluster.nodes[1]!.client.post('/users/me/subscriptions', { auth: owner, form: { subscriptions: JSON.stringify([{ name: 'load' }]) } });
  t.is(sub.status, 200, sub.text);
  const victim = await ownerOfRealm(cluster.nodes);
  const victimRealms = await ownedBy(victim);
  t.not(victimRealms.length, 0, 'the victim owns a realm');
  const survivors = cluster.nodes.filter((n) => n !== victim);
  // A queue on every process.
  const queues = new Map<Node, string>();
  for (const n of cluster.nodes) {
    const r = await n.client.post('/register', { auth: owner, form: { event_types: JSON.stringify(['message']) } });
    queues.set(n, r.json.queue_id);
  }

  const acked: { id: number; content: string }[] = [];
  let sent = 0;
  let killed = false;
  let failuresAfterKill = 0;
  const sender = async () => {
    while (acked.length < 60) {
      const content = `load ${sent++}`;
      const target = killed ? survivors[sent % survivors.length]! : cluster.nodes[sent % cluster.nodes.length]!;
      const r = await target.client
        .post('/messages', { auth: owner, form: { type: 'stream', to: 'load', topic: 'kill', content } })
        .catch(() => null);
      if (r?.status === 200) acked.push({ id: r.json.id, content });
      else if (killed) {
        failuresAfterKill++;
        await sleep(100);
      }
      if (!killed && acked.length >= 15) {
        killed = true;
        victim.child.kill('SIGKILL');
      }
    }
  };
  await Promise.all([sender(), sender(), sender()]);
  t.true(killed);
  t.log(`failed sends during the takeover: ${failuresAfterKill}`);

  // Every realm the victim owned has a survivor for its owner now.
  const orphans = async () => {
    const owned = (await Promise.all(survivors.map(ownedBy))).flat();
    return victimRealms.filter((r) => !owned.includes(r));
  };
  for (const deadline = Date.now() + 60_000; (await orphans()).length > 0 && Date.now() < deadline; ) await sleep(200);
  t.deepEqual(await orphans(), [], 'taken over by a survivor');

  // Every acknowledged message is in the history, once.
  const history = await survivors[0]!.client.get('/messages', {
    auth: owner,
    query: { anchor: 'newest', num_before: '1000', num_after: '0', narrow: JSON.stringify([{ operator: 'channel', operand: 'load' }]), apply_markdown: 'false' },
  });
  t.is(history.status, 200, history.text);
  const stored = history.json.messages.map((m: { id: number }) => m.id) as number[];
  t.is(new Set(stored).size, stored.length);
  for (const m of acked) t.true(stored.includes(m.id), `acknowledged message ${m.id} stored`);

  // Queues on the survivors got every acknowledged message once, in order; the dead process's queue is gone.
  for (const n of survivors) {
    const seen: number[] = [];
    let last = -1;
    while (!acked.every((m) => seen.includes(m.id))) {
      const r = await n.client.get('/events', { auth: owner, query: { queue_id: queues.get(n)!, last_event_id: String(last), dont_block: 'true' } });
      t.is(r.status, 200, r.text);
      for (const e of r.json.events) {
        last = Math.max(last, e.id);
        if (e.type === 'message') seen.push(e.message.id);
      }
      if (r.json.events.length === 0) await sleep(200);
    }
    t.is(new Set(seen).size, seen.length, 'no event twice');
    t.deepEqual(seen, [...seen].sort((x, y) => x - y), 'in order');
    for (const id of seen) t.true(stored.includes(id));
  }
  const dead = await survivors[0]!.client.get('/events', { auth: owner, query: { queue_id: queues.get(victim)!, last_event_id: '-1', dont_block: 'true' } });
  t.is(dead.status, 400);
  t.is(dead.json.code, 'BAD_EVENT_QUEUE_ID');
  // The client registers again and keeps working.
  const again = await survivors[1]!.client.post('/register', { auth: owner, form: { event_types: JSON.stringify(['message']) } });
  t.is(again.status, 200);
  const after = await survivors[0]!.client.post('/messages', { auth: owner, form: { type: 'stream', to: 'load', topic: 'kill', content: 'after' } });
  t.is(after.status, 200, after.text);
  const r = await survivors[0]!.client.get('/events', { auth: owner, query: { queue_id: again.json.queue_id, last_event_id: '-1' } });
  t.deepEqual(r.json.events.filter((e: { type: string }) => e.type === 'message').map((e: { message: { id: number } }) => e.message.id), [after.json.id]);
});
