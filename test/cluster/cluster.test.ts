// Cluster mode: three Palaver processes on one PostgreSQL and NATS (test/helpers/cluster.ts).
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { EventSocket } from '../../src/client/event-socket.js';
import { haveChromium, launchChromium } from '../helpers/browser.js';
import { channelWith, newUser, OPERATOR_TOKEN, startCluster, type TestCluster } from '../helpers/cluster.js';
import { registerDuringAdds } from '../helpers/register-race.js';
import { socketEnd } from '../helpers/socket-end.js';
import type { Client, Credentials } from '../helpers/http.js';

let cluster: TestCluster;

test.before(async () => {
  cluster = await startCluster(3);
});

test.after.always(async () => {
  await cluster?.stop();
});

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
  await channelWith(rr, owner, 'fanout', [(await rr.get('/users/me', { auth: owner })).json.user_id, u1.id, u2.id]);
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

test.serial('a client whose every request goes to another process sees the same history, unread counts and events', async (t) => {
  const rr = cluster.roundRobin();
  const owner = cluster.owner;
  const reader = await newUser(rr, owner, 'wanda');
  const ownerId = (await rr.get('/users/me', { auth: owner })).json.user_id as number;
  await channelWith(rr, owner, 'roundrobin', [ownerId, reader.id]);
  const q = (await rr.post('/register', { auth: reader, form: { event_types: JSON.stringify(['message', 'update_message_flags']) } })).json.queue_id as string;
  const ids: number[] = [];
  for (let i = 0; i < 9; i++) {
    const r = await rr.post('/messages', { auth: owner, form: { type: 'stream', to: 'roundrobin', topic: 'rr', content: `rr${i}` } });
    t.is(r.status, 200, r.text);
    ids.push(r.json.id);
  }
  // Every process answers the same history and unread counts.
  const narrow = JSON.stringify([{ operator: 'channel', operand: 'roundrobin' }]);
  const views = [];
  for (const n of cluster.nodes) {
    const h = await n.client.get('/messages', { auth: reader, query: { anchor: 'oldest', num_before: '0', num_after: '100', narrow, apply_markdown: 'false' } });
    const unread = await n.client.post('/register', { auth: reader, form: { fetch_event_types: JSON.stringify(['message', 'update_message_flags']), event_types: JSON.stringify(['message']) } });
    views.push({ history: h.json.messages.map((m: { id: number; content: string }) => [m.id, m.content]), unread: unread.json.unread_msgs?.count });
    await n.client.delete('/events', { auth: reader, form: { queue_id: unread.json.queue_id } });
  }
  t.deepEqual(views[0]!.history, ids.map((id, i) => [id, `rr${i}`]));
  for (const v of views.slice(1)) t.deepEqual(v, views[0]);
  // Marking read through one process is seen by the others.
  const flags = await rr.post('/messages/flags', { auth: reader, form: { messages: JSON.stringify(ids.slice(0, 4)), op: 'add', flag: 'read' } });
  t.is(flags.status, 200, flags.text);
  const counts: number[] = [];
  for (const n of cluster.nodes) {
    const r = await n.client.post('/register', { auth: reader, form: { fetch_event_types: JSON.stringify(['message', 'update_message_flags']), event_types: JSON.stringify(['message']) } });
    counts.push(r.json.unread_msgs.count);
    await n.client.delete('/events', { auth: reader, form: { queue_id: r.json.queue_id } });
  }
  t.deepEqual(counts, counts.map(() => counts[0]));
  t.is(counts[0], views[0]!.unread - 4);
  // The events, polled through every process in turn: each message once, in order, then the flag change.
  const got: string[] = [];
  let last = -1;
  while (!got.includes('flags')) {
    const r = await rr.get('/events', { auth: reader, query: { queue_id: q, last_event_id: String(last) } });
    t.is(r.status, 200, r.text);
    for (const e of r.json.events) {
      last = Math.max(last, e.id);
      if (e.type === 'message') got.push(String(e.message.id));
      if (e.type === 'update_message_flags') got.push('flags');
    }
  }
  t.deepEqual(got, [...ids.map(String), 'flags']);
  // DELETE /events through another process than the holder ends the queue.
  t.is((await rr.delete('/events', { auth: reader, form: { queue_id: q } })).status, 200);
  const gone = await rr.get('/events', { auth: reader, query: { queue_id: q, last_event_id: String(last), dont_block: 'true' } });
  t.is(gone.json.code, 'BAD_EVENT_QUEUE_ID');
});

test.serial('register while messages are sent through another process: each message once, in the snapshot or as an event', async (t) => {
  const [a, b, c] = cluster.nodes;
  const owner = cluster.owner;
  const reader = await newUser(a!.client, owner, 'rita');
  const ownerId = (await a!.client.get('/users/me', { auth: owner })).json.user_id as number;
  await channelWith(a!.client, owner, 'racing', [ownerId, reader.id]);
  // Messages sent through A, one after another, while the reader registers again and again through B and C.
  const sent: number[] = [];
  let sending = true;
  const sender = (async () => {
    for (let i = 0; sending; i++) {
      const r = await a!.client.post('/messages', { auth: owner, form: { type: 'stream', to: 'racing', topic: 'r', content: `race ${i}` } });
      if (r.status !== 200) throw new Error(r.text);
      sent.push(r.json.id);
    }
  })();
  const registrations: { client: Client; queueId: string; unread: Set<number>; maxId: number }[] = [];
  try {
    while (sent.length < 3) await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 16; i++) {
      const client = (i % 2 ? c : b)!.client;
      const r = await client.post('/register', {
        auth: reader,
        form: { event_types: JSON.stringify(['message']), fetch_event_types: JSON.stringify(['message', 'update_message_flags']) },
      });
      t.is(r.status, 200, r.text);
      const unread = new Set<number>((r.json.unread_msgs.streams as { unread_message_ids: number[] }[]).flatMap((s) => s.unread_message_ids));
      registrations.push({ client, queueId: r.json.queue_id, unread, maxId: r.json.max_message_id });
      t.is(r.json.last_event_id, -1);
    }
  } finally {
    sending = false;
    await sender;
  }
  const last = sent[sent.length - 1]!;
  for (const reg of registrations) {
    // Every event of the queue, up to the last message sent.
    const events: number[] = [];
    for (let lastId = -1; !events.includes(last); ) {
      const r = await reg.client.get('/events', { auth: reader, query: { queue_id: reg.queueId, last_event_id: String(lastId) } });
      t.is(r.status, 200, r.text);
      for (const e of r.json.events) {
        lastId = Math.max(lastId, e.id);
        if (e.type === 'message') events.push(e.message.id);
      }
    }
    const both = events.filter((id) => reg.unread.has(id));
    t.deepEqual(both, [], 'no message both in the snapshot and as an event');
    t.deepEqual(events, [...new Set(events)], 'no event twice');
    const union = new Set([...reg.unread, ...events]);
    t.deepEqual(sent.filter((id) => !union.has(id)), [], 'no message missing');
    t.true(events.every((id) => id > reg.maxId), 'events only after max_message_id');
    await reg.client.delete('/events', { auth: reader, form: { queue_id: reg.queueId } });
  }
});

test.serial('register while drafts, snippets and scheduled messages are added through another process: each row once, in the snapshot or as an add event', async (t) => {
  const [a, b, c] = cluster.nodes;
  const writer = await newUser(a!.client, cluster.owner, 'wanda');
  await registerDuringAdds(t, { writer: a!.client, registrars: [b!.client, c!.client], auth: writer, userId: writer.id, registrations: 16 });
});

test.serial('a scheduled message is delivered exactly once across the processes', async (t) => {
  const rr = cluster.roundRobin();
  const owner = cluster.owner;
  const ownerId = (await rr.get('/users/me', { auth: owner })).json.user_id as number;
  await channelWith(rr, owner, 'later', [ownerId]);
  const channelId = (await rr.get('/get_stream_id', { auth: owner, query: { stream: 'later' } })).json.stream_id as number;
  const at = Math.floor(Date.now() / 1000) + 3;
  for (let i = 0; i < 3; i++) {
    const r = await rr.post('/scheduled_messages', {
      auth: owner,
      form: { type: 'stream', to: String(channelId), topic: 'sched', content: `scheduled ${i}`, scheduled_delivery_timestamp: String(at) },
    });
    t.is(r.status, 200, r.text);
  }
  const narrow = JSON.stringify([{ operator: 'channel', operand: 'later' }]);
  const contents = async () =>
    ((await rr.get('/messages', { auth: owner, query: { anchor: 'oldest', num_before: '0', num_after: '100', narrow, apply_markdown: 'false' } })).json.messages as { content: string }[]).map((m) => m.content);
  for (const deadline = Date.now() + 60_000; (await contents()).length < 3 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 250));
  // Time for a second delivery by another process, were there one.
  await new Promise((r) => setTimeout(r, 3000));
  t.deepEqual((await contents()).sort(), ['scheduled 0', 'scheduled 1', 'scheduled 2']);
  const left = await rr.get('/scheduled_messages', { auth: owner });
  t.deepEqual(left.json.scheduled_messages, []);
});

test.serial('operators: every series names its node; every process tells which node owns the realm; readiness covers the cluster', async (t) => {
  const headers = { authorization: `Bearer ${OPERATOR_TOKEN}` };
  const views: Record<string, unknown>[] = [];
  for (const n of cluster.nodes) {
    t.is((await n.client.get('/users/me', { auth: cluster.owner })).status, 200);
    const metrics = await n.client.get('/metrics', { root: true, headers });
    t.is(metrics.status, 200);
    t.true(metrics.text.includes(`palaver_http_requests_total{method=`), 'request series present');
    const lines = metrics.text.split('\n').filter((l) => l.startsWith('palaver_http_requests_total{'));
    t.true(lines.length > 0 && lines.every((l) => l.includes(`node="${n.node}"`)), 'labelled with the node');
    const overview = await n.client.get('/operators/cluster', { root: true, headers });
    t.is(overview.status, 200, overview.text);
    t.is(overview.json.node, n.node);
    views.push(overview.json);
    const ready = await n.client.get('/health/ready', { root: true });
    t.is(ready.status, 200, ready.text);
    t.true(ready.json.checks.cluster.ok);
  }
  const owners = views[0]!.realm_owners as Record<string, string>;
  t.true(Object.keys(owners).length >= 1);
  for (const owner of Object.values(owners)) t.true(cluster.nodes.some((n) => n.node === owner));
  for (const v of views.slice(1)) t.deepEqual(v.realm_owners, owners);
  t.true(cluster.nodes.some((n) => n.node === views[0]!.once_only));
  // The actor API lists every process's actors, each naming its node, and which node owns which realm.
  const [a, b, c] = cluster.nodes;
  const roots = await b!.client.get('/operators/actors', { root: true, headers, query: { kind: 'root', all_nodes: 'true' } });
  t.is(roots.status, 200, roots.text);
  t.deepEqual((roots.json.actors as { node: string }[]).map((r) => r.node).sort(), cluster.nodes.map((n) => n.node).sort());
  // A queue registered on C shows in the listing asked of A, under C's name, and nowhere else.
  const q = (await c!.client.post('/register', { auth: cluster.owner, form: { event_types: JSON.stringify(['message']) } })).json.queue_id as string;
  const all = await a!.client.get('/operators/actors', { root: true, headers, query: { all_nodes: 'true' } });
  t.is(all.status, 200, all.text);
  const rows = all.json.actors as { node: string; id: string; kind: string }[];
  t.deepEqual(rows.filter((r) => r.id === `queue:${q}`).map((r) => r.node), [c!.node]);
  t.deepEqual(all.json.nodes.slice().sort(), cluster.nodes.map((n) => n.node).sort());
  for (const n of [b!, c!]) t.true(rows.some((r) => r.node === n.node && r.kind === 'root'), `${n.node}'s actors listed on A`);
  t.deepEqual(all.json.realm_owners, owners);
  const total = (all.json.counts as { count: number }[]).reduce((m, x) => m + x.count, 0);
  t.is(total, all.json.matched, 'the counts are every node\'s');
  const realms = await a!.client.get('/operators/actors', { root: true, headers, query: { kind: 'realm', all_nodes: 'true' } });
  const [realmId, ownerNode] = Object.entries(owners)[0]!;
  t.true((realms.json.actors as { node: string; id: string }[]).some((r) => r.node === ownerNode && r.id === `realm:${realmId}`));
  await c!.client.delete('/events', { auth: cluster.owner, form: { queue_id: q } });
});

(haveChromium ? test.serial : test.skip)("the dashboard on one process shows every node's actors and which node owns which realm", async (t) => {
  const [a, b, c] = cluster.nodes;
  const owners = (await a!.client.get('/operators/cluster', { root: true, headers: { authorization: `Bearer ${OPERATOR_TOKEN}` } })).json.realm_owners as Record<string, string>;
  // A queue held by C, to find in A's table.
  const q = (await c!.client.post('/register', { auth: cluster.owner, form: { event_types: JSON.stringify(['message']) } })).json.queue_id as string;
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    await page.goto(`http://127.0.0.1:${a!.port}/operators/dashboard#token=${OPERATOR_TOKEN}`);
    await page.waitForSelector('#status.live');
    await page.waitForSelector('#cluster:not([hidden])');
    await page.waitForFunction((n) => document.querySelectorAll('#node-rows tr').length === n, cluster.nodes.length);
    const shown = await page.$$eval('#node-rows tr', (trs) => Object.fromEntries(trs.map((tr) => [tr.getAttribute('data-node'), tr.getAttribute('data-realms')])));
    t.deepEqual(Object.keys(shown).sort(), cluster.nodes.map((n) => n.node).sort());
    for (const [realm, node] of Object.entries(owners)) t.true(shown[node]!.split(',').includes(realm), `realm ${realm} shown as ${node}'s`);
    // Every node's actors in the table, C's queue under C's name.
    await page.fill('#f-q', q);
    await page.waitForSelector(`#actor-rows tr[data-id="queue:${q}"][data-node="${c!.node}"]`);
    await page.fill('#f-q', '');
    await page.selectOption('#f-kind', 'root');
    await page.waitForFunction(() => {
      const rows = [...document.querySelectorAll('#actor-rows tr')];
      return rows.length === 3 && rows.every((r) => r.getAttribute('data-kind') === 'root');
    });
    const rootNodes = await page.$$eval('#actor-rows tr', (trs) => trs.map((tr) => tr.getAttribute('data-node')));
    t.deepEqual(rootNodes.sort(), [a!.node, b!.node, c!.node].sort());
    t.deepEqual(problems, []);
  } finally {
    await browser.close();
    await c!.client.delete('/events', { auth: cluster.owner, form: { queue_id: q } });
  }
});

test.serial('presence is the same from every process', async (t) => {
  const [a, b, c] = cluster.nodes.map((n) => n.client);
  const owner = cluster.owner;
  const pinger = await newUser(a!, owner, 'pia');
  const ping = await b!.post('/users/me/presence', { auth: pinger, form: { status: 'active' } });
  t.is(ping.status, 200, ping.text);
  const views = [];
  for (const client of [a!, b!, c!]) {
    const all = await client.get('/realm/presence', { auth: owner });
    t.is(all.status, 200, all.text);
    const one = await client.get(`/users/${pinger.id}/presence`, { auth: owner });
    t.is(one.status, 200, one.text);
    views.push({ active: Boolean(all.json.presences[pinger.email]?.aggregated?.status === 'active'), one: one.json.presence.aggregated.status });
  }
  t.deepEqual(views, [
    { active: true, one: 'active' },
    { active: true, one: 'active' },
    { active: true, one: 'active' },
  ]);
});

test.serial('a queue ID no process made is BAD_EVENT_QUEUE_ID on every process', async (t) => {
  for (const n of cluster.nodes) {
    for (const queueId of ['nope', 'x.>:1', '*:2', `gone-${n.node}:3`]) {
      const r = await n.client.get('/events', { auth: cluster.owner, query: { queue_id: queueId, dont_block: 'true' } });
      t.is(r.status, 400, `${queueId}: ${r.text}`);
      t.is(r.json.code, 'BAD_EVENT_QUEUE_ID');
      const d = await n.client.delete('/events', { auth: cluster.owner, form: { queue_id: queueId } });
      t.is(d.json.code, 'BAD_EVENT_QUEUE_ID');
    }
  }
});

test.serial('an event socket opened on a process that does not hold its queue is relayed from the holder', async (t) => {
  const [a, b, c] = cluster.nodes;
  const owner = cluster.owner;
  const me = (await a!.client.get('/users/me', { auth: owner })).json.user_id as number;
  await channelWith(a!.client, owner, 'relayed', [me]);
  const queueId = (await a!.client.post('/register', { auth: owner, form: { event_types: JSON.stringify(['message']), apply_markdown: 'false' } })).json.queue_id as string;
  t.is(queueId.split(':')[0], a!.node, 'the queue is held by A');
  // The socket is opened on B, the message sent through C: the events come from A's queue through B.
  const socket = await EventSocket.connect({ base: `http://127.0.0.1:${b!.port}`, queueId, auth: owner });
  const sent: number[] = [];
  for (let i = 0; i < 3; i++) {
    const r = await c!.client.post('/messages', { auth: owner, form: { type: 'stream', to: 'relayed', topic: 't', content: `s${i}` } });
    t.is(r.status, 200, r.text);
    sent.push(r.json.id);
  }
  const got: number[] = [];
  while (got.length < sent.length) {
    const frame = await socket.next(30_000);
    if (!frame) break;
    for (const e of frame.events) if (e.type === 'message') got.push((e.message as { id: number }).id);
  }
  t.deepEqual(got, sent, 'every message once, in order, through the relay');
  await socket.close();
  // The queue goes on where the socket left off: a poll on its holder sees nothing of it again.
  const after = await a!.client.get('/events', { auth: owner, query: { queue_id: queueId, last_event_id: String(socket.lastEventId), dont_block: 'true' } });
  t.is(after.status, 200, after.text);
  t.is(after.json.events.filter((e: { type: string }) => e.type === 'message').length, 0);

  // A queue no process holds: the error frame BAD_EVENT_QUEUE_ID, then close 4404, from any process.
  const gone = await EventSocket.connect({ base: `http://127.0.0.1:${b!.port}`, queueId: `${c!.node}:999999`, auth: owner });
  const closed = await gone.closed;
  t.is(closed.code, 4404, JSON.stringify(closed));
  t.is(closed.error?.code, 'BAD_EVENT_QUEUE_ID');
});

test.serial('a browser ticket issued by any process opens the socket on any other, once across the cluster', async (t) => {
  const nodes = cluster.nodes;
  const owner = cluster.owner;
  const me = (await nodes[0]!.client.get('/users/me', { auth: owner })).json.user_id as number;
  await channelWith(nodes[0]!.client, owner, 'ticketed', [me]);
  const queueId = (await nodes[0]!.client.post('/register', { auth: owner, form: { event_types: JSON.stringify(['message']), apply_markdown: 'false' } })).json.queue_id as string;
  t.is(queueId.split(':')[0], nodes[0]!.node, 'the queue is held by the first process');
  let lastEventId = -1;
  for (let i = 0; i < nodes.length; i++) {
    // Issued by process i (the holder, or one that asks it), the upgrade taken by the next one (as a round-robin
    // balancer would send it).
    const issuer = nodes[i]!;
    const opener = nodes[(i + 1) % nodes.length]!;
    const issued = await issuer.client.post('/events/socket/ticket', { auth: owner, form: { queue_id: queueId } });
    t.is(issued.status, 200, `${issuer.node}: ${issued.text}`);
    const ticket = issued.json.ticket as string;
    t.false(ticket.includes(owner.apiKey));
    const socket = await EventSocket.connect({ base: `http://127.0.0.1:${opener.port}`, queueId, ticket, lastEventId });
    const sent = await nodes[2]!.client.post('/messages', { auth: owner, form: { type: 'stream', to: 'ticketed', topic: 't', content: `ticket ${i}` } });
    t.is(sent.status, 200, sent.text);
    let got: number | undefined;
    while (got === undefined) {
      const frame = await socket.next(30_000);
      if (!frame) break;
      for (const e of frame.events) if (e.type === 'message') got = (e.message as { id: number }).id;
    }
    t.is(got, sent.json.id, `the socket opened on ${opener.node} with ${issuer.node}'s ticket delivers${got === undefined ? `: ${await socketEnd(socket)}` : ''}`);
    lastEventId = socket.lastEventId;
    await socket.close();
    // Spent: a replay is refused on every process, the one that took it included.
    for (const n of nodes) {
      const replay = await t.throwsAsync(EventSocket.connect({ base: `http://127.0.0.1:${n.port}`, queueId, ticket, lastEventId }));
      t.is((replay as unknown as { status: number }).status, 401, `replay on ${n.node}`);
    }
  }
  // Another user gets no ticket for this queue from any process.
  const other = await newUser(nodes[1]!.client, owner, 'tina');
  for (const n of nodes) {
    const foreign = await n.client.post('/events/socket/ticket', { auth: other, form: { queue_id: queueId } });
    t.is(foreign.json.code, 'BAD_EVENT_QUEUE_ID', `no ticket for another user's queue from ${n.node}`);
  }
  await nodes[0]!.client.delete('/events', { auth: owner, form: { queue_id: queueId } });
});

test.serial("the admin CLI's changes are seen by every process", async (t) => {
  const email = `cli-${Date.now().toString(36)}@cluster.example`;
  const { stdout } = await promisify(execFile)(process.execPath, ['dist/src/cli/main.js', 'create-user', '--email', email, '--full-name', 'Cli User'], {
    env: { ...process.env, DATABASE_URL: cluster.db.url },
  });
  const created = JSON.parse(stdout) as { api_key: string };
  const auth = { email, apiKey: created.api_key };
  // Every process picks the change up (its change watcher; the realm's owner reloads and the others follow).
  for (const n of cluster.nodes) {
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      status = (await n.client.get('/users/me', { auth })).status;
      if (status !== 200) await new Promise((r) => setTimeout(r, 200));
    }
    t.is(status, 200, `process ${n.node} knows the user the CLI made`);
  }
});
