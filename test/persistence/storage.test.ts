// Storage: restart keeps every row, on the embedded database and on the external one; migrations run once.
import test from 'ava';
import { createDatabase } from '../../src/persistence/db.js';
import { loadMigrations, migrate, pendingMigrations } from '../../src/persistence/migrate.js';
import { createTestDatabase } from '../helpers/database.js';
import { OWNER_EMAIL, startTestServer, type TestServer } from '../helpers/server.js';

async function restartKeepsData(t: any, embedded: boolean) {
  const testDatabase = embedded ? null : await createTestDatabase();
  let s: TestServer | undefined = await startTestServer({ embedded, reuse: testDatabase ? { dataDir: (await import('node:fs')).mkdtempSync('/tmp/palaver-restart-'), databaseUrl: testDatabase.url, testDatabase } : undefined });
  try {
    t.is(s.databaseUrl, embedded ? undefined : testDatabase!.url);
    const before = await s.client.get('/users/me', { auth: s.owner });
    t.is(before.status, 200);
    await s.stop();
    s = await startTestServer({ reuse: { dataDir: s.dataDir, databaseUrl: s.databaseUrl, testDatabase } });
    const after = await s.client.get('/users/me', { auth: s.owner });
    t.is(after.status, 200);
    t.is(after.json.user_id, before.json.user_id);
    t.is(after.json.email, OWNER_EMAIL);
    t.is(s.owner.apiKey, (await s.client.post('/fetch_api_key', { form: { username: OWNER_EMAIL, password: 'owner-password-123' } })).json.api_key);
    t.is(s.server.bootstrapped, null, 'the second start does not bootstrap again');
  } finally {
    await s?.close();
  }
}

test('restart keeps data: embedded PostgreSQL under DATA_DIR', (t) => restartKeepsData(t, true));
test('restart keeps data: a PostgreSQL from DATABASE_URL', (t) => restartKeepsData(t, false));

test('migrations apply once, concurrently started migrators do not race', async (t) => {
  const testDatabase = await createTestDatabase({ migrated: false });
  const a = createDatabase(testDatabase.url);
  const b = createDatabase(testDatabase.url);
  try {
    const [ra, rb] = await Promise.all([migrate(a.db), migrate(b.db)]);
    const all = loadMigrations().map((m) => m.name);
    t.deepEqual([...ra, ...rb].sort(), all.sort(), 'each migration applied by exactly one of them');
    t.deepEqual(await migrate(a.db), []);
    t.is(await pendingMigrations(a.db), 0);
  } finally {
    await a.close();
    await b.close();
    await testDatabase.drop();
  }
});
