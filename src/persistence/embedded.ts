// The embedded database: a real PostgreSQL in DATA_DIR/postgres, made on first start, run and supervised by this
// process (restarted if it dies, stopped with it), reached over a unix socket in that directory; TCP only on request.
import { spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pgPromise from 'pg-promise';
import type { Config } from '../config.js';
import { pgBinaries, type PgBinaries } from './embedded-binaries.js';
import { databaseAccount, processStart, runsIn, type Account } from './embedded-host.js';

export interface EmbeddedConnection {
  /** The directory of the unix socket. */
  host: string;
  port: number;
  user: string;
  database: string;
}

export interface EmbeddedDatabase {
  connection: EmbeddedConnection;
  stop(): Promise<void>;
}

export interface EmbeddedOptions extends Partial<Config['embeddedDb']> {
  log?: { info(obj: object, msg: string): void; error(obj: object, msg: string): void };
}

const INFO_FILE = 'embedded-db.json';
const PGDATA = 'postgres';
const PGLITE_DIR = 'pglite';
const SOCKET_PORT = 5432;
const USER = 'postgres';
/** Unix socket paths longer than this do not fit in sockaddr_un (108 bytes with the terminating NUL). */
const MAX_SOCKET_PATH = 107;

/** Durable, and sized for a small machine: a few hundred MB of RAM for the whole server. */
const SETTINGS: Record<string, string> = {
  listen_addresses: '',
  unix_socket_directories: '.',
  unix_socket_permissions: '0700',
  fsync: 'on',
  synchronous_commit: 'on',
  full_page_writes: 'on',
  max_connections: '50',
  shared_buffers: '64MB',
  work_mem: '4MB',
  maintenance_work_mem: '32MB',
  effective_cache_size: '256MB',
  min_wal_size: '32MB',
  max_wal_size: '256MB',
  max_worker_processes: '4',
  max_parallel_workers: '2',
  max_parallel_workers_per_gather: '1',
  autovacuum_max_workers: '2',
  huge_pages: 'off',
  jit: 'off',
  timezone: 'UTC',
  log_timezone: 'UTC',
  // The log in DATA_DIR/postgres/log, one file per weekday, overwritten a week later.
  logging_collector: 'on',
  log_directory: 'log',
  log_filename: 'postgresql-%a.log',
  log_rotation_age: '1d',
  log_rotation_size: '0',
  log_truncate_on_rotation: 'on',
};

function infoPath(dataDir: string): string {
  return path.join(dataDir, INFO_FILE);
}

interface Info extends EmbeddedConnection {
  owner: { pid: number; start: number };
}

function readInfo(dataDir: string): Info | null {
  try {
    return JSON.parse(readFileSync(infoPath(dataDir), 'utf8')) as Info;
  } catch {
    return null;
  }
}

/** Where the embedded database of `dataDir` is reached, as its server last recorded it (for the admin CLI and the
 *  bench), or null; findRunningEmbedded also checks that it runs. */
export function embeddedConnection(dataDir: string): EmbeddedConnection | null {
  const info = readInfo(dataDir);
  return info && { host: info.host, port: info.port, user: info.user, database: info.database };
}

/** Whether a live process runs (or is starting) the embedded database of `dataDir`. */
export function embeddedInUse(dataDir: string): boolean {
  return liveOwner(dataDir) !== null;
}

/** The process that runs the database of `dataDir`, if it is alive. */
function liveOwner(dataDir: string): number | null {
  const owner = readInfo(dataDir)?.owner;
  return owner && processStart(owner.pid) === owner.start ? owner.pid : null;
}

export class PgliteDataError extends Error {}

function pgliteMessage(dataDir: string): string {
  const old = path.join(dataDir, PGLITE_DIR);
  return (
    `${old} holds a database made by an earlier Palaver with the embedded PGlite, which this version replaced by a real ` +
    'PostgreSQL; nothing was changed. To carry its data over: start the earlier Palaver on this DATA_DIR and, while it ' +
    `runs, dump it through its socket: pg_dump -h ${dataDir} -p 5432 -U postgres --no-owner --no-privileges -f palaver.sql postgres; ` +
    `stop it, move ${old} elsewhere, then load the dump into an empty PostgreSQL and run Palaver on it with DATABASE_URL ` +
    `(psql -d <url> -f palaver.sql). To start afresh instead, move ${old} elsewhere.`
  );
}

export async function startEmbedded(dataDir: string, opts: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const pgdata = path.join(dataDir, PGDATA);
  if (existsSync(path.join(dataDir, PGLITE_DIR)) && !existsSync(pgdata)) throw new PgliteDataError(pgliteMessage(dataDir));
  const busy = liveOwner(dataDir);
  if (busy !== null) throw new Error(`the embedded database in ${dataDir} is in use by process ${busy} (another Palaver server or admin command)`);
  const account = await databaseAccount(opts.osUser ?? 'palaver-db');
  const bins = await pgBinaries();
  if (!existsSync(path.join(pgdata, 'PG_VERSION'))) await initialise(bins, pgdata, account);

  const port = opts.tcp?.port ?? SOCKET_PORT;
  const link = socketDirectory(pgdata, port);
  const connection: EmbeddedConnection = { host: link.host, port, user: USER, database: 'postgres' };
  const start = processStart(process.pid) ?? 0;
  writeFileSync(infoPath(dataDir), JSON.stringify({ ...connection, owner: { pid: process.pid, start } } satisfies Info), { mode: 0o600 });

  const args = postgresArgs(pgdata, account, opts.tcp ? { listen_addresses: '127.0.0.1', port: String(port) } : {});
  let started: ChildProcess | undefined;
  try {
    started = await launchWithRetries(bins, pgdata, account, args);
    if (opts.tcp) await setPassword(connection, opts.tcp.password);
  } catch (err) {
    if (started) await shutDown(started);
    rmSync(infoPath(dataDir), { force: true });
    link.remove();
    throw err;
  }

  let child = started;
  // Supervision: a postgres that dies is started again, sooner at first; requests fail (503) meanwhile.
  const stopping = new AbortController();
  const supervised = (async () => {
    for (;;) {
      const how = await exitOf(child);
      if (stopping.signal.aborted) return;
      opts.log?.error({ exit: how }, 'embedded PostgreSQL exited; starting it again');
      for (let delayMs = 200; ; delayMs = Math.min(delayMs * 2, 10_000)) {
        try {
          await sleep(delayMs, undefined, { signal: stopping.signal });
          child = await launch(bins, pgdata, account, args);
          if (stopping.signal.aborted) return;
          opts.log?.info({ pid: child.pid }, 'embedded PostgreSQL started again');
          break;
        } catch (err) {
          if (stopping.signal.aborted) return;
          opts.log?.error({ err: (err as Error).message }, 'embedded PostgreSQL did not start again');
        }
      }
    }
  })();

  let stopped: Promise<void> | null = null;
  return {
    connection,
    stop: () =>
      (stopped ??= (async () => {
        stopping.abort();
        await shutDown(child);
        await supervised;
        // A start the stop interrupted may have left a postgres behind.
        await shutDown(child);
        rmSync(infoPath(dataDir), { force: true });
        link.remove();
      })()),
  };
}

function exitOf(child: ChildProcess): Promise<string> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(`exit code ${child.exitCode}, signal ${child.signalCode}`);
  return new Promise((resolve) => child.once('exit', (code, signal) => resolve(`exit code ${code}, signal ${signal}`)));
}

/** The connection of a server's embedded database that is running and ready now, or null. */
export async function findRunningEmbedded(dataDir: string): Promise<EmbeddedConnection | null> {
  const info = embeddedConnection(dataDir);
  if (!info || !liveOwner(dataDir) || readPidFile(path.join(dataDir, PGDATA))?.[7]?.trim() !== 'ready') return null;
  const reachable = await new Promise<boolean>((resolve) => {
    const s = net.connect({ path: path.join(info.host, `.s.PGSQL.${info.port}`) });
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  return reachable ? info : null;
}

/** initdb into a fresh directory beside the final one, renamed when complete: an interrupted first start leaves no
 *  half-made database that looks whole. */
async function initialise(bins: PgBinaries, pgdata: string, account: Account | null): Promise<void> {
  const making = `${pgdata}.init`;
  rmSync(making, { recursive: true, force: true });
  mkdirSync(making, { mode: 0o700 });
  if (account) chownSync(making, account.uid, account.gid);
  const child = spawnAs(bins.initdb, [
    '-D', dataDirArg(making, account),
    '-U', USER,
    '--auth-local=trust',
    '--auth-host=scram-sha-256',
    '--encoding=UTF8',
    '--locale-provider=builtin',
    '--builtin-locale=C.UTF-8',
    '--locale=C',
  ], making, account);
  let output = '';
  child.stdout!.on('data', (c) => (output += c));
  child.stderr!.on('data', (c) => (output += c));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  if (code !== 0) throw new Error(`initdb failed (exit code ${code}): ${output.slice(-2000)}`);
  renameSync(making, pgdata);
}

/**
 * Run as `account` (root's stand-in), the programs start in the directory they work on: the directory is entered
 * before the switch of account, and `-D /proc/self/cwd` names it, so PostgreSQL needs no right to the directories
 * above DATA_DIR (root's home is closed to other accounts).
 */
function dataDirArg(dir: string, account: Account | null): string {
  return account && process.platform === 'linux' ? '/proc/self/cwd' : dir;
}

/** setpriv --pdeathsig: postgres gets SIGINT (a fast, clean shutdown) when this process dies, even by SIGKILL. */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => existsSync(p));

function spawnAs(program: string, args: string[], cwd: string, account: Account | null): ChildProcess {
  const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', LC_ALL: 'C' };
  const [file, argv] = SETPRIV ? [SETPRIV, ['--pdeathsig', 'SIGINT', '--', program, ...args]] : [program, args];
  return spawn(file, argv, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], ...(account && { uid: account.uid, gid: account.gid }) });
}

function postgresArgs(pgdata: string, account: Account | null, extra: Record<string, string>): string[] {
  const settings = { ...SETTINGS, port: String(SOCKET_PORT), ...extra };
  return ['-D', dataDirArg(pgdata, account), ...Object.entries(settings).flatMap(([k, v]) => ['-c', `${k}=${v}`])];
}

/** The socket's directory as clients name it: DATA_DIR/postgres, or a short link to it where that path is too long. */
function socketDirectory(pgdata: string, port: number): { host: string; remove(): void } {
  if (path.join(pgdata, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH) return { host: pgdata, remove: () => undefined };
  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-pg-'));
  symlinkSync(pgdata, path.join(dir, 'db'));
  return { host: path.join(dir, 'db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The first start may meet a postgres that is still shutting down, or backends of a killed one still exiting. */
async function launchWithRetries(bins: PgBinaries, pgdata: string, account: Account | null, args: string[]): Promise<ChildProcess> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await launch(bins, pgdata, account, args);
    } catch (err) {
      if (attempt >= 5) throw err;
      await sleep(500 * attempt);
    }
  }
}

async function launch(bins: PgBinaries, pgdata: string, account: Account | null, args: string[]): Promise<ChildProcess> {
  await clearLeftovers(pgdata);
  const child = spawnAs(bins.postgres, args, pgdata, account);
  let output = '';
  const collect = (c: Buffer) => {
    if (output.length < 16_000) output += c;
  };
  child.stdout!.on('data', collect);
  child.stderr!.on('data', collect);
  const first = await Promise.race([waitReady(pgdata, child), exitOf(child)]);
  if (first !== true) {
    throw new Error(`embedded PostgreSQL did not start (${first}): ${output.trim().slice(-2000)} (its log: ${path.join(pgdata, 'log')})`);
  }
  // From here postgres logs to its own files; the pipes only need draining.
  child.stdout!.off('data', collect).resume();
  child.stderr!.off('data', collect).resume();
  return child;
}

/** postmaster.pid names this child and says "ready" (as pg_ctl waits); false after two minutes. */
async function waitReady(pgdata: string, child: ChildProcess): Promise<true | string> {
  const deadline = Date.now() + 120_000;
  while (child.exitCode === null && child.signalCode === null) {
    const lines = readPidFile(pgdata);
    if (lines && Number(lines[0]) === child.pid && lines[7]?.trim() === 'ready') return true;
    if (Date.now() > deadline) {
      child.kill('SIGQUIT');
      return 'not ready after two minutes';
    }
    await sleep(25);
  }
  return 'exited';
}

function readPidFile(pgdata: string): string[] | null {
  try {
    return readFileSync(path.join(pgdata, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return null;
  }
}

/**
 * Before a start: a postmaster left running by a process that died (its owner is gone, or this is the owner's restart
 * of it) is shut down the way pg_ctl does (SIGINT: transactions in progress roll back, the rest is checkpointed).
 * Lock files naming a process that is not a postgres here (its PID reused after a reboot) are removed, but only when
 * no process at all runs in the directory; PostgreSQL itself handles one naming a PID that is gone.
 */
async function clearLeftovers(pgdata: string): Promise<void> {
  const pid = Number(readPidFile(pgdata)?.[0]);
  if (!pid) return;
  if (runsIn(pid, pgdata)) {
    await shutDown(pid);
    return;
  }
  if (processStart(pid) !== null && process.platform === 'linux' && !anyProcessIn(pgdata)) {
    rmSync(path.join(pgdata, 'postmaster.pid'), { force: true });
    for (const f of readdirSync(pgdata)) if (/^\.s\.PGSQL\.\d+\.lock$/.test(f)) rmSync(path.join(pgdata, f), { force: true });
  }
}

function anyProcessIn(dir: string): boolean {
  return readdirSync('/proc').some((p) => /^\d+$/.test(p) && runsIn(Number(p), dir));
}

/** SIGINT, then SIGQUIT (immediate: crash recovery at the next start) if the fast shutdown takes over a minute. */
async function shutDown(target: ChildProcess | number): Promise<void> {
  const alive = () => (typeof target === 'number' ? processStart(target) !== null : target.exitCode === null && target.signalCode === null);
  const signal = (s: NodeJS.Signals) => (typeof target === 'number' ? process.kill(target, s) : target.kill(s));
  for (const [sig, waitMs] of [['SIGINT', 60_000], ['SIGQUIT', 10_000]] as const) {
    if (!alive()) return;
    signal(sig);
    const until = Date.now() + waitMs;
    while (alive() && Date.now() < until) await sleep(20);
  }
  if (alive()) throw new Error('the embedded PostgreSQL does not stop');
}

async function setPassword(connection: EmbeddedConnection, password: string): Promise<void> {
  const pgp = pgPromise();
  try {
    await pgp(connection).none('ALTER ROLE $1:name PASSWORD $2', [USER, password]);
  } finally {
    pgp.end();
  }
}
