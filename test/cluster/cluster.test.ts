// Cluster mode: three Palaver processes on one PostgreSQL and NATS (test/helpers/cluster.ts).
import test from 'ava';
import { startCluster, type TestCluster } from '../helpers/cluster.js';
import type { Client, Credentials } from '../helpers/http.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(3);
});

test.after.always(async () => {
  await cluster?.stop();
});

async function newUser(c: Client, owner: Credentials, name: string): Promise<Credentials & { id: number }> {
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@cluster.example`;
  const password = `pw-${name}-long-enough-1`;
  const created = await c.post('/users', { auth: owner, form: { email, password, full_name: name } });
  if (created.status !== 200) throw new Error(`creating ${name}: ${created.text}`);
  const key = await c.post('/fetch_api_key', { form: { username: email, password } });
  if (key.status !== 200) throw new Error(`key of ${name}: ${key.text}`);
  return { email, apiKey: key.json.api_key, id: created.json.user_id };
}

async function channelWith(c: Client, owner: Credentials, name: string, userIds: number[]): Promise<void> {
  const r = await c.post('/users/me/subscriptions', {
    auth: owner,
    form: { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(userIds) },
  });
  if (r.status !== 200) throw new Error(`subscribing: ${r.text}`);
}

/** Polls a queue (each poll through the next process) until `count` message events arrived; returns them. */
async function messages(c: Client, auth: Credentials, queueId: string, count: number): Promise<{ id: number; content: string }[]> {
  const got: { id: number; content: string }[] = [];
  let last = -1;
  while (got.length < count) {
    const r = await c.get('/events', { auth, query: { queue_id: queueId, last_event_id: String(last) } });
    if (r.status !== 200) throw new Error(`poll: ${r.text}`);
    for (const e of r.json.events) {
      last = Math.max(last, e.id);
      if (e.type === 'message') got.push({ id: e.message.id, content: e.message.content });
    }
  }
  return got;
}

test.serial('a message sent through one process reaches queues held on the others exactly once, in order', async (t) => {
  const [a, b, c] = cluster.nodes.map((n) => n.client);
  const rr = cluster.roundRobin();
  const owner = cluster.owner;
  const u1 = await newUser(rr, owner, 'ursula');
  const u2 = await newUser(rr, owner, 'victor');
  await channelWith(rr, owner, 'fanout', [owner.email === '' ? 0 : (await rr.get('/users/me', { auth: owner })).json.user_id, u1.id, u2.id]);
  // Queues held by three different processes.
  const register = (client: Client, auth: Credentials) =>
    client.post('/register', { auth, form: { event_types: JSON.stringify(['message']), apply_markdown: 'false' } });
  const qa = (await register(a!, owner)).json.queue_id as string;
  const qb = (await register(b!, u1)).json.queue_id as string;
  const qc = (await register(c!, u2)).json.queue_id as string;
  t.not(qb.split(':')[0], qc.split(':')[0], 'queues on different processes');

  const sent: number[] = [];
  for (let i = 0; i < 20; i++) {
    const r = await a!.post('/messages', { auth: owner, form: { type: 'stream', to: 'fanout', topic: 't', content: `m${i}` } });
    t.is(r.status, 200, r.text);
    sent.push(r.json.id);
  }
  // Each queue is polled through the processes in turn: polls for queues held elsewhere are forwarded.
  for (const [auth, q] of [[owner, qa], [u1, qb], [u2, qc]] as const) {
    const got = await messages(rr, auth, q, 20);
    t.deepEqual(got.map((m) => m.id), sent, 'every message once, in order');
    t.deepEqual(got.map((m) => m.content), sent.map((_, i) => `m${i}`));
  }
  // Nothing more arrives: no doubles later.
  const more = await b!.get('/events', { auth: u1, query: { queue_id: qb, last_event_id: '-1', dont_block: 'true' } });
  t.is(more.json.events.filter((e: { type: string }) => e.type === 'message').length, 20);
});
