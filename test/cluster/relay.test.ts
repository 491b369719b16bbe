// Cluster mode: polls and event sockets served on one process for a queue another process holds (forwarded polls
// and relayed sockets, src/cluster/socket-relay.ts): how they end, and what the holder keeps of them.
import test from 'ava';
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { EventSocket } from '../../src/client/event-socket.js';
import { OPERATOR_TOKEN, startCluster, type Node, type TestCluster } from '../helpers/cluster.js';
import { basicAuth } from '../helpers/http.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(2);
});

test.after.always(async () => {
  await cluster?.stop();
});

/** GET /events requests parked on a process (its metrics). */
async function parked(n: Node): Promise<number> {
  const r = await n.client.get('/metrics', { root: true, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } });
  const m = /^palaver_long_polls_parked(?:\{[^}]*\})? (\d+)$/m.exec(r.text);
  if (!m) throw new Error(`no palaver_long_polls_parked in:\n${r.text.slice(0, 500)}`);
  return Number(m[1]);
}

/** Waits (at most 30 s: a loaded CI machine runs three processes per cluster file) until `n` holds `count` parked
 *  polls; returns the last count seen. */
async function parkedReaches(n: Node, count: number): Promise<number> {
  let seen = await parked(n);
  for (let i = 0; i < 300 && seen !== count; i++) {
    await sleep(100);
    seen = await parked(n);
  }
  return seen;
}

/** A queue held by `holder` (its ID names it). */
async function queueOn(holder: Node): Promise<string> {
  const r = await holder.client.post('/register', { auth: cluster.owner, form: { event_types: JSON.stringify(['message']) } });
  if (r.status !== 200) throw new Error(`register: ${r.text}`);
  const queueId = r.json.queue_id as string;
  if (queueId.split(':')[0] !== holder.node) throw new Error(`${queueId} not held by ${holder.node}`);
  return queueId;
}

test.serial('a queue deleted on its holder while a relayed socket waits on it: the socket gets BAD_EVENT_QUEUE_ID and close 4404', async (t) => {
  const [a, b] = cluster.nodes;
  const queueId = await queueOn(a!);
  const socket = await EventSocket.connect({ base: `http://127.0.0.1:${b!.port}`, queueId, auth: cluster.owner });
  t.is(await parkedReaches(a!, 1), 1, "the relay's poll is held by the holder");
  const d = await a!.client.delete('/events', { auth: cluster.owner, form: { queue_id: queueId } });
  t.is(d.status, 200, d.text);
  const closed = await socket.closed;
  t.is(closed.code, 4404);
  t.is(closed.error?.code, 'BAD_EVENT_QUEUE_ID');
});

test.serial('a forwarded GET /events whose client goes away no longer holds the queue on its holder', async (t) => {
  const [a, b] = cluster.nodes;
  const queueId = await queueOn(a!);
  const req = http.get({
    host: '127.0.0.1',
    port: b!.port,
    path: `/api/v1/events?queue_id=${encodeURIComponent(queueId)}&last_event_id=-1`,
    headers: { authorization: basicAuth(cluster.owner.email, cluster.owner.apiKey) },
  });
  req.on('error', () => undefined);
  t.is(await parkedReaches(a!, 1), 1, 'the forwarded poll is held by the holder');
  req.destroy();
  // Without the abort forwarded, the holder would keep it parked until its heartbeat (60 s).
  t.is(await parkedReaches(a!, 0), 0, 'the holder let it go');
  await a!.client.delete('/events', { auth: cluster.owner, form: { queue_id: queueId } });
});

test.serial('a relayed socket whose client closes no longer holds the queue on its holder', async (t) => {
  const [a, b] = cluster.nodes;
  const queueId = await queueOn(a!);
  const socket = await EventSocket.connect({ base: `http://127.0.0.1:${b!.port}`, queueId, auth: cluster.owner });
  t.is(await parkedReaches(a!, 1), 1);
  await socket.close();
  t.is(await parkedReaches(a!, 0), 0, 'the holder let it go');
  await a!.client.delete('/events', { auth: cluster.owner, form: { queue_id: queueId } });
});

// Last: it stops the holder.
test.serial('the holder shutting down closes a relayed socket with 1001, as a direct socket at shutdown', async (t) => {
  const [a, b] = cluster.nodes;
  const queueId = await queueOn(a!);
  const before = await parked(a!);
  const socket = await EventSocket.connect({ base: `http://127.0.0.1:${b!.port}`, queueId, auth: cluster.owner });
  t.is(await parkedReaches(a!, before + 1), before + 1);
  a!.child.kill('SIGTERM');
  const closed = await socket.closed;
  t.is(closed.code, 1001);
  t.is(await a!.exited, 0);
});
