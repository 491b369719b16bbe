// What limits a load step: the CPU share and event-loop lag of the load generator (this process, all its threads)
// and of the server, the CPU of the server's PostgreSQL backends, and the server's own view of each route's latency,
// each over the same window. A client-side p99 far above the server's, with the generator's loop lagging, says the
// generator is the limit; the server's loop lag or CPU near a core says the server is.
import { closeDatabase, openDatabase, type BenchDb } from './database.js';
import { LoopLag, lagMs } from './loop-lag.js';
import { bucketPercentiles, scrape, type Buckets } from './metrics.js';
import { sampleAll, sampleProcess, type Target } from './server.js';

export interface StepLimits {
  generator_cpu_percent: number;
  /** The worst of the generator's threads (its main thread and its workers'). */
  generator_loop_lag_p99_ms: number;
  generator_loop_lag_max_ms: number;
  server_cpu_percent: number | null;
  server_loop_lag_p99_ms: number | null;
  server_loop_lag_max_ms: number | null;
  /** CPU of the PostgreSQL backends serving the server's database (null where they are not local or not visible). */
  postgres_cpu_percent: number | null;
  /** The server's p99 (ms, upper bound of its histogram bucket) by "METHOD route", routes answered in the window. */
  server_p99_ms: Record<string, number>;
  /** p99 (ms, bucket bound) of a realm command's wait in its realm actor's mailbox, and of its batch, by kind. */
  realm_wait_p99_ms: Record<string, number>;
  realm_batch_p99_ms: Record<string, number>;
}

/** A labelled histogram's cumulative bucket counts by its labels' values joined with spaces ("POST /api/v1/messages"). */
function labelled(text: string | null, name: string): Map<string, Buckets> {
  const out = new Map<string, Buckets>();
  if (!text) return out;
  // prom-client writes `le` first: name_bucket{le="0.1",method="GET",route="/api/v1/messages"} 12
  // (A label's value may hold braces: route="/api/v1/messages/{message_id}/reactions".)
  const re = new RegExp(`^${name}_bucket\\{le="([^"]+)",((?:[^}"]|"[^"]*")*)\\} (\\d+)`, 'gm');
  for (const m of text.matchAll(re)) {
    const key = [...m[2]!.matchAll(/="([^"]*)"/g)].map((v) => v[1]).join(' ');
    let b = out.get(key);
    if (!b) out.set(key, (b = new Map()));
    b.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[3]));
  }
  return out;
}

/** The p99 (ms, bucket upper bound) of each label set observed between two scrapes. */
export function p99s(before: string | null, after: string | null, name: string): Record<string, number> {
  const was = labelled(before, name);
  const out: Record<string, number> = {};
  for (const [key, buckets] of labelled(after, name)) {
    const s = bucketPercentiles(was.get(key) ?? null, buckets);
    if (s && s.count > 0) out[key] = s.p99;
  }
  return out;
}

function gauge(text: string | null, name: string): number | null {
  const m = text && new RegExp(`^${name} (\\S+)`, 'm').exec(text);
  return m ? Number(m[1]) : null;
}

/** CPU seconds (user + system) of a local process since it started; 0 when gone or unreadable. */
const cpuSeconds = (pid: number): number => sampleProcess(pid)?.cpuSeconds ?? 0;

/** Measures one window at a time: start() opens it, finish() closes it and says what each party spent. */
export class LimitsProbe {
  private readonly loop = new LoopLag();
  private readonly db: BenchDb | null;
  private started = 0;
  private cpu = process.cpuUsage();
  private server: number | null = null;
  private scraped: string | null = null;
  /** CPU seconds of each database backend at the window's start. */
  private pg = new Map<number, number>();

  constructor(private readonly target: Target) {
    // Only a server started here: its database's backends are then local processes (external or embedded).
    this.db = target.pid !== null && (target.databaseUrl || target.dataDir) ? openDatabase(target, 1) : null;
  }

  /** The server's database backends (its pool's connections, not this probe's). */
  private async backends(): Promise<number[]> {
    if (!this.db) return [];
    const rows = await this.db.any<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()').catch(() => []);
    return rows.map((r) => r.pid);
  }

  async start(): Promise<void> {
    // A scrape resets the server's event-loop histogram (prom-client), so the next one covers this window only.
    this.scraped = await scrape(this.target);
    this.pg = new Map((await this.backends()).map((pid) => [pid, cpuSeconds(pid)]));
    this.server = sampleAll(this.target.pids)?.cpuSeconds ?? null;
    this.cpu = process.cpuUsage();
    this.loop.take();
    this.started = performance.now();
  }

  /** The window's figures; `workerLag` is the worst lag of the generator's worker threads over it, if it has any. */
  async finish(workerLag?: { p99: number; max: number }): Promise<StepLimits> {
    const lag = this.loop.take();
    const seconds = (performance.now() - this.started) / 1000;
    const cpu = process.cpuUsage(this.cpu);
    const server = sampleAll(this.target.pids)?.cpuSeconds ?? null;
    // Backends opened during the window count from 0 (their whole life is in it); one that closed during it is left
    // out (its last figure went with it: counting it as 0 made the sum negative).
    const backends = await this.backends();
    let pg = 0;
    for (const pid of new Set([...this.pg.keys(), ...backends])) {
      const now = sampleProcess(pid)?.cpuSeconds;
      if (now !== undefined) pg += now - (this.pg.get(pid) ?? 0);
    }
    const text = await scrape(this.target);
    const pct = (s: number) => +((100 * s) / seconds).toFixed(1);
    const serverLag = (name: string) => {
      const v = gauge(text, name);
      return v === null ? null : lagMs(v * 1000);
    };
    return {
      generator_cpu_percent: pct((cpu.user + cpu.system) / 1e6),
      generator_loop_lag_p99_ms: Math.max(lag.p99, workerLag?.p99 ?? 0),
      generator_loop_lag_max_ms: Math.max(lag.max, workerLag?.max ?? 0),
      server_cpu_percent: server === null || this.server === null ? null : pct(server - this.server),
      server_loop_lag_p99_ms: serverLag('nodejs_eventloop_lag_p99_seconds'),
      server_loop_lag_max_ms: serverLag('nodejs_eventloop_lag_max_seconds'),
      postgres_cpu_percent: this.db ? pct(pg) : null,
      server_p99_ms: p99s(this.scraped, text, 'palaver_http_request_duration_seconds'),
      realm_wait_p99_ms: p99s(this.scraped, text, 'palaver_realm_command_wait_seconds'),
      realm_batch_p99_ms: p99s(this.scraped, text, 'palaver_realm_batch_seconds'),
    };
  }

  async close(): Promise<void> {
    this.loop.stop();
    if (this.db) await closeDatabase(this.db);
  }
}
