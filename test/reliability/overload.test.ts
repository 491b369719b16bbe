// Overload: slowloris sockets, connection floods and long-poll floods cannot exhaust the server's memory or stall other
// clients. The server runs as a child process so its memory (RSS) is its own. Slow readers of large replies and many
// large fetches at once: overload-large-replies.test.ts; the mixed load and its memory curve: overload-mixed.test.ts.
import test from 'ava';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import type { Credentials } from '../helpers/http.js';
import { addUsers, login, openSite, until, type ChildServer, type Site } from './child-server.js';

let site: Site;
let server: ChildServer;
let owner: Credentials;
let users: Credentials[];

test.before(async () => {
  site = await openSite({ env: { LOG_LEVEL: 'warn' } });
  server = await site.start({ LOG_LEVEL: 'info' });
  owner = await login(server.client);
  users = await addUsers(site, server, 3);
});
test.after.always(async () => {
  await server?.kill('SIGKILL');
  await site?.close();
});

/** The server's resident memory in MiB. */
function rssMib(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}

/** A normal client's requests while the attack goes on: all must be answered, and answered well. */
async function served(n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await server.client.as(users[0]!).get('/users/me')).status);
  return statuses;
}

function openSocket(): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: '127.0.0.1', port: server.port });
    s.once('connect', () => resolve(s));
    s.once('error', reject);
  });
}

test.serial('slowloris: sockets trickling request headers are closed by the server, other clients are served meanwhile', async (t) => {
  const sockets: net.Socket[] = [];
  let closed = 0;
  for (let i = 0; i < 300; i++) {
    const s = await openSocket();
    s.on('error', () => undefined);
    s.on('close', () => closed++);
    s.write('GET /api/v1/users/me HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    sockets.push(s);
  }
  // A header byte every 200 ms from each, never finishing the request.
  const trickle = setInterval(() => {
    for (const s of sockets) if (!s.destroyed) s.write('X');
  }, 200);
  try {
    const before = rssMib();
    const statuses = await served(50);
    t.true(statuses.every((x) => x === 200), 'other clients are served');
    await until(() => closed === sockets.length, 'every slowloris socket closed by the server', 120_000, 100);
    t.log(`RSS ${before.toFixed(0)} → ${rssMib().toFixed(0)} MiB`);
  } finally {
    clearInterval(trickle);
    for (const s of sockets) s.destroy();
  }
});

test.serial('connection flood: 2,000 connections opened at once from eight addresses do not stop other clients being served', async (t) => {
  const before = rssMib();
  const sockets = await Promise.all(
    Array.from({ length: 2000 }, (_, i) =>
      new Promise<net.Socket | null>((resolve) => {
        // From 127.0.0.1 … 127.0.0.8 (all of 127/8 is loopback): several sources, as a distributed flood.
        const s = net.connect({ host: '127.0.0.1', port: server.port, localAddress: `127.0.0.${1 + (i % 8)}` });
        s.once('connect', () => resolve(s));
        s.once('error', () => resolve(null));
      }),
    ),
  );
  try {
    const open = sockets.filter((s) => s !== null).length;
    t.is(new Set(sockets.map((s) => s?.localAddress).filter(Boolean)).size, 8, 'connections from eight source addresses');
    const statuses = await served(30);
    const during = rssMib();
    t.log(`${open} of 2000 connections open; RSS ${before.toFixed(0)} → ${during.toFixed(0)} MiB`);
    // Otherwise the flood never happened and the rest proves nothing.
    t.is(open, 2000, 'every flood connection was open while the others were served');
    t.true(statuses.every((x) => x === 200), 'other clients are served');
    t.true(during - before < 100, `RSS grew ${(during - before).toFixed(0)} MiB for idle connections`);
  } finally {
    for (const s of sockets) s?.destroy();
  }
});

test.serial('long-poll flood: one user parks a poll on each of 300 queues; other clients are served, memory stays small', async (t) => {
  const flooder = server.client.as(users[1]!);
  const before = rssMib();
  const queues: { queue_id: string; last_event_id: number }[] = [];
  const refused: number[] = [];
  for (let i = 0; i < 300; i++) {
    const r = await flooder.post('/register', { form: { event_types: '["message"]' } });
    if (r.status === 200) queues.push(r.json);
    else refused.push(r.status);
  }
  const polls = queues.map((q) =>
    flooder.get('/events', { query: { queue_id: q.queue_id, last_event_id: String(q.last_event_id) } }).catch(() => null),
  );
  const statuses = await served(30);
  const during = rssMib();
  t.log(`${queues.length} queues registered by one user (${refused.length} refused), each with a parked poll: RSS ${before.toFixed(0)} → ${during.toFixed(0)} MiB`);
  t.true(statuses.every((x) => x === 200), 'other clients are served');
  t.true(during - before < 100, `RSS grew ${(during - before).toFixed(0)} MiB`);
  // A message reaches every parked poll.
  await server.client.as(users[0]!).post('/messages', { form: { type: 'direct', to: JSON.stringify([(users[1] as { id: number } & Credentials).id]), content: 'wake up' } });
  const answered = await Promise.all(polls);
  t.true(answered.every((r) => r?.status === 200 && r.json.events.some((e: any) => e.type === 'message')));
});
