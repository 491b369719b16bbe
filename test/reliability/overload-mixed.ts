// A mixed load against a child server — senders, long-pollers, history readers, clients registering and leaving —
// with the server's resident memory sampled from /proc once a second; the curve is written to test-artifacts/ as
// JSON, CSV and SVG.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { ChildServer, SiteUser } from './child-server.js';

export interface LoadOptions {
  server: ChildServer;
  users: SiteUser[];
  channelId: number;
  durationMs: number;
  /** The server runs gc-probe.js: each second a full collection is asked for and the live V8 heap read back. */
  gcProbe?: boolean;
  /** Workers of each kind, and the pause each takes between its requests. */
  senders?: number;
  pollers?: number;
  readers?: number;
  registers?: number;
  pauseMs?: number;
}

export interface Sample {
  /** Seconds since the load began. */
  t: number;
  rssMib: number;
  /** Requests answered so far. */
  requests: number;
  /** V8 heap in use after a full collection (the latest gc-probe reading, a second old at most). */
  heapUsedMib?: number;
}

export interface LoadResult {
  samples: Sample[];
  /** Requests by kind and status. */
  requests: Record<string, Record<number, number>>;
  /** Message events the pollers received. */
  eventsReceived: number;
  failures: string[];
}

export function rssMibOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) / 1024 : 0;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runMixedLoad(o: LoadOptions): Promise<LoadResult> {
  const { server, users, channelId } = o;
  const pause = o.pauseMs ?? 50;
  const end = Date.now() + o.durationMs;
  const started = Date.now();
  const result: LoadResult = { samples: [], requests: {}, eventsReceived: 0, failures: [] };
  let answered = 0;
  const count = (kind: string, status: number, text: string) => {
    answered++;
    const byStatus = (result.requests[kind] ??= {});
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (status !== 200 && result.failures.length < 20) result.failures.push(`${kind} ${status} ${text.slice(0, 200)}`);
  };
  const as = (i: number) => server.client.as(users[i % users.length]!);
  const live = () => Date.now() < end;

  const sender = async (w: number) => {
    for (let i = 0; live(); i++) {
      const r = await as(w).post('/messages', {
        form: { type: 'stream', to: String(channelId), topic: `topic ${i % 20}`, content: `message ${w}/${i} **bold** and a [link](https://example.com/${i})` },
      });
      count('send', r.status, r.text);
      await sleep(pause);
    }
    // One more message once the load is over wakes the parked polls, so they end now rather than at a heartbeat.
    if (w === 0) await as(w).post('/messages', { form: { type: 'stream', to: String(channelId), topic: 'end', content: 'the end' } });
  };
  const poller = async (w: number) => {
    const c = as(w + 1);
    const q = await c.post('/register', { form: { event_types: '["message"]' } });
    count('register', q.status, q.text);
    if (q.status !== 200) return;
    let last = q.json.last_event_id as number;
    while (live()) {
      const r = await c.get('/events', { query: { queue_id: q.json.queue_id, last_event_id: String(last) } });
      count('poll', r.status, r.text);
      if (r.status !== 200) return;
      for (const e of r.json.events) {
        last = Math.max(last, e.id);
        if (e.type === 'message') result.eventsReceived++;
      }
    }
    await c.delete('/events', { query: { queue_id: q.json.queue_id } });
  };
  const narrow = JSON.stringify([{ operator: 'channel', operand: channelId }]);
  const reader = async (w: number) => {
    for (let i = 0; live(); i++) {
      // Mostly a screenful, every tenth a large fetch (a slot of LARGE_FETCH_SLOTS).
      const n = i % 10 === 9 ? 400 : 50;
      const r = await as(w + 2).get('/messages', { query: { anchor: 'newest', num_before: String(n), num_after: '0', narrow } });
      count('read', r.status, r.text);
      await sleep(pause * 4);
    }
  };
  const registrar = async (w: number) => {
    while (live()) {
      const c = as(w + 3);
      const r = await c.post('/register', {});
      count('register', r.status, r.text);
      if (r.status === 200) count('unregister', (await c.delete('/events', { query: { queue_id: r.json.queue_id } })).status, '');
      await sleep(pause * 10);
    }
  };

  const PROBE = 'gc-probe heap-used ';
  const liveHeapMib = () => {
    const out = server.output();
    const at = out.lastIndexOf(PROBE);
    return at < 0 ? undefined : parseInt(out.slice(at + PROBE.length), 10) / 1048576;
  };
  const sampler = setInterval(() => {
    if (!live()) return;
    result.samples.push({ t: (Date.now() - started) / 1000, rssMib: rssMibOf(server.child.pid!), requests: answered, heapUsedMib: o.gcProbe ? liveHeapMib() : undefined });
    if (o.gcProbe) server.child.kill('SIGUSR2');
  }, 1000);
  try {
    await Promise.all([
      ...Array.from({ length: o.senders ?? 4 }, (_, w) => sender(w)),
      ...Array.from({ length: o.pollers ?? 6 }, (_, w) => poller(w)),
      ...Array.from({ length: o.readers ?? 2 }, (_, w) => reader(w)),
      ...Array.from({ length: o.registers ?? 2 }, (_, w) => registrar(w)),
    ]);
  } finally {
    clearInterval(sampler);
  }
  return result;
}

export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/**
 * Medians of the first and last thirds of the curve after the warm-up (the first fifth of it), for RSS and for the live
 * V8 heap (read after a forced full collection; 0 when not probed; a leak makes it climb steadily). A reading at a random
 * moment would also count the garbage not yet collected, which swings ×4 (scraped from /metrics every 5 s, a 20 s run
 * compared one such reading with another: 32 vs 72 MiB on a quiet machine, no leak).
 */
export function thirds(samples: Sample[]): { warmUpUntil: number; first: number; last: number; peak: number; heapFirst: number; heapLast: number } {
  const rest = samples.slice(Math.floor(samples.length / 5));
  const third = Math.max(1, Math.floor(rest.length / 3));
  const heap = (part: Sample[]) => {
    const known = part.flatMap((s) => (s.heapUsedMib === undefined ? [] : [s.heapUsedMib]));
    return known.length ? median(known) : 0;
  };
  return {
    warmUpUntil: rest[0]?.t ?? 0,
    first: median(rest.slice(0, third).map((s) => s.rssMib)),
    last: median(rest.slice(-third).map((s) => s.rssMib)),
    peak: Math.max(...samples.map((s) => s.rssMib)),
    heapFirst: heap(rest.slice(0, third)),
    heapLast: heap(rest.slice(-third)),
  };
}

/** Writes `<name>.json`, `<name>.csv` and `<name>.svg` under test-artifacts/. */
export function writeCurve(name: string, result: LoadResult, summary: Record<string, unknown>): string {
  const dir = path.resolve('test-artifacts');
  mkdirSync(dir, { recursive: true });
  const base = path.join(dir, name);
  writeFileSync(`${base}.json`, JSON.stringify({ ...summary, requests: result.requests, eventsReceived: result.eventsReceived, samples: result.samples }, null, 1));
  writeFileSync(`${base}.csv`, 'seconds,rss_mib,requests,live_heap_mib\n' +
      result.samples.map((s) => `${s.t.toFixed(1)},${s.rssMib.toFixed(1)},${s.requests},${s.heapUsedMib?.toFixed(1) ?? ''}`).join('\n') + '\n');
  writeFileSync(`${base}.svg`, svg(result.samples));
  return base;
}

function svg(samples: Sample[]): string {
  const w = 800;
  const h = 300;
  const pad = 40;
  const maxT = Math.max(1, ...samples.map((s) => s.t));
  const maxY = Math.max(1, ...samples.map((s) => s.rssMib)) * 1.1;
  const x = (t: number) => pad + ((w - 2 * pad) * t) / maxT;
  const y = (v: number) => h - pad - ((h - 2 * pad) * v) / maxY;
  const points = samples.map((s) => `${x(s.t).toFixed(1)},${y(s.rssMib).toFixed(1)}`).join(' ');
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif" font-size="12">
<rect width="${w}" height="${h}" fill="white"/>
<line x1="${pad}" y1="${h - pad}" x2="${w - pad}" y2="${h - pad}" stroke="black"/>
<line x1="${pad}" y1="${pad}" x2="${pad}" y2="${h - pad}" stroke="black"/>
<text x="${pad}" y="${pad - 8}">server RSS (MiB), 0 to ${maxY.toFixed(0)}</text>
<text x="${w - pad}" y="${h - pad + 16}" text-anchor="end">${maxT.toFixed(0)} s</text>
<polyline fill="none" stroke="steelblue" stroke-width="1.5" points="${points}"/>
</svg>
`;
}
