// idle: C concurrent long-polling queues held for a while; process memory per queue; heartbeats on time. With
// --transport socket, the queues are held by event sockets instead, opened by child processes (socket-holder.ts)
// spread so that no process passes its open-file cap; memory per queue with its socket, and pings.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { forEachBounded } from '../lib/bounded.js';
import { connectionFor, openFilesCap, request } from '../lib/client.js';
import { sampleAll } from '../lib/server.js';
import { summarize } from '../lib/stats.js';
import { num, type Scenario } from './types.js';

export const idle: Scenario = async (ctx) => {
  const queues = num(ctx.options, 'queues', ctx.quick ? 200 : 10_000);
  const heartbeatMs = num(ctx.options, 'heartbeat-ms', 60_000);
  const holdMs = num(ctx.options, 'duration', ctx.quick ? 3 : 75) * 1000;
  // Polls are opened in waves of this many connections, the next wave once this one's requests are sent: each
  // connection then sends its request right after connecting, however many there are. (Opened all at once, the
  // client connects them all before writing any request; on a busy machine the last ones stayed silent past the
  // server's 10 s idle timeout for connections that send nothing, and were closed: ECONNRESET.)
  const wave = num(ctx.options, 'connect-wave', 500);
  const base = ctx.target.url;
  const before = sampleAll(ctx.target.pids);

  const ids: string[] = new Array(queues);
  let made = 0;
  let errors = 0;
  await forEachBounded(queues, 32, async (i) => {
    const r = await request(base, 'POST', '/register', { auth: ctx.owner, form: { fetch_event_types: '[]', event_types: '["message"]' } });
    if (r.status !== 200) errors++;
    ids[i] = r.body.queue_id;
    if (++made % 500 === 0) ctx.progress(`registered ${made}/${queues} queues`);
  });
  if (ctx.options.transport === 'socket') return holdSockets(ctx, ids, before, holdMs, errors);

  // Park one poll per queue, each on its own connection, and re-park after each answer until the hold ends.
  const parkedAt = new Map<number, number>();
  const heartbeatWaits: number[] = [];
  let heartbeats = 0;
  let stopping = false;
  const lastId = new Array<number>(queues).fill(-1);
  /** Failed polls by error code or status, so a failed run says why. */
  const errorKinds = new Map<string, number>();
  /** When polls failed, in seconds since the first poll was sent (a burst at one moment points at a cause). */
  const errorAt: number[] = [];
  const pollsBegan = performance.now();
  /** `sent` is called once the first poll's request is on its connection (or has failed). */
  const pollLoop = async (i: number, sent: () => void) => {
    const connection = connectionFor(i);
    while (!stopping) {
      parkedAt.set(i, performance.now());
      const r = await request(base, 'GET', '/events', {
        auth: ctx.owner,
        connection,
        query: { queue_id: ids[i]!, last_event_id: String(lastId[i]) },
        timeoutMs: heartbeatMs * 2 + 30_000,
        onSent: sent,
      }).catch((e: Error) => e);
      sent();
      if (r instanceof Error || r.status !== 200) {
        if (!stopping) {
          errors++;
          const kind = r instanceof Error ? ((r as NodeJS.ErrnoException).code ?? r.message) : `${r.status} ${r.body?.code ?? ''}`.trim();
          errorKinds.set(kind, (errorKinds.get(kind) ?? 0) + 1);
          errorAt.push((performance.now() - pollsBegan) / 1000);
        }
        return;
      }
      for (const e of r.body.events) {
        lastId[i] = Math.max(lastId[i]!, e.id);
        if (e.type === 'heartbeat' && !stopping) {
          heartbeats++;
          heartbeatWaits.push(performance.now() - parkedAt.get(i)!);
        }
      }
    }
  };
  const loops: Promise<void>[] = [];
  for (let from = 0; from < queues; from += wave) {
    const sent: Promise<void>[] = [];
    for (let i = from; i < Math.min(queues, from + wave); i++) {
      let onSent!: () => void;
      sent.push(new Promise<void>((r) => (onSent = r)));
      loops.push(pollLoop(i, onSent));
    }
    await Promise.all(sent);
    ctx.progress(`parking polls: ${Math.min(queues, from + wave)}/${queues} sent`);
  }
  const parkMs = performance.now() - pollsBegan;
  await new Promise((r) => setTimeout(r, Math.min(5000, holdMs)));
  const held = sampleAll(ctx.target.pids);
  const timeline = await holdFor(ctx, holdMs, () => heartbeats, (s) => `holding ${queues} polls: ${s}s, ${heartbeats} heartbeats`);
  stopping = true;
  // Deleting the queues answers the parked polls.
  await deleteQueues(ctx, ids);
  await Promise.all(loops);

  const perQueue = before && held ? (held.rssBytes - before.rssBytes) / queues : NaN;
  // On time: within the heartbeat interval plus one sweep interval (the server sweeps every 5 s by default,
  // a tenth of the interval in short runs), plus 5 s of slack for a busy machine (waits are timed from each poll's send).
  const sweepMs = num(ctx.options, 'heartbeat-ms', 0) ? Math.max(100, heartbeatMs / 10) : 5_000;
  const late = heartbeatWaits.filter((ms) => ms > heartbeatMs + sweepMs + 5_000).length;
  const expectHeartbeats = holdMs > heartbeatMs + 10_000;
  return {
    errors,
    latencyMs: summarize(heartbeatWaits),
    samples: heartbeatWaits,
    timeline: timeline.map((v, i) => v - (timeline[i - 1] ?? 0)),
    figures: {
      queues,
      rss_before_mib: before ? +(before.rssBytes / 2 ** 20).toFixed(1) : 'n/a',
      rss_held_mib: held ? +(held.rssBytes / 2 ** 20).toFixed(1) : 'n/a',
      bytes_per_queue: Number.isFinite(perQueue) ? Math.round(perQueue) : 'n/a',
      heartbeats,
      heartbeats_late: late,
      heartbeat_deadline_ms: heartbeatMs + sweepMs + 5_000,
      park_seconds: +(parkMs / 1000).toFixed(1),
      ...(errorKinds.size
        ? {
            poll_errors: [...errorKinds].map(([k, n]) => `${k}: ${n}`).join(', '),
            poll_errors_at_s: `${Math.min(...errorAt).toFixed(1)}–${Math.max(...errorAt).toFixed(1)} after the first poll`,
          }
        : {}),
    },
    target: {
      description: 'under 25 KB of process memory per polling queue, heartbeats on time',
      met: Number.isFinite(perQueue) && perQueue < 25 * 1024 && late === 0 && (!expectHeartbeats || heartbeats >= queues),
    },
  };
};

/** Sockets one holder process opens: well under the open-file cap (20,000 here) with room for its own files. */
const SOCKETS_PER_HOLDER = 6000;

/** idle --transport socket: every queue held by an event socket from a holder process for holdMs. */
async function holdSockets(ctx: Parameters<Scenario>[0], ids: string[], before: ReturnType<typeof sampleAll>, holdMs: number, registerErrors: number) {
  const queues = ids.length;
  const registered = sampleAll(ctx.target.pids);
  const perHolder = Math.min(SOCKETS_PER_HOLDER, Math.max(1, openFilesCap() - 1000));
  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-holders-'));
  const holders: { child: ReturnType<typeof spawn>; state: Record<'open' | 'errors' | 'pings' | 'closed', number> & { why: Record<string, number> }; exited: Promise<unknown> }[] = [];
  for (let from = 0, n = 0; from < queues; from += perHolder, n++) {
    const file = path.join(dir, `holder-${n}.json`);
    writeFileSync(file, JSON.stringify({ base: ctx.target.url, creds: ctx.owner, queues: ids.slice(from, from + perHolder), wave: num(ctx.options, 'connect-wave', 500) }));
    const child = spawn(process.execPath, [new URL('../lib/socket-holder.js', import.meta.url).pathname, file], { stdio: ['pipe', 'pipe', 'inherit'] });
    const state = { open: 0, errors: 0, pings: 0, closed: 0, why: {} as Record<string, number> };
    createInterface({ input: child.stdout! }).on('line', (line) => Object.assign(state, JSON.parse(line)));
    holders.push({ child, state, exited: new Promise((r) => child.once('exit', r)) });
  }
  const total = (k: 'open' | 'errors' | 'pings' | 'closed') => holders.reduce((a, h) => a + h.state[k], 0);
  const openedAt = performance.now();
  while (total('open') + total('errors') < queues) {
    await new Promise((r) => setTimeout(r, 1000));
    ctx.progress(`opening sockets: ${total('open')}/${queues} open, ${total('errors')} failed, ${holders.length} processes`);
    if (performance.now() - openedAt > 600_000) break;
  }
  const openSeconds = (performance.now() - openedAt) / 1000;
  await new Promise((r) => setTimeout(r, Math.min(5000, holdMs)));
  const held = sampleAll(ctx.target.pids);
  const timeline = await holdFor(ctx, holdMs, () => total('pings'), (s) => `holding ${total('open')} sockets: ${s}s, ${total('pings')} pings, ${total('closed')} closed`);
  const heldAtEnd = sampleAll(ctx.target.pids);
  const open = total('open');
  const closedEarly = total('closed');
  for (const h of holders) h.child.stdin!.end('stop\n');
  await Promise.all(holders.map((h) => h.exited));
  rmSync(dir, { recursive: true, force: true });
  await deleteQueues(ctx, ids);
  const perQueue = before && held ? (held.rssBytes - before.rssBytes) / queues : NaN;
  const perSocket = registered && held ? (held.rssBytes - registered.rssBytes) / queues : NaN;
  const mib = (b: number | undefined) => (b === undefined ? 'n/a' : +(b / 2 ** 20).toFixed(1));
  const errors = registerErrors + total('errors') + closedEarly;
  return {
    errors,
    samples: [],
    timeline: timeline.map((v, i) => v - (timeline[i - 1] ?? 0)),
    figures: {
      queues,
      sockets_open: open,
      socket_errors: total('errors'),
      sockets_closed_while_held: closedEarly,
      holder_processes: holders.length,
      open_seconds: +openSeconds.toFixed(1),
      rss_before_mib: mib(before?.rssBytes),
      rss_registered_mib: mib(registered?.rssBytes),
      rss_held_mib: mib(held?.rssBytes),
      rss_held_at_end_mib: mib(heldAtEnd?.rssBytes),
      bytes_per_queue_with_socket: Number.isFinite(perQueue) ? Math.round(perQueue) : 'n/a',
      bytes_per_socket: Number.isFinite(perSocket) ? Math.round(perSocket) : 'n/a',
      pings: total('pings'),
      failures: holders.flatMap((h) => Object.entries(h.state.why)).map(([k, n]) => `${k}: ${n}`).join(', ') || 'none',
    },
    target: {
      description: `${queues} queues held by open sockets at ≤ 4 KB each (server RSS from before registering)`,
      met: open === queues && closedEarly === 0 && Number.isFinite(perQueue) && perQueue <= 4096,
    },
  };
}

/**
 * Deletes the queues 32 at a time, over connections the polls leave free (all at once they would open as many
 * connections again, beyond the file-descriptor limit of 20,000).
 */
async function deleteQueues(ctx: Parameters<Scenario>[0], ids: string[]): Promise<void> {
  await forEachBounded(ids.length, 32, async (i) => {
    // Once more if the connection failed under it (a keep-alive connection the server had just closed).
    const del = () => request(ctx.target.url, 'DELETE', '/events', { auth: ctx.owner, form: { queue_id: ids[i]! } });
    await del().catch(() => del().catch(() => null));
  });
}

/** Waits holdMs, reporting progress each second; returns the running count read each second. */
async function holdFor(ctx: Parameters<Scenario>[0], holdMs: number, count: () => number, line: (seconds: number) => string): Promise<number[]> {
  const timeline: number[] = [];
  const started = Date.now();
  while (Date.now() - started < holdMs) {
    await new Promise((r) => setTimeout(r, 1000));
    timeline.push(count());
    ctx.progress(line(Math.round((Date.now() - started) / 1000)));
  }
  return timeline;
}
