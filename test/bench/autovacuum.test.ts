// The bench's autovacuum stand-in (bench/lib/autovacuum.ts): autovacuum's rule applied to a scratch database whose
// server runs without it — a table past its thresholds is vacuumed and analyzed once, and not again until it
// passes them again.
import test from 'ava';
import pgPromise from 'pg-promise';
import { startAutovacuumStandIn } from '../../bench/lib/autovacuum.js';
import { createTestDatabase } from '../helpers/database.js';

const pgp = pgPromise();

test('a table past the thresholds is vacuumed and analyzed once, then left alone', async (t) => {
  const database = await createTestDatabase({ migrated: false });
  const db = pgp({ connectionString: database.url, max: 1 });
  const standIn = await startAutovacuumStandIn(database.url, { force: true });
  t.teardown(async () => {
    await standIn?.stop();
    await db.$pool.end();
    await database.drop();
  });
  t.truthy(standIn);
  // The machine's own autovacuum (where it runs) leaves this table to the stand-in.
  await db.none('CREATE TABLE rows_here (id int PRIMARY KEY, v int) WITH (autovacuum_enabled = false)');
  await db.none('INSERT INTO rows_here SELECT i, 0 FROM generate_series(1, 2000) i');
  await db.none('UPDATE rows_here SET v = 1 WHERE id <= 1000');
  await db.one('SELECT pg_stat_force_next_flush()');
  await db.one('SELECT 1'); // the flush happens when this session next goes idle
  const before = await db.one("SELECT reltuples FROM pg_class WHERE relname = 'rows_here'");
  t.is(Number(before.reltuples), -1, 'never analyzed nor vacuumed');

  await standIn!.pass();
  t.deepEqual(standIn!.counts, { vacuums: 1, analyzes: 1 });
  const after = await db.one(
    "SELECT c.reltuples, s.last_vacuum IS NOT NULL AS vacuumed, s.last_analyze IS NOT NULL AS analyzed FROM pg_class c JOIN pg_stat_user_tables s ON s.relid = c.oid WHERE c.relname = 'rows_here'",
  );
  t.is(Number(after.reltuples), 2000);
  t.true(after.vacuumed);
  t.true(after.analyzed);

  // Below the thresholds (50 + 20 % of 2,000 dead rows, 50 + 10 % changed): nothing more.
  await db.none('UPDATE rows_here SET v = 2 WHERE id <= 100');
  await db.one('SELECT pg_stat_force_next_flush()');
  await db.one('SELECT 1');
  await standIn!.pass();
  t.deepEqual(standIn!.counts, { vacuums: 1, analyzes: 1 });

  // Past the analyze threshold (250 changed rows of 2,000) but not the vacuum's (450 dead): analyzed only.
  await db.none('UPDATE rows_here SET v = 3 WHERE id > 1000 AND id <= 1200');
  await db.one('SELECT pg_stat_force_next_flush()');
  await db.one('SELECT 1');
  await standIn!.pass();
  t.deepEqual(standIn!.counts, { vacuums: 1, analyzes: 2 });
});

test('a server that runs autovacuum needs no stand-in', async (t) => {
  const database = await createTestDatabase({ migrated: false });
  t.teardown(() => database.drop());
  const db = pgp({ connectionString: database.url, max: 1 });
  const on = (await db.one("SELECT current_setting('autovacuum') = 'on' AS on")).on as boolean;
  await db.$pool.end();
  const standIn = await startAutovacuumStandIn(database.url);
  t.is(standIn === null, on);
  await standIn?.stop();
});
