// A throwaway database per test file: a fresh database on DATABASE_URL's server, or none (embedded PGlite).
import { randomBytes } from 'node:crypto';
import pgPromise from 'pg-promise';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

const pgp = pgPromise();

/** null when DATABASE_URL is unset: the server then uses its embedded database. */
export async function createTestDatabase(): Promise<TestDatabase | null> {
  const base = process.env.DATABASE_URL;
  if (!base) return null;
  const name = `palaver_t_${randomBytes(6).toString('hex')}`;
  const admin = pgp({ connectionString: base, application_name: name, max: 1 });
  admin.$pool.on('error', () => undefined);
  await admin.none('CREATE DATABASE $1:name', [name]);
  const url = new URL(base);
  url.pathname = '/' + name;
  return {
    url: url.toString(),
    async drop() {
      await admin.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [name]);
      await admin.$pool.end();
    },
  };
}
