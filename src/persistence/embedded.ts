// The embedded database: a real PostgreSQL in DATA_DIR/postgres, made on first start, run and supervised by this
// process (restarted if it dies, stopped with it), reached over a unix socket in that directory; TCP only on request.
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import pgPromise from 'pg-promise';
import type { Config } from '../config.js';
import { pgBinaries } from './embedded-binaries.js';
import { databaseAccount, processStart } from './embedded-host.js';
import { exitOf, initialise, launch, launchWithRetries, postgresArgs, readPidFile, shutDown, SUPERUSER } from './embedded-process.js';

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
  max_connections: '100',
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
  const connection: EmbeddedConnection = { host: link.host, port, user: SUPERUSER, database: 'postgres' };
  const start = processStart(process.pid) ?? 0;
  writeFileSync(infoPath(dataDir), JSON.stringify({ ...connection, owner: { pid: process.pid, start } } satisfies Info), { mode: 0o600 });

  const args = postgresArgs(pgdata, account, { ...SETTINGS, port: String(port), ...(opts.tcp && { listen_addresses: '127.0.0.1' }) });
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

/** The socket's directory as clients name it: DATA_DIR/postgres, or a short link to it where that path is too long. */
function socketDirectory(pgdata: string, port: number): { host: string; remove(): void } {
  if (path.join(pgdata, `.s.PGSQL.${port}`).length <= MAX_SOCKET_PATH) return { host: pgdata, remove: () => undefined };
  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-pg-'));
  symlinkSync(pgdata, path.join(dir, 'db'));
  return { host: path.join(dir, 'db'), remove: () => rmSync(dir, { recursive: true, force: true }) };
}

async function setPassword(connection: EmbeddedConnection, password: string): Promise<void> {
  const db = pgPromise()(connection);
  try {
    await db.none('ALTER ROLE $1:name PASSWORD $2', [SUPERUSER, password]);
  } finally {
    // Not pgp.end(): that would close every pg-promise pool of the process.
    await db.$pool.end();
  }
}
