// Applies the numbered SQL migrations once, under an advisory lock so concurrent starts do not race.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { migrationsDir } from '../paths.js';
import type { Db } from './db.js';

const MIGRATION_LOCK = 735_201;

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function loadMigrations(dir = migrationsDir): Migration[] {
  return readdirSync(dir)
    .filter((f) => /^\d+_.+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: parseInt(f, 10), name: f, sql: readFileSync(path.join(dir, f), 'utf8') }));
}

/** Applies pending migrations; returns the names of those applied now. */
export async function migrate(db: Db, migrations = loadMigrations()): Promise<string[]> {
  return db.tx('migrate', async (t) => {
    await t.one('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await t.none(`CREATE TABLE IF NOT EXISTS schema_migrations (
      version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
    const applied = new Set(await t.map('SELECT version FROM schema_migrations', [], (r) => r.version as number));
    const done: string[] = [];
    for (const m of migrations) {
      if (applied.has(m.version)) continue;
      await t.none(m.sql);
      await t.none('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
      done.push(m.name);
    }
    return done;
  });
}

export async function pendingMigrations(db: Db, migrations = loadMigrations()): Promise<number> {
  const applied = await db.map('SELECT version FROM schema_migrations', [], (r) => r.version as number).catch(() => []);
  const set = new Set(applied);
  return migrations.filter((m) => !set.has(m.version)).length;
}
