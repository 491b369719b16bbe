// The realm actor's pipelined group commit over real PostgreSQL: batches of pipelined commands are taken and
// written while earlier ones commit, each on its own connection; answers, memory and events follow the order the
// batches were taken, whatever order their COMMITs finish in; a commit that fails or loses its connection in the
// middle of a pipeline leaves memory agreeing with the database. Commits are held deterministically: a deferred
// constraint trigger (it runs inside COMMIT) takes a shared advisory lock the test holds exclusively.
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import { createActor, waitFor, type Actor } from 'xstate';
import { PIPELINE_DEPTH, realmMachine } from '../../src/actors/realm.machine.js';
import { RealmHandle } from '../../src/actors/realms.js';
import { EventHub } from '../../src/bus/hub.js';
import { toWire } from '../../src/events/wire.js';
import { ApiError, errors } from '../../src/errors.js';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { migrate } from '../../src/persistence/migrate.js';
import { coreCommands, type CommandDef, type CommandRegistry } from '../../src/realm/commands.js';
import { createRealm } from '../../src/realm/provision.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { untilSnapshot } from '../helpers/snapshot.js';

const quiet = { error: () => undefined };

let database: Database;
let testDb: TestDatabase | undefined;
let realmId: number;

/** The advisory locks COMMITs wait on: bodies starting `a:` wait on HOLD_A, `b:` on HOLD_B. */
const HOLD_A = 9101;
const HOLD_B = 9102;
/** The advisory lock a write itself waits on (before its insert): bodies starting `w:`. */
const HOLD_W = 9103;

test.before(async () => {
  testDb = await createTestDatabase();
  database = createDatabase(testDb.url);
  await migrate(database.db);
  await database.db.none('CREATE TABLE pnotes (id serial PRIMARY KEY, body text NOT NULL)');
  await database.db.none(`CREATE FUNCTION pnotes_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.body LIKE 'a:%' THEN PERFORM pg_advisory_xact_lock_shared(${HOLD_A}); END IF;
      IF NEW.body LIKE 'b:%' THEN PERFORM pg_advisory_xact_lock_shared(${HOLD_B}); END IF;
      IF NEW.body LIKE '%fail%' THEN RAISE EXCEPTION 'refused at commit'; END IF;
      RETURN NULL;
    END $$`);
  await database.db.none(`CREATE CONSTRAINT TRIGGER pnotes_at_commit AFTER INSERT ON pnotes
    DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION pnotes_at_commit()`);
  realmId = (await database.db.tx((t) => createRealm(t, { stringId: 'pipeline', name: 'Pipeline test' }))).id;
});
test.after.always(async () => {
  await database?.close();
  await testDb?.drop();
});

interface Log {
  /** Bodies applied to memory, in order: the working set's view of the table. */
  applied: string[];
  /** Each body's session (pg_backend_pid), recorded by its write. */
  pids: Map<string, number>;
}

/** A pipelined command (it touches nothing another command does) writing one row to pnotes. */
function noteCommands(log: Log): CommandRegistry {
  const note: CommandDef<string, string, { body: string; id: number }> = {
    batchable: true,
    touches: () => [],
    check(_state, body) {
      if (body.includes('refuse')) throw errors.badRequest('Refused by check');
      return body;
    },
    async write(t, body) {
      log.pids.set(body, await t.one('SELECT pg_backend_pid() AS p', [], (r) => r.p as number));
      if (body.startsWith('w:')) await t.one('SELECT pg_advisory_xact_lock_shared($1)', [HOLD_W]);
      return { body, id: await t.one('INSERT INTO pnotes (body) VALUES ($1) RETURNING id', [body], (r) => r.id as number) };
    },
    apply(_state, r) {
      log.applied.push(r.body);
    },
    events: (_state, r) => [{ event: { type: 'note', body: r.body }, users: [1] }],
  };
  // Commands that only publish: one answered as it arrives, one that keeps the mailbox order (the default).
  const publishes = (answeredAtOnce: boolean): CommandDef<string, string, string> => ({
    batchable: true,
    answeredAtOnce,
    check: (_state, body) => body,
    events: (_state, body) => [{ event: { type: 'note', body }, users: [1] }],
  });
  return { ...coreCommands, note, shout: publishes(true), peek: publishes(false) };
}

type RealmActor = Actor<typeof realmMachine>;

async function startRealm(log: Log, pipelineDepth?: number) {
  const hub = new EventHub(quiet);
  const events: string[] = [];
  hub.subscribe((_realm, evs) => {
    for (const e of evs) events.push(toWire(e.event).body as string);
  });
  const actor = createActor(realmMachine, { input: { realmId, db: database.db, hub, commands: noteCommands(log), pipelineDepth } });
  actor.start();
  await waitFor(actor, (s) => s.matches('ready'));
  const handle = new RealmHandle<CommandRegistry>(realmId, actor, new Map(), true);
  const command = (kind: string, input?: unknown) => handle.dispatch(kind, input);
  /** Every answer or refusal, in the order the callers got them. */
  const answered: string[] = [];
  const dispatch = (body: string) =>
    (handle.dispatch('note', body) as Promise<{ body: string }>).then(
      (r) => {
        answered.push(r.body);
        return r;
      },
      (err: unknown) => {
        answered.push(`${body}!`);
        throw err;
      },
    );
  return { actor, dispatch, command, events, answered };
}

/** A note sent to the actor as a COMMAND event (not through RealmHandle): its answer or refusal logged in `answered`. */
function commandEvent(actor: RealmActor, answered: string[], body: string): Promise<unknown> {
  return new Promise((resolve, reject) => actor.send({ type: 'COMMAND', command: { kind: 'note', input: body, resolve, reject } })).then(
    (r) => {
      answered.push((r as { body: string }).body);
      return r;
    },
    (err: unknown) => {
      answered.push(`${body}!`);
      throw err;
    },
  );
}

/** Waits until the batch holding `body` has done its writes (only its COMMIT left). */
async function written(actor: RealmActor, body: string): Promise<void> {
  await untilSnapshot(actor, (s) => s.context.inFlight.some((b) => b.written && b.batch.some((c) => c.input === body)));
}

/** Sessions of the test database in a transaction and doing nothing (`idle in transaction`). */
const idleInTransaction = () =>
  database.db.one("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle in transaction'", [], (r) => r.n as number);

const waitingOnLocks = () =>
  database.db.one("SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'", [], (r) => r.n as number);

/** A session of its own holding the advisory locks COMMITs wait on, until released. */
async function holdCommits(...keys: number[]) {
  const session = await database.db.connect();
  for (const k of keys) await session.one('SELECT pg_advisory_lock($1)', [k]);
  return {
    release: (k: number) => session.one('SELECT pg_advisory_unlock($1)', [k]),
    // A test that failed before releasing them must not leave them held by a pooled connection (later tests would hang).
    done: async () => {
      await session.one('SELECT pg_advisory_unlock_all()');
      session.done();
    },
  };
}

const rows = () => database.db.map('SELECT body FROM pnotes ORDER BY id', [], (r) => r.body as string);

/**
 * A fresh table and realm actor, commits held on `keys` until released; afterwards the locks, the actor and the
 * realm's name (some tests change it outside the actor) are put back.
 */
async function scenario(keys: number[], run: (r: Awaited<ReturnType<typeof startRealm>> & { log: Log; hold: Awaited<ReturnType<typeof holdCommits>> }) => Promise<void>, pipelineDepth?: number) {
  await database.db.none('TRUNCATE pnotes');
  const log: Log = { applied: [], pids: new Map() };
  const realm = await startRealm(log, pipelineDepth);
  const hold = await holdCommits(...keys);
  try {
    await run({ ...realm, log, hold });
  } finally {
    await database.db.none("UPDATE realms SET name = 'Pipeline test' WHERE id = $1", [realmId]);
    await hold.done();
    realm.actor.stop();
  }
}

test.serial('batches are written while earlier ones commit; answers, memory and events follow the batches’ order, not their COMMITs’', (t) =>
  scenario([HOLD_A, HOLD_B], async ({ actor, dispatch, events, answered, log, hold }) => {
    // The first batch's COMMIT waits on A, the next ones' on B: they commit first, yet nothing is answered before
    // the first batch.
    const order = ['a:1', 'b:2', 'b:3', 'b:4'];
    const sends: Promise<unknown>[] = [];
    for (const body of order) {
      sends.push(dispatch(body));
      await written(actor, body);
    }
    const snap = actor.getSnapshot().context;
    t.is(snap.inFlight.length, PIPELINE_DEPTH, 'four batches in flight at once');
    t.true(actor.getSnapshot().matches({ ready: 'writing' }), 'operators see it writing');
    t.is(new Set(order.map((b) => log.pids.get(b))).size, 4, 'each on its own connection');
    // A fifth waits in the mailbox: the pipeline is full.
    const fifth = dispatch('b:5');
    await sleep(100);
    t.is(actor.getSnapshot().context.pending.length, 1, 'the fifth waits for room');

    await hold.release(HOLD_B);
    // b:2…b:4 commit now; they may not be answered before a:1.
    await untilSnapshot(actor, (s) => s.context.inFlight.filter((b) => b.result).length === 3);
    t.deepEqual(answered, [], 'no answer before the first batch commits');
    t.deepEqual(log.applied, [], 'memory unchanged before the first batch commits');
    t.deepEqual(await database.db.map("SELECT body FROM pnotes WHERE body LIKE 'b:%' ORDER BY id", [], (r) => r.body), ['b:2', 'b:3', 'b:4'], 'the later batches did commit');

    await hold.release(HOLD_A);
    await Promise.all([...sends, fifth]);
    const all = [...order, 'b:5'];
    t.deepEqual(answered, all, 'answered in batch order');
    t.deepEqual(log.applied, all, 'applied in batch order');
    t.deepEqual(events, all, 'published in batch order');
    t.deepEqual(await rows(), all, 'IDs drawn in batch order; memory agrees with the database');
    t.true(actor.getSnapshot().matches({ ready: 'idle' }));
  }));

test.serial('a non-pipelined command waits for the pipeline to drain and runs alone', (t) =>
  scenario([HOLD_A], async ({ actor, dispatch, command, answered, hold }) => {
    const first = dispatch('a:first');
    await written(actor, 'a:first');
    await database.db.none("UPDATE realms SET name = 'Renamed during the pipeline' WHERE id = $1", [realmId]);
    // reload is not pipelined: it waits for a:first to settle, and the note behind it waits for the reload.
    const reload = command('realm.reload');
    const after = dispatch('after-reload');
    await sleep(100);
    const snap = actor.getSnapshot().context;
    t.is(snap.inFlight.length, 1);
    t.is(snap.pending.length, 2, 'neither the reload nor the note behind it was taken');
    await hold.release(HOLD_A);
    await Promise.all([first, reload, after]);
    t.deepEqual(answered, ['a:first', 'after-reload']);
    t.is(actor.getSnapshot().context.state!.realm.name, 'Renamed during the pipeline');
  }));

test.serial('a COMMIT failing in the middle of a pipeline fails its batch alone; the later batches commit and memory agrees with the database', (t) =>
  scenario([HOLD_A, HOLD_B], async ({ actor, dispatch, events, answered, log, hold }) => {
    const outcomes: Promise<PromiseSettledResult<unknown>[]>[] = [];
    // Batch 1 commits last (A); batch 2 fails at its COMMIT (a deferred trigger); batch 3 was taken, checked and
    // written while 2 was in flight, and commits.
    for (const body of ['a:1', 'b:fail-2', 'b:3']) {
      outcomes.push(Promise.allSettled([dispatch(body)]));
      await written(actor, body);
    }
    t.is(actor.getSnapshot().context.inFlight.length, 3);
    await hold.release(HOLD_B);
    // Batch 2 is written again with savepoints (the rule for a failed batch) and fails again at COMMIT.
    await untilSnapshot(actor, (s) => s.context.inFlight.filter((b) => b.result).length === 2);
    t.deepEqual(answered, [], 'nothing answered ahead of batch 1');
    await hold.release(HOLD_A);
    const settled = (await Promise.all(outcomes)).map(([o]) => o!);
    t.deepEqual(settled.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
    t.regex(String((settled[1] as PromiseRejectedResult).reason.message), /refused at commit/);
    t.deepEqual(answered, ['a:1', 'b:fail-2!', 'b:3']);
    t.deepEqual(log.applied, ['a:1', 'b:3'], 'the failed batch never reached memory');
    t.deepEqual(events, ['a:1', 'b:3'], 'nor its events');
    t.deepEqual(await rows(), log.applied, 'memory agrees with the database, in order');
    t.false(actor.getSnapshot().context.stale, 'a refused commit is certain: no reload needed');
    // The pipeline goes on.
    await dispatch('next');
    t.deepEqual(await rows(), [...log.applied]);
  }));

test.serial('a connection lost during a COMMIT in the middle of a pipeline: 503 for its batch, the later batch commits, the working set is reloaded before the next check', (t) =>
  scenario([HOLD_A], async ({ actor, dispatch, answered, log, hold }) => {
    const lost = Promise.allSettled([dispatch('a:lost')]);
    await written(actor, 'a:lost');
    const later = dispatch('a:later');
    await written(actor, 'a:later');
    t.is(actor.getSnapshot().context.inFlight.length, 2);
    // The session committing a:lost is ended while its COMMIT waits (inside the deferred trigger).
    const pid = log.pids.get('a:lost')!;
    t.not(pid, log.pids.get('a:later'));
    t.true(await database.db.one('SELECT pg_terminate_backend($1) AS ok', [pid], (r) => r.ok as boolean));
    await untilSnapshot(actor, (s) => s.context.stale);
    // Meanwhile the database changes outside the actor: only a reload shows it.
    await database.db.none("UPDATE realms SET name = 'Changed while uncertain' WHERE id = $1", [realmId]);
    await hold.release(HOLD_A);
    const [lostOutcome] = await lost;
    t.is(lostOutcome!.status, 'rejected');
    const reason = (lostOutcome as PromiseRejectedResult).reason as ApiError;
    t.true(reason instanceof ApiError);
    t.is(reason.status, 503);
    t.is((await later).body, 'a:later', 'the later batch, independent of it, committed and was answered');
    t.deepEqual(answered, ['a:lost!', 'a:later']);
    t.deepEqual(await rows(), ['a:later'], 'the ended session’s transaction rolled back');
    t.deepEqual(log.applied, ['a:later']);
    t.is(actor.getSnapshot().context.state!.realm.name, 'Pipeline test', 'not reloaded yet: nothing was checked since');
    // The next batch first reloads the working set, so memory agrees with the database again.
    await dispatch('next');
    t.is(actor.getSnapshot().context.state!.realm.name, 'Changed while uncertain');
    t.false(actor.getSnapshot().context.stale);
    t.deepEqual(await rows(), ['a:later', 'next']);
  }));

test.serial('REALM_PIPELINE_DEPTH 1 commits one batch at a time', (t) =>
  scenario([HOLD_A], async ({ actor, dispatch, log, hold }) => {
    const first = dispatch('a:one');
    await written(actor, 'a:one');
    const second = dispatch('a:two');
    await sleep(100);
    t.is(actor.getSnapshot().context.inFlight.length, 1);
    t.is(actor.getSnapshot().context.pending.length, 1);
    await hold.release(HOLD_A);
    await Promise.all([first, second]);
    t.deepEqual(log.applied, ['a:one', 'a:two']);
  }, 1));

test.serial('the next batch opens its transaction while the previous one writes; its writes wait for those, so IDs keep the mailbox order', (t) =>
  scenario([HOLD_W], async ({ actor, dispatch, answered, log, hold }) => {
    // w:1's write waits on HOLD_W: its batch is writing, so the next batch is taken at once and opens its
    // transaction, but does not write before w:1's writes are done.
    const first = dispatch('w:1');
    await untilSnapshot(actor, (s) => s.context.inFlight[0]?.writing === true);
    // Its session is between statements until its write reaches the lock: counted below only once it waits there.
    for (let i = 0; i < 600 && (await waitingOnLocks()) < 1; i++) await sleep(50);
    t.false(actor.getSnapshot().context.inFlight[0]!.written);
    const second = dispatch('2');
    await untilSnapshot(actor, (s) => s.context.inFlight.length === 2);
    for (let i = 0; i < 600 && (await idleInTransaction()) < 1; i++) await sleep(50);
    t.is(await idleInTransaction(), 1, 'the second batch holds an open transaction, waiting');
    t.false(log.pids.has('2'), 'and has not written');
    t.false(actor.getSnapshot().context.inFlight[1]!.writing);
    // The second is not writing: a third joins its batch (alone it would be written no sooner).
    const third = dispatch('3');
    t.is(actor.getSnapshot().context.pending.length, 0, 'the third does not wait in the mailbox');
    t.deepEqual(actor.getSnapshot().context.inFlight[1]!.batch.map((c) => c.input), ['2', '3'], 'it joined the waiting batch');
    await hold.release(HOLD_W);
    await Promise.all([first, second, third]);
    t.deepEqual(answered, ['w:1', '2', '3']);
    t.deepEqual(log.applied, ['w:1', '2', '3']);
    t.deepEqual(await rows(), ['w:1', '2', '3'], 'IDs drawn in mailbox order');
    t.not(log.pids.get('w:1'), log.pids.get('2'), 'on two connections');
    t.is(log.pids.get('2'), log.pids.get('3'), 'the second and third in one transaction');
  }));

test.serial('a command that joined a batch which then ended without writing is taken again, in order', (t) =>
  scenario([HOLD_W], async ({ actor, answered, hold }) => {
    // As COMMAND events, each taken as it arrives (RealmHandle's, arriving while a batch writes, are taken together
    // at the end of the turn), all answered through the same promise chain.
    const first = commandEvent(actor, answered, 'w:1');
    await untilSnapshot(actor, (s) => s.context.inFlight[0]?.writing === true);
    // In one turn: a command its check refuses (its batch ends at once, without a transaction), and one that joins
    // that batch before it has ended.
    const refused = Promise.allSettled([commandEvent(actor, answered, 'refuse-2')]);
    const third = commandEvent(actor, answered, '3');
    t.deepEqual(actor.getSnapshot().context.inFlight[1]!.batch.map((c) => c.input), ['refuse-2', '3']);
    // The refused batch ends; the third goes back to the mailbox and is taken as a batch of its own, which waits
    // for w:1's writes.
    await untilSnapshot(actor, (s) => s.context.inFlight.length === 3 && s.context.inFlight[2]!.batch.map((c) => c.input).join() === '3');
    t.deepEqual(actor.getSnapshot().context.inFlight[1]!.batch.map((c) => c.input), ['refuse-2'], 'its batch kept the one it took');
    t.false(actor.getSnapshot().context.inFlight[2]!.writing);
    await hold.release(HOLD_W);
    await Promise.all([first, third]);
    t.is((await refused)[0]!.status, 'rejected');
    t.deepEqual(answered, ['w:1', 'refuse-2!', '3']);
    t.deepEqual(await rows(), ['w:1', '3']);
  }));

test.serial('a command that only publishes is answered at once only when it says so; otherwise after the writes dispatched before it', (t) =>
  scenario([HOLD_W], async ({ actor, dispatch, command, answered, hold }) => {
    const track = (kind: string, body: string) => (command(kind, body) as Promise<string>).then((r) => (answered.push(r), r));
    const first = dispatch('w:1');
    await untilSnapshot(actor, (s) => s.context.inFlight[0]?.writing === true);
    const peek = track('peek', 'peek');
    await track('shout', 'shout');
    t.deepEqual(answered, ['shout'], 'answered while w:1 still writes');
    await sleep(100);
    t.deepEqual(answered, ['shout'], 'the other waits behind w:1');
    await hold.release(HOLD_W);
    await Promise.all([first, peek]);
    t.deepEqual(answered, ['shout', 'w:1', 'peek']);
  }));

test.serial('commands dispatched before a stop are in the mailbox at once: the stop drains them, while a batch is in flight', (t) =>
  scenario([HOLD_W], async ({ actor, dispatch, answered, hold }) => {
    const first = dispatch('w:1');
    await untilSnapshot(actor, (s) => s.context.inFlight[0]?.writing === true);
    // A batch is in flight: these are taken at the end of the turn, yet they are in the mailbox already.
    const later = [dispatch('2'), dispatch('3')];
    t.deepEqual(actor.getSnapshot().context.pending.map((c) => c.input), ['2', '3']);
    actor.send({ type: 'STOP' });
    const afterStop = (await dispatch('after-stop').catch((e: unknown) => e)) as ApiError;
    t.true(afterStop instanceof ApiError, 'a command dispatched after the stop is refused');
    t.is(afterStop.status, 503);
    await hold.release(HOLD_W);
    t.like(await first, { body: 'w:1' });
    t.deepEqual((await Promise.all(later)).map((r) => r.body), ['2', '3'], 'drained, not refused');
    t.deepEqual(answered, ['after-stop!', 'w:1', '2', '3']);
    await waitFor(actor, (s) => s.status === 'done', { timeout: 30_000 });
    t.deepEqual(await rows(), ['w:1', '2', '3']);
  }));

test.serial('a batch that writes nothing passes its wait on: the batch after it still writes after the one before it', (t) =>
  scenario([HOLD_W], async ({ actor, dispatch, answered, log, hold }) => {
    const first = dispatch('w:1');
    await untilSnapshot(actor, (s) => s.context.inFlight[0]?.writing === true);
    // Refused by its check: its batch ends at once, without a transaction.
    const refused = Promise.allSettled([dispatch('refuse-2')]);
    await untilSnapshot(actor, (s) => s.context.inFlight.length === 2 && s.context.inFlight[1]!.result !== null);
    const third = dispatch('3');
    await untilSnapshot(actor, (s) => s.context.inFlight.length === 3);
    await sleep(200);
    t.false(log.pids.has('3'), 'the third waits for w:1’s writes, not only for the refused batch');
    t.false(actor.getSnapshot().context.inFlight[2]!.writing);
    await hold.release(HOLD_W);
    await first;
    await third;
    t.is((await refused)[0]!.status, 'rejected');
    t.deepEqual(answered, ['w:1', 'refuse-2!', '3']);
    t.deepEqual(await rows(), ['w:1', '3']);
  }));
