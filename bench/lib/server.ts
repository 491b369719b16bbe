// The server under test: started as a child process (or an existing one by URL), with its memory and CPU read
// from /proc when it runs here.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startBalancer } from './balancer.js';
import type { AutovacuumCounts } from './autovacuum.js';
import { createScratchDatabase, type ScratchDatabase } from './database.js';
import { ensureNats } from './nats.js';

export interface Target {
  url: string;
  port: number;
  owner: { email: string; password: string };
  /** The server's pid when this process started it (the first process of a cluster). */
  pid: number | null;
  /** Every process of the target (a cluster has several behind its balancer). */
  pids: number[];
  /** The server's database: the scratch database made for this run (external), or null (embedded or remote). */
  databaseUrl: string | null;
  /** The server's data directory when this process started it (its embedded database is reachable there). */
  dataDir: string | null;
  /** Bearer token for its /metrics (OPERATOR_TOKEN; generated for a server this process starts). */
  operatorToken: string | null;
  /** What the bench's autovacuum stand-in did on the scratch database (its server runs autovacuum off), or null. */
  autovacuum: AutovacuumCounts | null;
  stop(): Promise<void>;
}

export const BENCH_OWNER = { email: 'bench-owner@bench.test', password: 'bench-owner-password' };

/**
 * The server under test. With `url`, an already running server (and `databaseUrl` is its database, for the
 * scenarios that seed in bulk). Otherwise a child process on a fresh data directory and, with `databaseUrl`,
 * a fresh scratch database on that PostgreSQL server, dropped when it stops.
 */
export async function startTarget(opts: { url?: string; databaseUrl?: string; env?: Record<string, string>; cluster?: number; cpuProfDir?: string; balanced?: boolean }): Promise<Target> {
  if (opts.cluster) return startCluster(opts.cluster, opts);
  if (opts.balanced) {
    // The process without NATS of a --processes run sits behind the same balancer as the clusters, so the layouts
    // differ by cluster mode alone (the balancer's hop, in this runner's process on the same cores, costs each alike).
    const target = await startTarget({ ...opts, balanced: false });
    return behindBalancer(target, [target], async () => {});
  }
  if (opts.url) {
    const url = new URL(opts.url);
    return { url: url.origin, port: Number(url.port || 80), owner: BENCH_OWNER, pid: null, pids: [], databaseUrl: opts.databaseUrl ?? null, dataDir: null, operatorToken: process.env.OPERATOR_TOKEN ?? null, autovacuum: null, stop: async () => {} };
  }
  const scratch: ScratchDatabase | null = opts.databaseUrl ? await createScratchDatabase(opts.databaseUrl, undefined, { autovacuum: true }) : null;
  const operatorToken = opts.env?.OPERATOR_TOKEN ?? randomBytes(16).toString('hex');
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-bench-'));
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'info',
    // One log line per request would measure the logger (and fill this process's memory with output).
    LOG_REQUESTS: '0',
    PALAVER_OWNER_EMAIL: BENCH_OWNER.email,
    PALAVER_OWNER_PASSWORD: BENCH_OWNER.password,
    PASSWORD_HASH_COST: '12',
    // Load generators are one client making many requests: the limits would measure themselves.
    RATE_LIMITS: 'off',
    OPERATOR_TOKEN: operatorToken,
    ...opts.env,
  };
  if (scratch) env.DATABASE_URL = scratch.url;
  else if (!opts.env?.DATABASE_URL) delete env.DATABASE_URL;
  // --cpu-prof DIR: the server writes a V8 CPU profile there when it exits (NODE_OPTIONS may not carry --cpu-prof).
  const profile = opts.cpuProfDir ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(opts.cpuProfDir)}`] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, 'dist/src/main.js'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    const onData = (c: Buffer) => {
      out += c;
      const m = /"port":(\d+),"msg":"listening"/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (c) => (out += c));
    child.on('exit', (code) => reject(new Error(`server exited (${code}) before listening:\n${out}`)));
  }).catch(async (err) => {
    rmSync(dataDir, { recursive: true, force: true });
    await scratch?.drop();
    throw err;
  });
  // BENCH_SERVER_LOG=FILE keeps the servers' output (appended), for a run that went wrong.
  if (process.env.BENCH_SERVER_LOG) {
    const log = createWriteStream(process.env.BENCH_SERVER_LOG, { flags: 'a' });
    child.stdout!.pipe(log);
    child.stderr!.pipe(log);
  } else child.stdout!.resume();
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    owner: BENCH_OWNER,
    pid: child.pid!,
    pids: [child.pid!],
    databaseUrl: scratch?.url ?? null,
    dataDir,
    operatorToken,
    autovacuum: scratch?.autovacuum?.counts ?? null,
    async stop() {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
      rmSync(dataDir, { recursive: true, force: true });
      await scratch?.drop();
    },
  };
}

export interface ProcessSample {
  rssBytes: number;
  /** CPU seconds (user + system) since the process started. */
  cpuSeconds: number;
  /** The system (kernel) part of cpuSeconds. */
  systemSeconds: number;
}

/** Memory and CPU of a local process from /proc; null for a remote target. */
export function sampleProcess(pid: number | null): ProcessSample | null {
  if (pid === null) return null;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return { rssBytes: rssKb * 1024, cpuSeconds: ticks / 100, systemSeconds: Number(fields[12]) / 100 };
  } catch {
    return null;
  }
}

/**
 * `processes` Palaver processes in cluster mode on one scratch database and NATS (bench/lib/nats.ts), behind a
 * round-robin balancer (bench/lib/balancer.ts): the target's URL is the balancer's.
 */
async function startCluster(processes: number, opts: { databaseUrl?: string; env?: Record<string, string>; cpuProfDir?: string }): Promise<Target> {
  if (!opts.databaseUrl) throw new Error('--processes needs an external PostgreSQL (--database-url or DATABASE_URL)');
  const nats = await ensureNats();
  const scratch = await createScratchDatabase(opts.databaseUrl, undefined, { autovacuum: true });
  // One operator token for all, so /metrics answers whichever process the balancer picks.
  const env = { ...opts.env, NATS_URL: nats.url, CLUSTER_NAME: `bench${randomBytes(4).toString('hex')}`, OPERATOR_TOKEN: randomBytes(16).toString('hex') };
  const targets: Target[] = [];
  try {
    // The first migrates and bootstraps the database; the others join it.
    targets.push(await startTarget({ databaseUrl: undefined, env: { ...env, DATABASE_URL: scratch.url }, cpuProfDir: opts.cpuProfDir }));
    targets.push(...(await Promise.all(Array.from({ length: processes - 1 }, () => startTarget({ env: { ...env, DATABASE_URL: scratch.url }, cpuProfDir: opts.cpuProfDir })))));
  } catch (err) {
    await Promise.all(targets.map((t) => t.stop()));
    await scratch.drop();
    await nats.stop();
    throw err;
  }
  return behindBalancer({ ...targets[0]!, databaseUrl: scratch.url, autovacuum: scratch.autovacuum?.counts ?? null }, targets, async () => {
    await scratch.drop();
    await nats.stop();
  });
}

/** `first` (the target whose database and owner the scenarios use) with every process of `targets` behind one
 *  round-robin balancer: the target's URL is the balancer's; `after` runs once they all stopped. */
async function behindBalancer(first: Target, targets: Target[], after: () => Promise<void>): Promise<Target> {
  const balancer = await startBalancer(targets.map((t) => t.port));
  return {
    ...first,
    url: `http://127.0.0.1:${balancer.port}`,
    port: balancer.port,
    pids: targets.map((t) => t.pid!),
    async stop() {
      await balancer.close();
      await Promise.all(targets.map((t) => t.stop()));
      await after();
    },
  };
}

/** Memory and CPU of every process of a target, summed. */
export function sampleAll(pids: number[]): ProcessSample | null {
  const samples = pids.map(sampleProcess);
  if (samples.length === 0 || samples.some((x) => x === null)) return null;
  const sum = (k: keyof ProcessSample) => samples.reduce((n, x) => n + x![k], 0);
  return { rssBytes: sum('rssBytes'), cpuSeconds: sum('cpuSeconds'), systemSeconds: sum('systemSeconds') };
}
