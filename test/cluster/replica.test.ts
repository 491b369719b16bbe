// A replica applies each committed batch of a realm owned elsewhere once: a batch delivered twice is taken once, a
// batch its working set's load already read (its transaction committed before the load's snapshot) is not applied
// again, and a batch committed while a load ran is applied to the fresh working set when the snapshot misses it.
// Transaction IDs and snapshots come from a real PostgreSQL (the tests share one table, so they run serially).
import test from 'ava';
import type { RealmEvent } from '../../src/bus/events.js';
import { RECENT_MS, Replica, type ReplicaDeps } from '../../src/cluster/replica.js';
import type { PublishedBatch } from '../../src/cluster/owners.js';
import { createLogger } from '../../src/log.js';
import { createDatabase, type Db } from '../../src/persistence/db.js';
import { committedBefore, readInOneSnapshot } from '../../src/persistence/snapshots.js';
import type { CommandRegistry } from '../../src/realm/commands.js';
import type { RealmState } from '../../src/realm/state.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let database: TestDatabase;
let handle: ReturnType<typeof createDatabase>;
let db: Db;

test.before(async () => {
  database = await createTestDatabase();
  handle = createDatabase(database.url, { max: 4 });
  db = handle.db;
  await db.none('CREATE TABLE items (x int)');
});

test.after.always(async () => {
  await handle?.close();
  await database?.drop();
});

/** A committed write: its transaction ID, as the fencing check reports it. */
function commitWrite(x: number): Promise<string> {
  return db.tx(async (t) => {
    await t.none('INSERT INTO items VALUES ($1)', [x]);
    return (await t.one<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).xid;
  });
}

/** A working set that is a list of items, loaded from the table in one snapshot. */
interface Items {
  items: number[];
  loadedAt: string | null;
}

async function load(): Promise<Items> {
  const { value, snapshot } = await readInOneSnapshot(db, (t) => t.map('SELECT x FROM items ORDER BY x', [], (r: { x: number }) => r.x));
  return { items: value, loadedAt: snapshot };
}

const registry = { 'item.add': { check: () => undefined, apply: (state: RealmState, x: number) => (state as unknown as Items).items.push(x) } } as unknown as CommandRegistry;

function replicaOf(state: () => Items | undefined, now?: () => number) {
  const delivered: unknown[] = [];
  /** Each delivery's readBy. */
  const readBy: (string | undefined)[] = [];
  const reloads: number[] = [];
  const deps: ReplicaDeps = {
    commands: registry,
    log: createLogger('silent'),
    stateIfLoaded: () => state() as unknown as RealmState | undefined,
    reload: async (realmId) => void reloads.push(realmId),
    deliver: (_realmId, events, by) => {
      delivered.push(...events);
      readBy.push(by);
    },
    dropRealm: () => undefined,
    now,
  };
  return { replica: new Replica(deps), delivered, reloads, readBy };
}

function batch(seq: number, x: number, commitId: string | null): PublishedBatch {
  return { from: 'owner', epoch: 1, seq, commitId, applied: [['item.add', x]], events: [{ type: 'item', x } as unknown as RealmEvent] };
}

test.serial('committedBefore agrees with PostgreSQL on committed, later and in-progress transactions', async (t) => {
  const before = await commitWrite(1);
  // A transaction running while the snapshot is taken, committed after it.
  let finish!: () => void;
  const finished = new Promise<void>((r) => (finish = r));
  let runningXid!: string;
  let started!: () => void;
  const isRunning = new Promise<void>((r) => (started = r));
  const running = db.tx(async (tx) => {
    runningXid = (await tx.one<{ xid: string }>('SELECT pg_current_xact_id()::text AS xid')).xid;
    started();
    await finished;
  });
  await isRunning;
  const { snapshot } = await readInOneSnapshot(db, async () => undefined);
  finish();
  await running;
  const after = await commitWrite(2);
  for (const [xid, want] of [[before, true], [runningXid, false], [after, false]] as const) {
    t.is(committedBefore(xid, snapshot), want, `xid ${xid} in ${snapshot}`);
    const pg = await db.one<{ v: boolean }>('SELECT pg_visible_in_snapshot($1::xid8, $2::pg_snapshot) AS v', [xid, snapshot]);
    t.is(pg.v, want, 'PostgreSQL says the same');
  }
});

test.serial('a batch delivered twice is applied and delivered once', async (t) => {
  const state: Items = { items: [], loadedAt: null };
  const { replica, delivered, reloads } = replicaOf(() => state);
  const first = batch(1, 10, await commitWrite(10));
  t.is(replica.receive(7, first).outcome, 'applied');
  t.is(replica.receive(7, first).outcome, 'duplicate');
  t.is(replica.receive(7, structuredClone(first)).outcome, 'duplicate', 'a copy from the wire too');
  t.is(replica.receive(7, batch(2, 11, await commitWrite(11))).outcome, 'applied');
  t.is(replica.receive(7, batch(1, 10, first.commitId)).outcome, 'duplicate', 'late, after the next one');
  t.deepEqual(state.items, [10, 11]);
  t.is(delivered.length, 2);
  t.deepEqual(reloads, [], 'a duplicate is no gap');
});

test.serial('a batch the load already read is not applied again; one committed after its snapshot is', async (t) => {
  const inLoad = batch(1, 20, await commitWrite(20));
  const state = await load();
  const afterLoad = batch(2, 21, await commitWrite(21));
  const { replica, delivered, readBy } = replicaOf(() => state);
  // The batch committed before the load arrives after it (NATS was slower than the database).
  t.is(replica.receive(3, inLoad).outcome, 'applied');
  t.is(replica.receive(3, afterLoad).outcome, 'applied');
  t.deepEqual(state.items.filter((x) => x >= 20 && x < 30), [20, 21], 'each once');
  t.is(delivered.length, 2);
  // Queues registered on this working set show the first already: its delivery says which commit the load read.
  t.deepEqual(readBy, [inLoad.commitId!, undefined]);
});

test.serial('batches that arrive while the realm loads are applied to the fresh working set unless its snapshot holds them', async (t) => {
  let state: Items | undefined;
  const { replica } = replicaOf(() => state);
  const early = batch(1, 30, await commitWrite(30));
  t.is(replica.receive(4, early).outcome, 'held', 'nothing loaded yet');
  // The load's snapshot is taken; a batch commits and arrives before the load is done.
  const loading = readInOneSnapshot(db, async (tx) => {
    const rows = await tx.map('SELECT x FROM items ORDER BY x', [], (r: { x: number }) => r.x);
    const late = batch(2, 31, await commitWrite(31));
    t.is(replica.receive(4, late).outcome, 'held');
    return rows;
  });
  const { value, snapshot } = await loading;
  const fresh: Items = { items: value, loadedAt: snapshot };
  t.false(fresh.items.includes(31), 'the snapshot predates the late batch');
  t.true(replica.loaded(4, fresh as unknown as RealmState));
  state = fresh;
  t.deepEqual(fresh.items.filter((x) => x >= 30 && x < 40), [30, 31], 'the early batch once (from the load), the late one applied');
  // Later batches go straight to it.
  t.is(replica.receive(4, batch(3, 32, await commitWrite(32))).outcome, 'applied');
  t.deepEqual(fresh.items.filter((x) => x >= 30 && x < 40), [30, 31, 32]);
});

test.serial('a gap in the batch numbers reloads the realm', async (t) => {
  const state: Items = { items: [], loadedAt: null };
  const { replica, reloads } = replicaOf(() => state);
  replica.receive(5, batch(1, 40, await commitWrite(40)));
  t.is(replica.receive(5, batch(3, 42, await commitWrite(42))).outcome, 'reload');
  t.deepEqual(reloads, [5]);
});

test.serial("a quiet realm's kept batches are dropped once older than the window; a load that missed one loads again", async (t) => {
  const clock = { ms: 1_000_000 };
  let state: Items | undefined;
  const { replica } = replicaOf(() => state, () => clock.ms);
  // A load's snapshot is taken before the realm's last batches commit; the load is slow.
  const slow = await load();
  for (let seq = 1; seq <= 3; seq++) t.is(replica.receive(6, batch(seq, 50 + seq, await commitWrite(50 + seq))).outcome, 'held');
  t.is(replica.kept(), 3);
  clock.ms += RECENT_MS / 2;
  replica.sweep();
  t.is(replica.kept(), 3, 'kept within the window');
  // No batch arrives for the realm any more: the timer drops them all the same.
  clock.ms += RECENT_MS;
  replica.sweep();
  t.is(replica.kept(), 0, 'dropped past the window without a next batch');
  t.false(replica.loaded(6, slow as unknown as RealmState), 'the slow load misses a dropped batch: it must load again');
  const fresh = await load();
  t.true(replica.loaded(6, fresh as unknown as RealmState), 'a load after them holds them');
  t.deepEqual(fresh.items.filter((x) => x > 50 && x < 60), [51, 52, 53]);
});

test.serial('a load drops the kept batches older than the window before it reads them', async (t) => {
  const clock = { ms: 5_000_000 };
  const { replica } = replicaOf(() => undefined, () => clock.ms);
  replica.receive(8, batch(1, 61, await commitWrite(61)));
  clock.ms += RECENT_MS + 1;
  replica.receive(9, batch(1, 62, await commitWrite(62)));
  t.is(replica.kept(), 2, 'another realm\'s batch does not prune this one');
  t.true(replica.loaded(8, (await load()) as unknown as RealmState));
  t.is(replica.kept(), 1, "realm 8's old batch went on read");
});
