// The bench suite's own database access: a scratch database per run on an external PostgreSQL server, and a
// direct connection to the database of the server under test (external, or the embedded one through the
// socket its data directory records) for bulk seeding and the database ceiling. The tests' throwaway databases
// (test/helpers/database.ts) are made here too.
import { randomBytes } from 'node:crypto';
import pgPromise, { type IDatabase } from 'pg-promise';
import { embeddedConnection } from '../../src/persistence/embedded.js';
import { startAutovacuumStandIn, type AutovacuumStandIn } from './autovacuum.js';

export type BenchDb = IDatabase<unknown>;

const pgp = pgPromise();
export const helpers = pgp.helpers;

export interface ScratchDatabase {
  url: string;
  /** The database's name on its server. */
  name: string;
  /** Autovacuum's work done by the bench (opts.autovacuum on a server with autovacuum off), or null. */
  autovacuum: AutovacuumStandIn | null;
  drop(): Promise<void>;
  /** Closes the connection kept for drop() and leaves the database on its server (someone else drops it). */
  release(): Promise<void>;
}

export interface ScratchOptions {
  /** Copied from this database (CREATE DATABASE … TEMPLATE) instead of the server's empty template1. */
  template?: string;
  /** Settings every session on the new database starts with (ALTER DATABASE … SET). */
  settings?: Record<string, string>;
  /** Stand in for autovacuum (bench/lib/autovacuum.ts) when the server runs with it off, as a deployment would not. */
  autovacuum?: boolean;
}

/** A fresh database on the server of `baseUrl`, dropped afterwards: every run starts from an empty schema (or from
 *  a copy of `opts.template`). */
export async function createScratchDatabase(baseUrl: string, prefix = 'palaver_bench', opts: ScratchOptions = {}): Promise<ScratchDatabase> {
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = pgp({ connectionString: baseUrl, application_name: name, max: 1 });
  admin.$pool.on('error', () => undefined);
  try {
    await admin.none(opts.template ? 'CREATE DATABASE $1:name TEMPLATE $2:name' : 'CREATE DATABASE $1:name', [name, opts.template]);
    for (const [setting, value] of Object.entries(opts.settings ?? {})) await admin.none('ALTER DATABASE $1:name SET $2:name = $3', [name, setting, value]);
  } catch (err) {
    await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]).catch(() => undefined);
    await admin.$pool.end();
    throw err;
  }
  const url = new URL(baseUrl);
  url.pathname = '/' + name;
  const autovacuum = opts.autovacuum ? await startAutovacuumStandIn(url.toString()) : null;
  return {
    url: url.toString(),
    name,
    autovacuum,
    async drop() {
      await autovacuum?.stop();
      await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]);
      await admin.$pool.end();
    },
    async release() {
      await autovacuum?.stop();
      await admin.$pool.end();
    },
  };
}

/** A connection to the server's database: its DATABASE_URL, or the embedded PostgreSQL of its data directory
 *  (reachable while that server runs). */
export function openDatabase(where: { databaseUrl: string | null; dataDir: string | null }, max = 8): BenchDb {
  if (where.databaseUrl) {
    const db = pgp({ connectionString: where.databaseUrl, max, application_name: 'palaver-bench' });
    db.$pool.on('error', () => undefined);
    return db;
  }
  if (!where.dataDir) throw new Error('the database of a server given by --url needs --database-url');
  const info = embeddedConnection(where.dataDir);
  if (!info) throw new Error(`no embedded database is recorded in ${where.dataDir}`);
  const db = pgp({ ...info, max });
  db.$pool.on('error', () => undefined);
  return db;
}

export async function closeDatabase(db: BenchDb): Promise<void> {
  await db.$pool.end();
}
