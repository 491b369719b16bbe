// fanout: N clients all subscribed to one channel, long-polling (and, with --transport socket, then holding event
// sockets on fresh queues, then the WebSocket floor, in the same run); time from each send's response to each client's
// receipt of that message, and the server's CPU per delivery.
import os from 'node:os';
import { request, type Creds } from '../lib/client.js';
import { sampleAll } from '../lib/server.js';
import type { PollInput, PollOutput } from '../lib/jobs.js';
import { bucketPercentiles, counterDelta, histogram, scrape } from '../lib/metrics.js';
import { summarize } from '../lib/stats.js';
import { nowAbs, runJobs, slices } from '../lib/workers.js';
import { startChild } from './ceilings.js';
import { seedUsers } from './seed.js';
import { num, type Scenario } from './types.js';

type Ctx = Parameters<Scenario>[0];

export const fanout: Scenario = async (ctx) => {
  const clients = num(ctx.options, 'clients', ctx.quick ? 20 : 1000);
  const messages = num(ctx.options, 'messages', ctx.quick ? 5 : 50);
  const base = ctx.target.url;
  const people = await seedUsers(ctx, clients, 'fan');
  const ids = people.map((p) => p.userId);
  const channel = `fanout-${Date.now().toString(36)}`;
  const made = await request(base, 'POST', '/channels/create', { auth: ctx.owner, form: { name: channel, subscribers: JSON.stringify(ids) } });
  if (made.status !== 200) throw new Error(`channel: ${JSON.stringify(made.body)}`);
  const transport = ctx.options.transport === 'socket' ? 'socket' : 'poll';
  // With --transport socket the polling run goes first, on the same server and users, so both are in one report.
  const poll = await deliverAll(ctx, 'poll', { base, people, channel, clients, messages });
  const socket = transport === 'socket' ? await deliverAll(ctx, 'socket', { base, people, channel, clients, messages }) : null;
  const main = socket ?? poll;
  const latency = main.latency;
  // `deliveries`: the run the latency and the target are about (the socket run when there is one).
  const figures: Record<string, number | string | boolean> = { clients, messages, deliveries: main.samples.length, expected_deliveries: clients * messages, ...prefixed('poll_', poll.figures) };
  // Every client got every message, none twice (each client counts the IDs it got; only these messages reach them).
  figures.exactly_once = main.samples.length === clients * messages && main.duplicates === 0;
  let floorErrors = 0;
  // The long-poll floor: the same clients on a bare uWebSockets.js server answering parked polls with bodies of the
  // poll run's mean answer size (and the same headers).
  const answerBytes = Math.round(poll.answerBytes ?? 600);
  figures.floor_poll_answer_bytes = answerBytes;
  const pollFloor = await pollFloorRun(ctx, { people, clients, messages, answerBytes });
  floorErrors += pollFloor.errors;
  Object.assign(figures, prefixed('floor_poll_', pollFloor.figures));
  figures.poll_cpu_ratio_to_floor = ratio(poll.cpuUsPerDelivery, pollFloor.cpuUsPerDelivery);
  if (socket) {
    Object.assign(figures, prefixed('socket_', socket.figures));
    // The floor: the same clients on a bare uWebSockets.js server, frames of the socket run's mean size.
    const frameBytes = Math.round(socket.frameBytes ?? 400);
    figures.floor_frame_bytes = frameBytes;
    for (const mode of ['send', 'publish'] as const) {
      const floor = await socketFloor(ctx, mode, { people, clients, messages, frameBytes });
      floorErrors += floor.errors;
      Object.assign(figures, prefixed(`floor_${mode}_`, floor.figures));
      figures[`socket_cpu_ratio_to_floor_${mode}`] = ratio(socket.cpuUsPerDelivery, floor.cpuUsPerDelivery);
    }
  }
  const socketMet = socket ? latency.p99 < 20 && socket.cpuUsPerDelivery < 5 : true;
  return {
    latencyMs: latency,
    errors: poll.errors + (socket?.errors ?? 0) + floorErrors,
    samples: main.samples,
    timeline: main.timeline,
    figures,
    target: socket
      ? { description: `socket run: client p99 under 20 ms and server CPU under 5 µs per delivery, ${clients} clients`, met: socketMet && socket.samples.length === clients * messages }
      : { description: `p99 under 50 ms from send response to receipt, ${clients} polling clients`, met: latency.p99 < 50 && poll.samples.length === clients * messages },
  };
};

function ratio(a: number, b: number): number | string {
  return Number.isFinite(a / b) ? +(a / b).toFixed(2) : 'n/a';
}

function prefixed(prefix: string, o: Record<string, number | string>): Record<string, number | string> {
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [prefix + k, v]));
}

interface Run {
  latency: ReturnType<typeof summarize>;
  samples: number[];
  timeline: number[];
  errors: number;
  /** Messages a client received again. */
  duplicates: number;
  cpuUsPerDelivery: number;
  figures: Record<string, number | string>;
  /** The socket run: the mean frame size (bytes) the server sent, from its /metrics. */
  frameBytes?: number | null;
  /** A polling run: the mean body size (bytes) of the answers that carried events, as the clients read them. */
  answerBytes?: number | null;
}

/** One run on Palaver: a fresh queue per client, the clients polling or holding sockets. */
async function deliverAll(
  ctx: Ctx,
  transport: 'poll' | 'socket',
  { base, people, channel, clients, messages }: { base: string; people: Creds[]; channel: string; clients: number; messages: number },
): Promise<Run> {
  const queues = await Promise.all(
    people.map(async (p) => (await request(base, 'POST', '/register', { auth: p, form: { event_types: '["message"]', fetch_event_types: '[]' } })).body.queue_id as string),
  );
  const sender = people[0]!;
  const DELIVERY = 'palaver_message_delivery_seconds';
  let metricsBefore: string | null = null;
  let metricsAfter: string | null = null;
  const run = await drive(ctx, {
    label: transport,
    job: transport === 'socket' ? 'socketClients' : 'pollClients',
    base,
    pids: ctx.target.pids,
    clients: people.map((creds, i) => ({ creds, queue: queues[i]! })),
    messages,
    before: async () => void (metricsBefore = await scrape(ctx.target)),
    after: async () => void (metricsAfter = await scrape(ctx.target)),
    send: async (m) => {
      const r = await request(base, 'POST', '/messages', { auth: sender, form: { type: 'stream', to: channel, topic: 'fanout', content: `message ${m}` } });
      return r.status === 200 ? (r.body.id as number) : null;
    },
    // Deleting the queues answers the parked polls.
    stopping: () => Promise.all(queues.map((q, i) => request(base, 'DELETE', '/events', { auth: people[i]!, form: { queue_id: q } }).catch(() => null))),
  });
  const server = bucketPercentiles(histogram(metricsBefore, DELIVERY), histogram(metricsAfter, DELIVERY));
  const frames = counterDelta(metricsBefore, metricsAfter, 'palaver_event_socket_frames_total');
  const bytes = counterDelta(metricsBefore, metricsAfter, 'palaver_event_socket_bytes_total');
  const frameBytes = frames && bytes !== null ? bytes / frames : null;
  return {
    ...run,
    frameBytes,
    figures: {
      ...run.figures,
      // The server's share: message event published (after commit) → poll answered or frame sent, from its /metrics.
      'server publish→answer p50/p95/p99 ms (≤ bucket)': server && server.count ? `${server.p50} / ${server.p95} / ${server.p99}` : 'n/a',
      server_deliveries_timed: server?.count ?? 'n/a',
      ...(transport === 'socket'
        ? { mean_frame_bytes: frameBytes === null ? 'n/a' : Math.round(frameBytes) }
        : { mean_answer_bytes: run.answerBytes == null ? 'n/a' : Math.round(run.answerBytes) }),
    },
  };
}

interface FloorOptions {
  /** The floor server's script and the word it prints before "listening on PORT". */
  script: string;
  what: string;
  label: string;
  job: DriveOptions['job'];
  /** The push's query besides the message's id. */
  query: Record<string, string>;
  people: Creds[];
  clients: number;
  messages: number;
  /** POST /release at the end: the floor answers its parked polls and every later one with no events until the clients stop. */
  release?: boolean;
}

/** The same clients (the same job, on the same worker threads) on a floor: a bare uWebSockets.js server that delivers
 *  each message to every client on a `POST /push`; the floor's CPU per delivery. */
async function floorRun(ctx: Ctx, o: FloorOptions): Promise<Run> {
  const floor = await startChild(o.script, o.what);
  try {
    return await drive(ctx, {
      label: o.label,
      job: o.job,
      base: floor.base,
      pids: floor.pid === null ? [] : [floor.pid],
      clients: o.people.slice(0, o.clients).map((creds, i) => ({ creds, queue: `floor-${i}` })),
      messages: o.messages,
      send: async (m) => {
        const r = await request(floor.base, 'POST', '/push', { query: { ...o.query, id: String(m + 1) } }).catch(() => null);
        return r && r.status === 200 ? m + 1 : null;
      },
      stopping: o.release ? () => request(floor.base, 'POST', '/release').catch(() => null) : undefined,
    });
  } finally {
    floor.stop();
  }
}

/** The WebSocket floor (bench/socket-floor-server.ts): one frame of `frameBytes` per socket per message, by per-socket
 *  send or by topic publish. */
function socketFloor(ctx: Ctx, mode: 'send' | 'publish', { people, clients, messages, frameBytes }: { people: Creds[]; clients: number; messages: number; frameBytes: number }): Promise<Run> {
  return floorRun(ctx, { script: 'dist/bench/socket-floor-server.js', what: 'floor', label: `floor ${mode}`, job: 'socketClients', query: { mode, bytes: String(frameBytes) }, people, clients, messages });
}

/** The long-poll floor (bench/poll-floor-server.ts): every parked poll answered with a body of `answerBytes` per
 *  message. */
function pollFloorRun(ctx: Ctx, { people, clients, messages, answerBytes }: { people: Creds[]; clients: number; messages: number; answerBytes: number }): Promise<Run> {
  return floorRun(ctx, { script: 'dist/bench/poll-floor-server.js', what: 'pollfloor', label: 'floor poll', job: 'pollClients', query: { bytes: String(answerBytes) }, people, clients, messages, release: true });
}

interface DriveOptions {
  label: string;
  job: 'socketClients' | 'pollClients';
  base: string;
  /** The server's processes (a cluster's every one), whose CPU is measured. */
  pids: number[];
  clients: { creds: Creds; queue: string }[];
  messages: number;
  /** Sends message m; resolves with the message ID the clients will see, or null on failure. */
  send: (m: number) => Promise<number | null>;
  before?: () => Promise<void>;
  after?: () => Promise<void>;
  /** After the clients are told to stop, before waiting for them. */
  stopping?: () => Promise<unknown>;
}

/** The clients poll or hold sockets on worker threads (--workers); `messages` sent one at a time (each once the previous
 *  one reached every client, or 2 s passed); receipts come back as [message ID, absolute time]. */
async function drive(ctx: Ctx, o: DriveOptions): Promise<Run> {
  const workers = num(ctx.options, 'workers', Math.min(4, os.cpus().length));
  const clients = o.clients.length;
  const sentAt = new Map<number, number>();
  /** When each send's request went out: receipt minus this needs no answer, and is never negative. */
  const requestedAt = new Map<number, number>();
  const receivedAt = new Map<number, number[]>();
  let received = 0;
  let errors = 0;
  let opened = 0;
  const repollAtOnce = ctx.options.repoll === 'at-once';
  const jobs = slices(o.clients, workers).map((part): PollInput => ({ base: o.base, clients: part, repollAtOnce }));
  const pool = runJobs<PollInput, PollOutput>(o.job, jobs, (m: { kind: string; ids: number[]; ats: number[]; count: number }) => {
    if (m.kind === 'open') opened += m.count;
    if (m.kind !== 'receipts') return;
    for (const [i, id] of m.ids.entries()) {
      let list = receivedAt.get(id);
      if (!list) receivedAt.set(id, (list = []));
      list.push(m.ats[i]!);
      received++;
    }
  });
  // Sockets first open (up to a minute); polls park within the 500 ms below.
  for (let i = 0; o.job === 'socketClients' && opened < clients && i < 6000; i++) await new Promise((r) => setTimeout(r, 10));
  await new Promise((r) => setTimeout(r, 500));
  await o.before?.();
  const cpuBefore = sampleAll(o.pids);
  const perSecond: number[] = [];
  for (let m = 0; m < o.messages; m++) {
    const requested = nowAbs();
    const id = await o.send(m);
    if (id === null) errors++;
    else {
      sentAt.set(id, nowAbs());
      requestedAt.set(id, requested);
    }
    const target = (m + 1) * clients;
    for (let i = 0; i < 200 && received < target; i++) await new Promise((res) => setTimeout(res, 10));
    perSecond.push(received);
    ctx.progress(`fanout (${o.label}): message ${m + 1}/${o.messages}, ${received} deliveries`);
  }
  const cpuAfter = sampleAll(o.pids);
  await o.after?.();
  pool.broadcast({ type: 'stop' });
  await o.stopping?.();
  const outs = await pool.done;
  errors += outs.reduce((a, out) => a + out.errors, 0);
  const duplicates = outs.reduce((a, out) => a + out.duplicates, 0);
  const answers = outs.reduce((a, out) => a + (out.answers ?? 0), 0);
  const answerBytes = answers ? outs.reduce((a, out) => a + (out.answerBytes ?? 0), 0) / answers : null;
  // A receipt can come before the sender has its own response: counted, as 0 ms.
  const samples: number[] = [];
  const fromRequest: number[] = [];
  let beforeResponse = 0;
  for (const [id, times] of receivedAt) {
    const at = sentAt.get(id);
    if (at === undefined) continue;
    const requested = requestedAt.get(id)!;
    for (const t of times) {
      if (t < at) beforeResponse++;
      samples.push(Math.max(0, t - at));
      fromRequest.push(t - requested);
    }
  }
  const latency = summarize(samples);
  const endToEnd = summarize(fromRequest);
  const deliveries = samples.length;
  const perDelivery = (k: 'cpuSeconds' | 'systemSeconds') => (cpuBefore && cpuAfter && deliveries ? ((cpuAfter[k] - cpuBefore[k]) * 1e6) / deliveries : NaN);
  const cpuUsPerDelivery = perDelivery('cpuSeconds');
  const systemUsPerDelivery = perDelivery('systemSeconds');
  return {
    latency,
    samples,
    errors,
    answerBytes,
    cpuUsPerDelivery,
    timeline: perSecond.map((v, i) => v - (perSecond[i - 1] ?? 0)),
    duplicates,
    figures: {
      deliveries,
      duplicate_deliveries: duplicates,
      'client p50/p95/p99 ms': [latency.p50, latency.p95, latency.p99].map((v) => v.toFixed(1)).join(' / '),
      // From the send's request instead of its answer: the commit included, no receipt before its start.
      'client from send request p50/p95/p99 ms': [endToEnd.p50, endToEnd.p95, endToEnd.p99].map((v) => v.toFixed(1)).join(' / '),
      // Whole server process CPU while the messages were sent and delivered (the sends' own work included) / deliveries.
      server_cpu_us_per_delivery: Number.isFinite(cpuUsPerDelivery) ? +cpuUsPerDelivery.toFixed(2) : 'n/a',
      // Its kernel part (system time: socket writes, and on loopback the receiving side's TCP work too).
      server_system_cpu_us_per_delivery: Number.isFinite(systemUsPerDelivery) ? +systemUsPerDelivery.toFixed(2) : 'n/a',
      received_before_send_response: beforeResponse,
      worker_threads: jobs.length,
    },
  };
}
