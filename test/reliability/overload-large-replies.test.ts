// Large replies under overload, against a child server whose heap is capped (so memory that is not bounded ends
// the process instead of going unnoticed). Slow readers use a small receive buffer (so the kernel cannot absorb the
// reply): the bytes waiting for them stay within PENDING_REPLY_BYTES — beyond it large replies are refused with a
// 503 and Retry-After — a client that takes nothing for WRITE_STALL_MS is disconnected, one that keeps reading is
// not. Many large GET /messages at once are built a few at a time (LARGE_FETCH_*), the rest wait or are refused.
// Other clients are served throughout.
import test, { type ExecutionContext } from 'ava';
import { readFileSync } from 'node:fs';
import { basicAuth, type Credentials } from '../helpers/http.js';
import { addUsers, login, makeChannel, openSite, until, type ChildServer, type Site, type SiteUser } from './child-server.js';
import { slowClient, type SlowClient } from './overload-clients.js';

const WRITE_STALL_MS = 3000;
/** uWebSockets' HTTP idle timeout (HTTP_IDLE_TIMEOUT_S), which also applies to a write that makes no progress. */
const UWS_IDLE_TIMEOUT_MS = 10_000;
/** The child's V8 heap limit, MiB. Building a ~7 MiB reply takes ~20 MiB of live heap: with the default four large
 *  fetches built at once the server lives within it; with thirty at once (no limit) it runs out of memory. */
const HEAP_MIB = 192;
let site: Site;
let server: ChildServer;
let users: SiteUser[];
/** The large reply: every message of a channel of ~9.9 KB messages, several MiB. */
let path: string;
let size: number;
let budget: number;

test.before(async () => {
  // Info level: the child's "listening" line tells its port.
  site = await openSite();
  server = await site.start();
  const owner: Credentials = await login(server.client);
  users = await addUsers(site, server, 3);
  const channelId = await makeChannel(server, owner, 'slow readers', users.map((u) => u.id));
  const sender = server.client.as(users[1]!);
  const content = 'y'.repeat(9900);
  await Promise.all(
    Array.from({ length: 4 }, async (_, lane) => {
      for (let i = lane; i < 700; i += 4) {
        const r = await sender.post('/messages', { form: { type: 'stream', to: String(channelId), topic: 'big', content: `${i} ${content}` } });
        if (r.status !== 200) throw new Error(r.text);
      }
    }),
  );
  const narrow = encodeURIComponent(JSON.stringify([{ operator: 'channel', operand: channelId }]));
  path = `/api/v1/messages?anchor=newest&num_before=1000&num_after=0&narrow=${narrow}`;
  size = Buffer.byteLength((await server.client.as(users[0]!).get(path)).text);
  // Room for two such replies waiting, not three.
  budget = Math.floor(2.5 * size);
  await restart({ WRITE_STALL_MS: String(WRITE_STALL_MS) });
});
test.after.always(async () => {
  await server?.kill('SIGKILL');
  await site?.close();
});

/** The server again on the same data, with the heap cap and the small budget; unless `env` says otherwise large
 *  fetches are not limited per user (every slow reader is the same user), so what refuses them is the budget. */
async function restart(env: Record<string, string>): Promise<void> {
  await server.kill('SIGTERM');
  server = await site.start({
    NODE_OPTIONS: `--max-old-space-size=${HEAP_MIB}`,
    PENDING_REPLY_BYTES: String(budget),
    LARGE_FETCH_PER_USER: '100',
    LARGE_FETCH_QUEUE: '100',
    ...env,
  });
}

/** The server process is still the one started (not dead of an out-of-memory abort). */
function alive(): boolean {
  return server.child.exitCode === null && server.child.signalCode === null;
}

/** The server's resident memory in MiB; 0 once it has exited. */
function rssMib(): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.child.pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

function client(mode: 'stall' | 'trickle', who = users[2]!): SlowClient {
  return slowClient({
    port: server.port,
    path,
    authorization: basicAuth(who.email, who.apiKey),
    mode,
    // The kernel wakes a writer only once a good part of its send buffer (which grows to megabytes over loopback)
    // is free, so a client counts as reading when it takes about a megabyte per WRITE_STALL_MS: this one takes up to
    // 1 MiB/s, and needs several seconds (more than WRITE_STALL_MS) for the whole reply.
    receiveBuffer: mode === 'stall' ? 4096 : 131072,
    pauseSeconds: 0.25,
    chunk: 262144,
  });
}

async function served(n: number): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < n; i++) statuses.push((await server.client.as(users[0]!).get('/users/me')).status);
  return statuses;
}

test.serial('the reply is larger than what the kernel can hold for a client with a small receive buffer', (t) => {
  t.log(`reply ${(size / 1048576).toFixed(1)} MiB, budget ${(budget / 1048576).toFixed(1)} MiB`);
  // The server's send buffer grows to at most net.ipv4.tcp_wmem's maximum; the client's is a few KiB.
  const wmemMax = Number(readFileSync('/proc/sys/net/ipv4/tcp_wmem', 'utf8').trim().split(/\s+/)[2]);
  t.true(size > wmemMax + 1024 * 1024, `reply ${size} bytes vs tcp_wmem max ${wmemMax}`);
});

test.serial('a client that takes nothing is disconnected after WRITE_STALL_MS; a slow one that keeps reading is not; beyond the budget large replies get 503', async (t) => {
  const staller = client('stall');
  const trickler = client('trickle');
  try {
    t.is((await staller.head).status, 200);
    t.is((await trickler.head).status, 200);
    // Two replies wait for their clients: the budget has no room for a third large reply…
    const refused = await server.client.as(users[0]!).get(path);
    t.is(refused.status, 503);
    t.is(refused.json.result, 'error');
    t.is(refused.json.code, 'SERVICE_UNAVAILABLE');
    t.is(refused.headers['retry-after'], '5');
    t.regex(refused.json.msg, /busy sending large replies/);
    // …while other requests are served.
    t.deepEqual(await served(20), Array(20).fill(200));
    // The stalled client is disconnected, which gives its share back: a large reply is served again (the trickling
    // client still holds its own).
    await until(async () => (await server.client.as(users[0]!).get(path)).status === 200, 'a large reply served again', 60_000, 250);
    staller.go();
    const stalled = await staller.end;
    t.true(stalled.ended === 'eof' || stalled.ended === 'reset', `stalled client: ${JSON.stringify(stalled)}`);
    t.true(stalled.body < stalled.contentLength, `stalled client got ${stalled.body} of ${stalled.contentLength}`);
    trickler.go();
    const slow = await trickler.end;
    t.is(slow.ended, 'complete', JSON.stringify(slow));
    t.is(slow.body, slow.contentLength);
  } finally {
    staller.kill();
    trickler.kill();
  }
});

test.serial('a client that takes nothing is kept for WRITE_STALL_MS, also beyond the 10 s after which uWS would close it', async (t) => {
  await restart({ WRITE_STALL_MS: '600000' });
  const staller = client('stall');
  try {
    t.is((await staller.head).status, 200);
    // uWS closes a connection whose write makes no progress for its HTTP idle timeout (10 s) unless the server renews it.
    await new Promise((r) => setTimeout(r, UWS_IDLE_TIMEOUT_MS + 2000));
    staller.go();
    const end = await staller.end;
    t.is(end.ended, 'complete', JSON.stringify(end));
    t.is(end.body, end.contentLength);
  } finally {
    staller.kill();
  }
});

/** 30 clients ask for the large reply at once and read nothing until told to; the server's RSS is sampled meanwhile. */
async function wave(t: ExecutionContext): Promise<{ before: number; peak: number }> {
  const before = rssMib();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMib())), 20);
  const readers = Array.from({ length: 30 }, () => client('stall'));
  try {
    const heads = await Promise.all(readers.map((r) => r.head));
    const statuses = await served(20);
    const waiting = heads.filter((h) => h.status === 200).length;
    const shed = heads.filter((h) => h.status === 503);
    t.log(`${waiting} waiting, ${shed.length} refused; RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB (reply ${(size / 1048576).toFixed(1)} MiB)`);
    t.is(waiting, 2);
    t.is(shed.length, 28);
    for (const h of shed) {
      t.is(h.headers['retry-after'], '5');
      t.like(JSON.parse(h.text), { result: 'error', code: 'SERVICE_UNAVAILABLE' });
      t.regex(JSON.parse(h.text).msg, /busy sending large replies/);
    }
    t.deepEqual(statuses, Array(20).fill(200), 'other clients are served');
    for (const r of readers) r.go();
    const ends = await Promise.all(readers.map((r) => r.end));
    t.true(ends.every((e) => e.ended === 'complete'), JSON.stringify(ends.filter((e) => e.ended !== 'complete')));
    return { before, peak };
  } finally {
    clearInterval(sampler);
    for (const r of readers) r.kill();
  }
}

test.serial('30 clients asking for the large reply and reading nothing: two wait within the budget, the rest are refused with 503; memory stays bounded; others are served', async (t) => {
  // No disconnection of stalled clients here: what bounds memory is the budget alone. Replies are built one at a time:
  // several ~7 MiB narrows read at once by a busy server can outlast the narrow's statement timeout on a loaded
  // machine, and be refused for that rather than by the budget.
  await restart({ WRITE_STALL_MS: '600000', LARGE_FETCH_SLOTS: '1' });
  const waves = [await wave(t), await wave(t), await wave(t)];
  t.log(`RSS peaks of three waves: ${waves.map((w) => w.peak.toFixed(0)).join(', ')} MiB`);
  // Held, the 30 replies would be 30 × the reply (~210 MiB, more than the heap may hold): the budget keeps two and
  // replies are built one at a time. RSS also shows garbage of the replies built and refused, which V8 collects
  // lazily: the first wave grows the heap, the next ones reuse it.
  t.true(alive(), server.output().slice(-2000));
  const [first, ...later] = waves.map((w) => w.peak);
  t.true(Math.max(...later) < first! * 1.3, `peaks ${waves.map((w) => w.peak.toFixed(0)).join(', ')} MiB`);
});

test.serial('40 large GET /messages at once from four users: a few built at a time, each user limited, the rest refused with 503 + Retry-After; the server lives within its heap', async (t) => {
  // The default budget and slots; a short wait queue so that both limits show.
  await restart({ PENDING_REPLY_BYTES: String(64 * 1024 * 1024), LARGE_FETCH_PER_USER: '4', LARGE_FETCH_QUEUE: '8' });
  const before = rssMib();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMib())), 20);
  try {
    const who = [users[0]!, users[1]!, users[2]!, (await addUsers(site, server, 1))[0]!];
    // The first user asks ten times at once, then the three others ten times each.
    const order = [...Array(10).fill(0), ...Array.from({ length: 30 }, (_, i) => 1 + (i % 3))];
    const replies = await Promise.all(order.map((u) => server.client.as(who[u]!).get(path)));
    const small = await served(20);
    const ok = replies.filter((r) => r.status === 200);
    const shed = replies.filter((r) => r.status === 503);
    const yours = shed.filter((r) => /of yours/.test(r.json.msg));
    const busy = shed.filter((r) => /busy with large message fetches/.test(r.json.msg));
    t.log(`${ok.length} served, ${yours.length} refused per user, ${busy.length} refused for the server; RSS ${before.toFixed(0)} → peak ${peak.toFixed(0)} MiB`);
    t.is(ok.length + shed.length, 40);
    for (const r of ok) t.is(r.json.messages.length, 700);
    for (const r of shed) {
      t.like(r.json, { result: 'error', code: 'SERVICE_UNAVAILABLE' });
      t.is(r.headers['retry-after'], '2');
    }
    // Ten at once from the first user: at most four of theirs are admitted while the first is being built; then the
    // others' fill the four slots and the queue of eight.
    t.true(yours.length >= 1, `${yours.length} refused per user`);
    t.true(busy.length >= 1, 'some refused because the wait queue was full');
    t.true(ok.length >= 4);
    t.deepEqual(small, Array(20).fill(200), 'other clients are served');
    t.true(alive(), server.output().slice(-2000));
  } finally {
    clearInterval(sampler);
  }
});
