// A throwaway database per test file: a fresh database on DATABASE_URL's server, or, with no DATABASE_URL, on the
// embedded PostgreSQL that the test files of one ava run share (database-keeper.ts runs it; the first file to need
// it starts the keeper).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import type net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createScratchDatabase, type ScratchDatabase } from '../../bench/lib/database.js';
import { forgetTemplate, migratedTemplate } from './template-database.js';
import { embeddedInUse, findRunningEmbedded, type EmbeddedConnection } from '../../src/persistence/embedded.js';

export interface TestDatabase {
  url: string;
  /** Hands the database to a process of its own that drops it (drop-database.ts): answered at once. */
  drop(): Promise<void>;
}

const PREFIX = 'palaver-testdb-';
const KEEPER = new URL('./database-keeper.js', import.meta.url);
const DROPPER = new URL('./drop-database.js', import.meta.url);
let shared: Promise<EmbeddedConnection> | null = null;

/** The URL of the server the test databases are made on. */
async function serverUrl(): Promise<string> {
  if (process.env.DATABASE_URL) return process.env.DATABASE_URL;
  shared ??= sharedServer();
  const { host, port, user, database } = await shared;
  return `postgres://${user}@${encodeURIComponent(host)}:${port}/${database}`;
}

/** Test files run in processes of their own, children of ava's main process: one server per main process. */
async function sharedServer(): Promise<EmbeddedConnection> {
  const dir = path.join(tmpdir(), `${PREFIX}${process.ppid}`);
  removeAbandoned(dir);
  try {
    mkdirSync(dir, { mode: 0o700 });
    spawn(process.execPath, [KEEPER.pathname, dir, String(process.ppid)], { detached: true, stdio: 'ignore' }).unref();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  for (const deadline = Date.now() + 120_000; Date.now() < deadline; await sleep(100)) {
    const running = await findRunningEmbedded(dir);
    if (running) return running;
    const failed = path.join(dir, 'failed');
    if (existsSync(failed)) throw new Error(`the tests' embedded PostgreSQL did not start: ${readFileSync(failed, 'utf8')}`);
  }
  throw new Error(`the tests' embedded PostgreSQL in ${dir} did not start within two minutes`);
}

/** Directories of test servers whose keepers died (killed) an hour ago or more; `own` (named after this run's PID,
 *  which an earlier run may have had) after two minutes, longer than a keeper takes to record itself. */
function removeAbandoned(own: string): void {
  for (const name of readdirSync(tmpdir())) {
    if (!name.startsWith(PREFIX)) continue;
    const dir = path.join(tmpdir(), name);
    try {
      const ageMs = Date.now() - statSync(dir).mtimeMs;
      if (!embeddedInUse(dir) && ageMs > (dir === own ? 120_000 : 3600_000)) rmSync(dir, { recursive: true, force: true });
    } catch {
      // Another account's, or already gone.
    }
  }
}

/** Settings of every test database: commits do not wait for the WAL to reach the disk (what a commit makes visible
 *  to other sessions is the same; only a crash of PostgreSQL itself could lose the last ones, and no test crashes
 *  it), so a test's many small transactions do not each wait for an fsync. */
const SETTINGS = { synchronous_commit: 'off' };

/**
 * A throwaway database. By default it is a copy of a database holding every migration (CREATE DATABASE … TEMPLATE,
 * much cheaper than running the migrations again in each test file); `{ migrated: false }` gives an empty one.
 */
export async function createTestDatabase(opts: { migrated?: boolean } = {}): Promise<TestDatabase> {
  const url = await serverUrl();
  const scratch = await createScratch(url, opts.migrated !== false);
  return {
    url: scratch.url,
    async drop() {
      await scratch.release();
      spawn(process.execPath, [DROPPER.pathname, url, scratch.name], { detached: true, stdio: 'ignore' }).unref();
    },
  };
}

async function createScratch(url: string, migrated: boolean): Promise<ScratchDatabase> {
  if (!migrated) return createScratchDatabase(url, 'palaver_t', { settings: SETTINGS });
  try {
    return await createScratchDatabase(url, 'palaver_t', { template: await migratedTemplate(url), settings: SETTINGS });
  } catch (err) {
    // The template was dropped meanwhile (CI drops every `palaver_t_%` database when its run ends): made again, once.
    if ((err as { code?: string }).code !== '3D000') throw err;
    forgetTemplate(url);
    return createScratchDatabase(url, 'palaver_t', { template: await migratedTemplate(url), settings: SETTINGS });
  }
}

/** Where a PostgreSQL URL's server listens: a unix socket (the host is a directory) or TCP. */
export function socketOf(url: string): net.NetConnectOpts {
  const u = new URL(url);
  const host = decodeURIComponent(u.hostname);
  const port = Number(u.port || 5432);
  return host.startsWith('/') ? { path: path.join(host, `.s.PGSQL.${port}`) } : { host, port };
}
