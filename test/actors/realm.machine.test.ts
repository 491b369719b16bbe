// The realm actor: commands are checked, written in one transaction per batch (group commit), applied and
// answered only after the commit, and published once; a stop drains the mailbox.
import test from 'ava';
import { createActor, waitFor } from 'xstate';
import { realmMachine } from '../../src/actors/realm.machine.js';
import { RealmHandle } from '../../src/actors/realms.js';
import { EventHub } from '../../src/bus/hub.js';
import type { RealmEvent } from '../../src/bus/events.js';
import { toWire } from '../../src/events/wire.js';
import { ApiError, errors } from '../../src/errors.js';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { migrate } from '../../src/persistence/migrate.js';
import { coreCommands, type CommandDef, type CommandRegistry, type RealmBatchObserver } from '../../src/realm/commands.js';
import { createRealm } from '../../src/realm/provision.js';
import type { RealmState } from '../../src/realm/state.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

const quiet = { error: () => undefined };

let database: Database;
let testDb: TestDatabase | undefined;
let realmId: number;

test.before(async () => {
  testDb = await createTestDatabase();
  database = createDatabase(testDb.url);
  await migrate(database.db);
  await database.db.none('CREATE TABLE notes (id serial PRIMARY KEY, realm_id int, body text UNIQUE)');
  realmId = (await database.db.tx((t) => createRealm(t, { stringId: 'actor', name: 'Actor test' }))).id;
});
test.after.always(async () => {
  await database?.close();
  await testDb?.drop();
});

/** A batchable test command that writes a row and records what it saw. */
function noteCommands(log: { txids: string[]; applied: string[] }): CommandRegistry {
  const addNote: CommandDef<string, string, { id: number; body: string; txid: string }> = {
    batchable: true,
    check(_state: RealmState, body) {
      if (body === 'refuse') throw errors.badRequest('Refused by check');
      return body;
    },
    async write(t, body) {
      const row = await t.one('INSERT INTO notes (realm_id, body) VALUES ($1, $2) RETURNING id', [realmId, body]);
      const txid = await t.one('SELECT txid_current()::text AS x', [], (r) => r.x as string);
      log.txids.push(txid);
      return { id: row.id, body, txid };
    },
    apply(_state, result) {
      log.applied.push(result.body);
    },
    events(_state, result): RealmEvent[] {
      return [{ event: { type: 'note', body: result.body }, users: [1] }];
    },
  };
  return { ...coreCommands, addNote };
}

/**
 * A second batchable kind: writes a row like addNote (prefixed `tag:`) and counts its writes; `half` writes its
 * row and then throws (a write that fails after changing the database).
 */
function tagCommands(log: { txids: string[]; applied: string[]; writes: string[] }): CommandRegistry {
  const addTag: CommandDef<string, string, { body: string; txid: string }> = {
    batchable: true,
    check: (_state: RealmState, body) => body,
    async write(t, body) {
      log.writes.push(body);
      await t.none('INSERT INTO notes (realm_id, body) VALUES ($1, $2)', [realmId, `tag:${body}`]);
      if (body.endsWith('half')) throw errors.badRequest('Failed after writing');
      return { body, txid: await t.one('SELECT txid_current()::text AS x', [], (r) => r.x as string) };
    },
    apply(_state, result) {
      log.applied.push(`tag:${result.body}`);
    },
  };
  return { ...noteCommands(log), addTag };
}

function startRealm(commands: CommandRegistry, hub = new EventHub(quiet), observer?: RealmBatchObserver) {
  const actor = createActor(realmMachine, { input: { realmId, db: database.db, hub, commands, observer } });
  actor.start();
  const handle = new RealmHandle<CommandRegistry>(realmId, actor, new Map(), true);
  const dispatch = (kind: string, input: unknown) => handle.dispatch(kind, input);
  return { actor, dispatch, hub };
}

test.serial('loading → ready with the realm working set', async (t) => {
  const { actor } = startRealm(coreCommands);
  t.is(actor.getSnapshot().value, 'loading');
  const snap = await waitFor(actor, (s) => s.matches('ready'));
  t.is(snap.context.state!.realm.name, 'Actor test');
  t.is(snap.context.state!.groupsByName.size, 7, 'the seven system groups');
  actor.stop();
});

test.serial('commands that arrive during a write share the next transaction (group commit)', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[] };
  const { actor, dispatch } = startRealm(noteCommands(log));
  await waitFor(actor, (s) => s.matches('ready'));
  const bodies = Array.from({ length: 60 }, (_, i) => `group-${i}`);
  const results = (await Promise.all(bodies.map((b) => dispatch('addNote', b)))) as { body: string; txid: string }[];
  t.deepEqual(results.map((r) => r.body), bodies, 'each caller gets its own result, in order');
  const transactions = new Set(results.map((r) => r.txid)).size;
  t.true(transactions < bodies.length / 2, `60 commands in ${transactions} transactions`);
  t.true(actor.getSnapshot().context.batches < 60);
  t.deepEqual(log.applied, bodies, 'applied to memory in order');
  const count = await database.db.one("SELECT count(*)::int AS n FROM notes WHERE body LIKE 'group-%'", [], (r) => r.n);
  t.is(count, 60);
  actor.stop();
});

test.serial('a refused or failing command does not fail the others in its batch', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[] };
  const { actor, dispatch } = startRealm(noteCommands(log));
  await waitFor(actor, (s) => s.matches('ready'));
  await dispatch('addNote', 'dup-1');
  const outcomes = await Promise.allSettled([
    dispatch('addNote', 'mix-a'),
    dispatch('addNote', 'refuse'),
    dispatch('addNote', 'dup-1'), // unique violation in the database
    dispatch('addNote', 'mix-b'),
  ]);
  t.is(outcomes[0]!.status, 'fulfilled');
  t.is(outcomes[3]!.status, 'fulfilled');
  const refused = outcomes[1] as PromiseRejectedResult;
  t.true(refused.reason instanceof ApiError);
  t.is(refused.reason.message, 'Refused by check');
  const dup = outcomes[2] as PromiseRejectedResult;
  t.is(dup.reason.code, '23505');
  const rows = await database.db.map("SELECT body FROM notes WHERE body LIKE 'mix-%' ORDER BY body", [], (r) => r.body);
  t.deepEqual(rows, ['mix-a', 'mix-b']);
  t.false(log.applied.includes('refuse'));
  actor.stop();
});

test.serial('commands of several kinds share one transaction, each written once, applied in mailbox order', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[], writes: [] as string[] };
  const { actor, dispatch } = startRealm(tagCommands(log));
  await waitFor(actor, (s) => s.matches('ready'));
  const before = actor.getSnapshot().context.batches;
  const burst: [string, string][] = [
    ['addNote', 'kinds-warm-up'],
    ['addNote', 'kinds-1'],
    ['addTag', 'kinds-2'],
    ['addNote', 'kinds-3'],
    ['addTag', 'kinds-4'],
    ['addTag', 'kinds-5'],
  ];
  const results = (await Promise.all(burst.map(([kind, body]) => dispatch(kind, body)))) as { body: string; txid: string }[];
  t.deepEqual(results.map((r) => r.body), burst.map(([, b]) => b), 'each caller gets its own result');
  t.is(actor.getSnapshot().context.batches - before, 2, 'the first alone, then the five of two kinds together');
  t.is(new Set(results.slice(1).map((r) => r.txid)).size, 1, 'one transaction');
  t.deepEqual(log.writes, ['kinds-2', 'kinds-4', 'kinds-5'], 'no write ran twice');
  t.deepEqual(log.applied.filter((a) => a.includes('kinds-')), ['kinds-warm-up', 'kinds-1', 'tag:kinds-2', 'kinds-3', 'tag:kinds-4', 'tag:kinds-5']);
  actor.stop();
});

test.serial('a write that throws after writing: nothing of it is committed, the rest of its batch is', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[], writes: [] as string[] };
  const { actor, dispatch } = startRealm(tagCommands(log));
  await waitFor(actor, (s) => s.matches('ready'));
  const before = actor.getSnapshot().context.batches;
  const outcomes = await Promise.allSettled([
    dispatch('addNote', 'partial-warm-up'),
    dispatch('addNote', 'partial-1'),
    dispatch('addTag', 'partial-half'),
    dispatch('addTag', 'partial-2'),
    dispatch('addNote', 'partial-3'),
  ]);
  t.is(actor.getSnapshot().context.batches - before, 2);
  t.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'fulfilled', 'rejected', 'fulfilled', 'fulfilled']);
  t.is((outcomes[2] as PromiseRejectedResult).reason.message, 'Failed after writing');
  const rows = await database.db.map("SELECT body FROM notes WHERE body LIKE '%partial-%' ORDER BY id", [], (r) => r.body);
  t.deepEqual(rows, ['partial-warm-up', 'partial-1', 'tag:partial-2', 'partial-3'], 'the failed write left no row');
  t.deepEqual(log.applied.filter((a) => a.includes('partial-')), ['partial-warm-up', 'partial-1', 'tag:partial-2', 'partial-3']);
  actor.stop();
});

test.serial('the observer sees each command wait in the mailbox and each batch settle', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[], writes: [] as string[] };
  const waited: [string, number][] = [];
  const settled: [string, number][] = [];
  const observer: RealmBatchObserver = { waited: (k, sec) => waited.push([k, sec]), settled: (k, sec) => settled.push([k, sec]) };
  const { actor, dispatch } = startRealm(tagCommands(log), new EventHub(quiet), observer);
  await waitFor(actor, (s) => s.matches('ready'));
  await Promise.allSettled([dispatch('addNote', 'observed-1'), dispatch('addNote', 'observed-2'), dispatch('addTag', 'observed-3'), dispatch('addNote', 'refuse')]);
  t.deepEqual(waited.map(([k]) => k), ['addNote', 'addNote', 'addTag', 'addNote']);
  t.true(waited.every(([, sec]) => sec >= 0));
  // The first was taken at once; the three behind it waited for its batch (the commands touch nothing they say, so
  // none joins it or is taken while it is in flight). An earlier form, "at least half the first batch's own time",
  // failed once in CI (0.8 ms against 2.6 ms; the cause was not found).
  for (const [, sec] of waited.slice(1)) t.true(sec > waited[0]![1], `waited ${sec} s, the first ${waited[0]![1]} s`);
  t.deepEqual(settled.map(([k]) => k), ['addNote', 'mixed']);
  t.true(settled.every(([, sec]) => sec > 0));
  actor.stop();
});

test.serial('events are published after the commit, once per committed command', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[] };
  const hub = new EventHub(quiet);
  const seen: { body: unknown; committed: boolean }[] = [];
  hub.subscribe((_realm, events) => {
    for (const e of events) seen.push({ body: toWire(e.event).body, committed: false });
  });
  const { actor, dispatch } = startRealm(noteCommands(log), hub);
  await waitFor(actor, (s) => s.matches('ready'));
  await Promise.allSettled([dispatch('addNote', 'ev-1'), dispatch('addNote', 'refuse'), dispatch('addNote', 'ev-2')]);
  t.deepEqual(seen.map((s) => s.body), ['ev-1', 'ev-2']);
  // A second connection sees the rows by the time the events were published.
  const visible = await database.db.map("SELECT body FROM notes WHERE body LIKE 'ev-%'", [], (r) => r.body);
  t.deepEqual(visible.sort(), ['ev-1', 'ev-2']);
  actor.stop();
});

test.serial('a listener that throws is logged by name; the others still get the events and the realm goes on writing', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[] };
  const logged: { listener: string; realmId: number }[] = [];
  const hub = new EventHub({ error: (obj: { listener: string; realmId: number }) => void logged.push(obj) });
  hub.subscribe(() => {
    throw new Error('a bug in a listener');
  }, 'faulty');
  const seen: unknown[] = [];
  hub.subscribe((_realm, events) => {
    for (const e of events) seen.push(toWire(e.event).body);
  });
  const { actor, dispatch } = startRealm(noteCommands(log), hub);
  await waitFor(actor, (s) => s.matches('ready'));
  t.is(((await dispatch('addNote', 'listener-1')) as { body: string }).body, 'listener-1');
  t.is(((await dispatch('addNote', 'listener-2')) as { body: string }).body, 'listener-2');
  t.deepEqual(seen, ['listener-1', 'listener-2']);
  t.deepEqual(logged.map((l) => [l.listener, l.realmId]), [['faulty', realmId], ['faulty', realmId]]);
  t.true(actor.getSnapshot().matches('ready'));
  actor.stop();
});

test.serial('stop drains commands already in the mailbox, then refuses new ones', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[] };
  const { actor, dispatch } = startRealm(noteCommands(log));
  await waitFor(actor, (s) => s.matches('ready'));
  const inFlight = [dispatch('addNote', 'drain-1'), dispatch('addNote', 'drain-2')];
  actor.send({ type: 'STOP' });
  t.deepEqual((await Promise.all(inFlight)).map((r: any) => r.body), ['drain-1', 'drain-2']);
  await waitFor(actor, (s) => s.status === 'done');
  const late = (await dispatch('addNote', 'late').catch((e: unknown) => e)) as ApiError;
  t.true(late instanceof ApiError);
  t.is(late.status, 503);
});

test.serial('a committed command whose apply throws fails its caller alone; the realm goes on and reloads its working set', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[] };
  const base = noteCommands(log);
  const addNote = base.addNote as CommandDef<string, string, { id: number; body: string; txid: string }>;
  const commands: CommandRegistry = {
    ...base,
    addNote: {
      ...addNote,
      apply(state, r) {
        if (r.body === 'boom') throw new Error('a bug in apply');
        addNote.apply!(state, r);
      },
    },
  };
  const { actor, dispatch } = startRealm(commands);
  await waitFor(actor, (s) => s.matches('ready'));
  const settled = Promise.allSettled([dispatch('addNote', 'apply-1'), dispatch('addNote', 'boom'), dispatch('addNote', 'apply-2')]);
  const outcomes = await Promise.race([settled, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 5000).unref())]);
  if (outcomes === 'hung') return t.fail('callers were never answered');
  t.deepEqual(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.is((outcomes[1] as PromiseRejectedResult).reason.message, 'a bug in apply');
  t.is(actor.getSnapshot().status, 'active', 'the realm actor is still running');
  // Its memory may hold part of what failed: the next batch reloads the working set first.
  await database.db.none("UPDATE realms SET name = 'Renamed after a bug' WHERE id = $1", [realmId]);
  try {
    t.like(await dispatch('addNote', 'apply-3'), { body: 'apply-3' });
    t.is(actor.getSnapshot().context.state!.realm.name, 'Renamed after a bug');
  } finally {
    await database.db.none("UPDATE realms SET name = 'Actor test' WHERE id = $1", [realmId]);
  }
  t.deepEqual(log.applied, ['apply-1', 'apply-2', 'apply-3']);
  actor.stop();
});

test.serial('a command sent after the stop, while a write is still in flight, is refused at once (the drain ends under load)', async (t) => {
  const log = { txids: [] as string[], applied: [] as string[] };
  let open!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const held: CommandDef<string, string, { body: string }> = {
    batchable: true,
    check: (_state, body) => body,
    async write(tx, body) {
      await gate;
      await tx.none('INSERT INTO notes (realm_id, body) VALUES ($1, $2)', [realmId, body]);
      return { body };
    },
  };
  const { actor, dispatch } = startRealm({ ...noteCommands(log), held });
  await waitFor(actor, (s) => s.matches('ready'));
  const first = dispatch('held', 'held-1');
  t.is(actor.getSnapshot().context.inFlight.length, 1);
  actor.send({ type: 'STOP' });
  const late = dispatch('addNote', 'after-stop').catch((e: unknown) => e);
  const answer = await Promise.race([late, new Promise((r) => setTimeout(() => r('waiting'), 2000).unref())]);
  open();
  t.true(answer instanceof ApiError, 'refused, not queued behind the write in flight');
  t.is((answer as ApiError).status, 503);
  t.like(await first, { body: 'held-1' });
  await waitFor(actor, (s) => s.status === 'done');
  t.is(await database.db.oneOrNone("SELECT body FROM notes WHERE body = 'after-stop'"), null);
});

test.serial('reload picks up rows written outside the actor', async (t) => {
  const { actor, dispatch } = startRealm(coreCommands);
  const ready = await waitFor(actor, (s) => s.matches('ready'));
  t.is(ready.context.state!.realm.name, 'Actor test');
  await database.db.none("UPDATE realms SET name = 'Renamed outside' WHERE id = $1", [realmId]);
  await dispatch('realm.reload', undefined);
  t.is(actor.getSnapshot().context.state!.realm.name, 'Renamed outside');
  actor.stop();
});

test.serial('a realm that cannot load fails its commands with 503 instead of hanging', async (t) => {
  const actor = createActor(realmMachine, { input: { realmId: 999_999, db: database.db, hub: new EventHub(quiet), commands: coreCommands } });
  actor.start();
  const r = await new Promise((resolve, reject) =>
    actor.send({ type: 'COMMAND', command: { kind: 'realm.reload', input: undefined, resolve, reject } }),
  ).catch((e) => e);
  t.true(r instanceof ApiError);
  t.is((r as ApiError).status, 503);
  t.is(actor.getSnapshot().value, 'failed');
  actor.stop();
});
