// Cluster messages larger than one NATS message may be: two processes on a NATS server of this file's own whose
// max_payload is 32 KiB (NATS's default is 1 MiB; a channel created with a thousand subscribers passes that).
import test from 'ava';
import { channelWith, newUser, startCluster, type Node, type TestCluster } from '../helpers/cluster.js';
import type { Client, Credentials } from '../helpers/http.js';
import type { Logger } from '../../src/log.js';
import { decode, encode, respondSafely, valueOf, type Answer } from '../../src/cluster/wire.js';

const MAX_PAYLOAD = 32 * 1024;

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(2, {}, { natsMaxPayload: MAX_PAYLOAD });
});

test.after.always(async () => {
  await cluster?.stop();
});

interface Event {
  id: number;
  type: string;
  op?: string;
  subscriptions?: { name: string }[];
  message?: { id: number; content: string };
}

/** Every event of the queue up to now (one non-blocking poll each time, from the last event taken), through `c`. */
async function drain(c: Client, auth: Credentials, queueId: string, until: (events: Event[]) => boolean): Promise<{ events: Event[]; answers: number[] }> {
  const events: Event[] = [];
  const answers: number[] = [];
  let last = -1;
  for (let round = 0; round < 200 && !until(events); round++) {
    const r = await c.get('/events', { auth, query: { queue_id: queueId, last_event_id: String(last), dont_block: 'true' } });
    if (r.status !== 200) throw new Error(`poll: ${r.status} ${r.text}`);
    const got = r.json.events as Event[];
    if (got.length > 0) answers.push(got.length);
    for (const e of got) {
      if (e.id <= last) throw new Error(`event ${e.id} again`);
      last = e.id;
      if (e.type !== 'heartbeat') events.push(e);
    }
    if (got.length === 0) await new Promise((r) => setTimeout(r, 50));
  }
  return { events, answers };
}

async function register(c: Client, auth: Credentials, eventTypes: string[]): Promise<string> {
  const r = await c.post('/register', { auth, form: { event_types: JSON.stringify(eventTypes) } });
  if (r.status !== 200) throw new Error(`register: ${r.text}`);
  return r.json.queue_id as string;
}

const logged = (n: Node, msg: string) => n.output().split('\n').filter((line) => line.includes(`"msg":"${msg}"`));

test.serial('a batch over NATS max_payload goes in parts and reaches the queues on the other process exactly once', async (t) => {
  const [a, b] = cluster.nodes as [Node, Node];
  const owner = cluster.owner;
  const ownerId = (await a.client.get('/users/me', { auth: owner })).json.user_id as number;
  const u1 = await newUser(a.client, owner, 'ines');
  const u2 = await newUser(a.client, owner, 'jonas');
  // Enough subscribers that the channel's creation (an event and a subscription for each) passes 32 KiB (about 440 bytes a subscriber).
  const others: number[] = [];
  for (let i = 0; i < 120; i += 20) {
    const made = await Promise.all(
      Array.from({ length: 20 }, (_, j) =>
        a.client.post('/users', { auth: owner, form: { email: `crowd${i + j}@cluster.example`, password: `crowd-pass-long-${i + j}`, full_name: `Crowd ${i + j}` } }),
      ),
    );
    for (const r of made) others.push(r.json.user_id as number);
  }
  // A queue on each process.
  const q1 = await register(a.client, u1, ['subscription', 'message']);
  const q2 = await register(b.client, u2, ['subscription', 'message']);

  await channelWith(a.client, owner, 'crowd', [ownerId, u1.id, u2.id, ...others]);
  const sent = await b.client.post('/messages', { auth: u2, form: { type: 'stream', to: 'crowd', topic: 'big', content: 'after the crowd' } });
  t.is(sent.status, 200, sent.text);

  const inParts = [...logged(a, 'batch published in parts'), ...logged(b, 'batch published in parts')];
  t.true(inParts.length >= 1, 'the creation batch was published in parts');
  t.true(inParts.some((line) => Number(/"bytes":(\d+)/.exec(line)?.[1]) > MAX_PAYLOAD && Number(/"parts":(\d+)/.exec(line)?.[1]) >= 2));
  for (const n of cluster.nodes) {
    t.deepEqual(logged(n, 'batch not published'), [], `${n.node}: nothing lost at publishing`);
    t.deepEqual(logged(n, 'realm batches missed: reloading, ending its queues here'), [], `${n.node}: no gap seen`);
  }
  for (const [c, auth, q] of [[a.client, u1, q1], [b.client, u2, q2]] as const) {
    const { events } = await drain(c, auth, q, (es) => es.some((e) => e.type === 'message'));
    const adds = events.filter((e) => e.type === 'subscription' && e.op === 'add' && e.subscriptions?.some((s) => s.name === 'crowd'));
    t.is(adds.length, 1, 'the subscription once');
    t.deepEqual(
      events.filter((e) => e.type === 'message').map((e) => e.message!.id),
      [sent.json.id],
      'the message once',
    );
  }
});

test.serial('a forwarded poll whose events pass NATS max_payload is answered in parts over several polls, each event once', async (t) => {
  const [a, b] = cluster.nodes as [Node, Node];
  const owner = cluster.owner;
  const reader = await newUser(a.client, owner, 'kira');
  const ownerId = (await a.client.get('/users/me', { auth: owner })).json.user_id as number;
  await channelWith(a.client, owner, 'long-reads', [ownerId, reader.id]);
  // The queue is held by b; every poll goes through a, which forwards it to b.
  const q = await register(b.client, reader, ['message']);
  const ids: number[] = [];
  for (let i = 0; i < 12; i++) {
    // About 9.5 KB each: together well over 32 KiB.
    const r = await a.client.post('/messages', { auth: owner, form: { type: 'stream', to: 'long-reads', topic: 'long', content: `${i} ${'word '.repeat(1900)}` } });
    t.is(r.status, 200, r.text);
    ids.push(r.json.id);
  }
  const { events, answers } = await drain(a.client, reader, q, (es) => es.filter((e) => e.type === 'message').length >= ids.length);
  t.deepEqual(
    events.filter((e) => e.type === 'message').map((e) => e.message!.id),
    ids,
    'every message once, in order',
  );
  t.true(answers.length >= 2, `more than one answer (${answers.join(', ')})`);
  t.true(answers.every((n) => n < ids.length), 'no answer carried them all');
});

test.serial('an answer over max_payload reaches its caller as a failure, not as a thrown error or a timeout', async (t) => {
  const { connect } = await import('@nats-io/transport-node');
  const responder = await connect({ servers: cluster.nats.url });
  const caller = await connect({ servers: cluster.nats.url });
  const errors: unknown[] = [];
  const log = { error: (o: unknown) => errors.push(o) } as unknown as Logger;
  try {
    responder.subscribe('large-answers.test', {
      callback: (_err, msg) => respondSafely(msg, encode({ ok: true, value: 'x'.repeat(MAX_PAYLOAD * 2) } satisfies Answer), log),
    });
    await responder.flush();
    const reply = await caller.request('large-answers.test', encode(null), { timeout: 5000 });
    const answer = decode<Answer>(reply.data);
    t.false(answer.ok);
    t.throws(() => valueOf(answer), { message: /could not be sent between processes/ });
    t.is(errors.length, 1, 'logged once');
  } finally {
    await responder.close();
    await caller.close();
  }
});
