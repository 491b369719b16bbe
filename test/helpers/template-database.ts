// The database every test database is copied from: the migrations applied once per PostgreSQL server and set of
// migrations (its name carries their hash), by whichever test process needs it first, under an advisory lock.
// It stays on the server for later runs; CI drops it with the other `palaver_t_%` databases.
import { createHash } from 'node:crypto';
import pgPromise from 'pg-promise';
import { createDatabase } from '../../src/persistence/db.js';
import { loadMigrations, migrate } from '../../src/persistence/migrate.js';

const pgp = pgPromise();
const made = new Map<string, Promise<string>>();

/** The name of the migrated template on the server of `serverUrl` (made when missing). */
export function migratedTemplate(serverUrl: string): Promise<string> {
  let name = made.get(serverUrl);
  if (!name) {
    name = ensureTemplate(serverUrl);
    made.set(serverUrl, name);
    name.catch(() => made.delete(serverUrl));
  }
  return name;
}

/** Forgets the name made earlier (the database is gone): the next call checks the server again. */
export function forgetTemplate(serverUrl: string): void {
  made.delete(serverUrl);
}

async function ensureTemplate(serverUrl: string): Promise<string> {
  const migrations = loadMigrations();
  const hash = createHash('sha256').update(JSON.stringify(migrations)).digest('hex').slice(0, 12);
  const name = `palaver_t_template_${hash}`;
  const building = `${name}_building`;
  const admin = pgp({ connectionString: serverUrl, application_name: 'palaver-test-template', max: 1 });
  admin.$pool.on('error', () => undefined);
  try {
    await admin.task(async (t) => {
      // One session-level lock per template: the other test processes wait here while one builds it.
      const lock = parseInt(hash.slice(0, 8), 16);
      await t.one('SELECT pg_advisory_lock($1)', [lock]);
      try {
        if (await t.oneOrNone('SELECT 1 FROM pg_database WHERE datname = $1', [name])) return;
        // A build that died half-way is started over.
        await t.none('DROP DATABASE IF EXISTS $1:name WITH (FORCE)', [building]);
        await t.none('CREATE DATABASE $1:name', [building]);
        const url = new URL(serverUrl);
        url.pathname = '/' + building;
        const own = createDatabase(url.toString(), { max: 1 });
        try {
          await migrate(own.db);
        } finally {
          await own.close();
        }
        // Nobody connects to it again: CREATE DATABASE … TEMPLATE refuses a source with sessions open.
        await t.none('ALTER DATABASE $1:name WITH ALLOW_CONNECTIONS false', [building]);
        await t.none('ALTER DATABASE $1:name RENAME TO $2:name', [building, name]);
      } finally {
        await t.one('SELECT pg_advisory_unlock($1)', [lock]);
      }
    });
  } finally {
    await admin.$pool.end();
  }
  return name;
}
