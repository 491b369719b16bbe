// Leases and fencing on a real PostgreSQL: one owner at a time, takeover only after the lease lapsed, and a former
// owner's transaction refused at commit time even though it has not noticed the takeover.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import { isFenced, Leases } from '../../src/cluster/leases.js';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { migrate } from '../../src/persistence/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let scratch: TestDatabase;
let database: Database;

test.before(async () => {
  scratch = await createTestDatabase();
  database = createDatabase(scratch.url, { max: 6 });
  await migrate(database.db);
  await database.db.none('CREATE TABLE fenced_writes (v text)');
});

test.after.always(async () => {
  await database?.close();
  await scratch?.drop();
});

test.serial('a lease has one owner; another takes it only once it lapsed, with a higher epoch', async (t) => {
  // Long enough that a loaded machine still takes, refuses and renews within one lease; then it lapses.
  const LEASE_MS = 3000;
  const a = new Leases(database.db, 'a', LEASE_MS);
  const b = new Leases(database.db, 'b', LEASE_MS);
  const ea = await a.acquire('realm:1');
  t.is(typeof ea, 'number');
  t.is(await b.acquire('realm:1'), null, 'held by a');
  t.deepEqual(await a.renew(), [], 'a keeps it');
  await sleep(LEASE_MS + 200);
  const eb = await b.acquire('realm:1');
  t.is(eb, ea! + 1);
  t.deepEqual(await a.renew(), ['realm:1'], 'a learns it lost the lease');
  t.is(a.epochOf('realm:1'), undefined);
  t.is(b.epochOf('realm:1'), eb!);
});

test.serial('a fenced former owner cannot commit, even when it has not noticed the takeover', async (t) => {
  const a = new Leases(database.db, 'a2', 300);
  const b = new Leases(database.db, 'b2', 60_000);
  const epoch = (await a.acquire('realm:2'))!;
  await sleep(400);
  t.truthy(await b.acquire('realm:2'));
  // a still believes in its epoch (no renewal ran): its write transaction checks the lease inside and is refused.
  const err = await t.throwsAsync(
    database.db.tx(async (tx) => {
      await tx.none("INSERT INTO fenced_writes (v) VALUES ('from a')");
      await a.fence(tx, 'realm:2', epoch);
    }),
  );
  t.true(isFenced(err));
  t.is(err!.message, 'This server no longer owns the realm; try again');
  t.is((await database.db.one('SELECT count(*)::int AS n FROM fenced_writes')).n, 0, 'nothing of the fenced write committed');
  // The new owner's writes go through.
  await database.db.tx(async (tx) => {
    await b.fence(tx, 'realm:2', b.epochOf('realm:2')!);
    await tx.none("INSERT INTO fenced_writes (v) VALUES ('from b')");
  });
  t.deepEqual(await database.db.map('SELECT v FROM fenced_writes', [], (r: { v: string }) => r.v), ['from b']);
});

test.serial('a takeover waits for the owner transaction that passed its fence to end', async (t) => {
  const a = new Leases(database.db, 'a3', 300);
  const b = new Leases(database.db, 'b3', 60_000);
  const epoch = (await a.acquire('realm:3'))!;
  let release!: () => void;
  const held = new Promise<void>((r) => (release = r));
  let fenced!: () => void;
  const passed = new Promise<void>((r) => (fenced = r));
  const writing = database.db.tx(async (tx) => {
    await a.fence(tx, 'realm:3', epoch);
    fenced();
    await held;
    await tx.none("INSERT INTO fenced_writes (v) VALUES ('a3 before takeover')");
  });
  await passed;
  await sleep(400); // the lease lapses while a's transaction is open
  let takenOver = false;
  const takeover = b.acquire('realm:3').then((e) => {
    takenOver = true;
    return e;
  });
  await sleep(300);
  t.false(takenOver, 'the takeover waits for the fenced transaction');
  release();
  await writing;
  t.truthy(await takeover);
  t.true((await database.db.map('SELECT v FROM fenced_writes', [], (r: { v: string }) => r.v)).includes('a3 before takeover'));
});
