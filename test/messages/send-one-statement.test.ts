// A batch of sends that needs nothing but its insert is one statement committing by itself (no BEGIN, no COMMIT),
// over real PostgreSQL: it opens no transaction, and each send gets the answer, rows and order it gets in one; a
// batch with a send that starts a topic, or a statement PostgreSQL refuses, writes nothing that way and goes through
// the transaction, each send written once; a database that fences its transactions (cluster mode) always gets one;
// a connection lost during the statement answers 503 and the working set is reloaded before the next check.
import test from 'ava';
import { createActor, waitFor } from 'xstate';
import { realmMachine } from '../../src/actors/realm.machine.js';
import { RealmHandle } from '../../src/actors/realms.js';
import { EventHub } from '../../src/bus/hub.js';
import { ApiError } from '../../src/errors.js';
import { VISIBILITY_POLICY } from '../../src/model/channels.js';
import { createDatabase, type Db } from '../../src/persistence/db.js';
import type { SendResult } from '../../src/realm/messages/send.js';
import { realmCommands, type CommandInput } from '../../src/realm/registry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { dm, makeChannel, ownerUser, post, prepared, realmOf, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

/**
 * A realm actor of its own for the test server's realm, over a pool of its own whose transactions it counts
 * (`transactionsOnly`: as cluster mode's fenced database says). Start it after the fixtures are written over HTTP:
 * the server's own actor must not write after it started (its memory would lag).
 */
async function ownActor(opts: { transactionsOnly?: boolean } = {}) {
  const database = createDatabase(s.databaseUrl!);
  const counted = { transactions: 0 };
  const db = Object.create(database.db, {
    tx: { value: (...args: unknown[]) => (counted.transactions++, (database.db.tx as (...a: unknown[]) => unknown)(...args)) },
    ...(opts.transactionsOnly ? { transactionsOnly: { value: true } } : {}),
  }) as Db;
  const realmId = (await realmOf(s)).id;
  const actor = createActor(realmMachine, { input: { realmId, db, hub: new EventHub({ error: () => undefined }), commands: realmCommands } });
  actor.start();
  await waitFor(actor, (x) => x.matches('ready'));
  const handle = new RealmHandle(realmId, actor, new Map(), true);
  /** Dispatches the sends in one burst (prepared first): the first batch takes them all. */
  const burst = async (inputs: CommandInput<'messages.send'>[]) => {
    const ready = await Promise.all(inputs.map((input) => prepared(handle, 'messages.send', input)));
    const before = { transactions: counted.transactions, batches: actor.getSnapshot().context.batches };
    const settled = await Promise.allSettled(ready.map((input) => handle.dispatch('messages.send', input)));
    return {
      settled,
      transactions: counted.transactions - before.transactions,
      batches: actor.getSnapshot().context.batches - before.batches,
    };
  };
  return {
    actor,
    handle,
    database,
    burst,
    close: async () => {
      actor.stop();
      await database.close();
    },
  };
}

const toChannel = (senderId: number, to: string, topic: string, content: string): CommandInput<'messages.send'> => ({
  senderId,
  client: 'test',
  realmUrl: `http://127.0.0.1:${s.port}`,
  type: 'stream',
  to,
  topic,
  content,
});

function value(r: PromiseSettledResult<SendResult> | undefined): SendResult {
  if (r?.status !== 'fulfilled') throw new Error(`send failed: ${r?.status === 'rejected' ? String(r.reason) : 'missing'}`);
  return r.value;
}

/** How many times each content is stored, and each stored message's recipients' rows. */
async function stored(db: Db, contents: string[]) {
  const rows = await db.any<{ content: string; id: string; users: number[] }>(
    `SELECT m.content, m.id, array(SELECT um.user_id FROM user_messages um WHERE um.message_id = m.id ORDER BY um.user_id) AS users
       FROM messages m WHERE m.content = ANY($1) ORDER BY m.id`,
    [contents],
  );
  return rows.map((r) => ({ content: r.content, id: Number(r.id), users: r.users }));
}

/** A channel of the owner and two new users, its topic `existing` with a message, and a direct conversation of the owner and the first user. */
async function fixture() {
  const owner = await ownerUser(s);
  const [a, b] = await Promise.all([addUser(s, { fullName: `One ${uniqueName('u')}` }), addUser(s, { fullName: `Two ${uniqueName('u')}` })]);
  const name = uniqueName();
  await makeChannel(s, name, [owner.id, a!.id, b!.id]);
  await post(s, s.owner, name, 'existing', 'already here');
  await dm(s, s.owner, [a!.id], 'hello');
  return { owner, a: a!, b: b!, name };
}

test.serial('sends to topics that have messages and to a known direct conversation: one statement, no transaction; answers, IDs and rows as in one', async (t) => {
  const { owner, a, b, name } = await fixture();
  const own = await ownActor();
  try {
    // Memory learns a direct conversation's ID from a send of its own (a lookup, in a transaction).
    await own.burst([{ ...toChannel(owner.id, '', '', 'hello again'), type: 'direct', to: [a.id] }]);
    const contents = ['first of the burst', 'second of the burst', 'a direct one', 'last of the burst'];
    const { settled, transactions, batches } = await own.burst([
      toChannel(a.id, name, 'existing', contents[0]!),
      toChannel(b.id, name, 'EXISTING', contents[1]!),
      { ...toChannel(owner.id, '', '', contents[2]!), type: 'direct', to: [a.id] },
      toChannel(owner.id, name, 'existing', contents[3]!),
    ]);
    t.is(batches, 1, 'one batch');
    t.is(transactions, 0, 'no transaction opened');
    const ids = settled.map((r) => value(r).message.id);
    t.deepEqual([...ids].sort((x, y) => x - y), ids, 'IDs in mailbox order');
    t.deepEqual(
      settled.map((r) => value(r).visibility),
      [null, null, null, null],
    );
    const rows = await stored(own.database.db, contents);
    t.deepEqual(
      rows.map((r) => r.content),
      contents,
      'each stored once, in order',
    );
    t.deepEqual(rows.map((r) => r.id), ids);
    const channel = [owner.id, a.id, b.id].sort((x, y) => x - y);
    t.deepEqual(rows.map((r) => r.users), [channel, channel, [owner.id, a.id].sort((x, y) => x - y), channel]);
    t.true(own.handle.state.messages.directConversations.has([owner.id, a.id].sort((x, y) => x - y).join(',')), 'a conversation memory knew');
  } finally {
    await own.close();
  }
});

test.serial('a batch with a send that starts a topic: the statement writes nothing, the transaction writes every send once and sees the start', async (t) => {
  const { a, b, name } = await fixture();
  const own = await ownActor();
  try {
    const contents = ['to the old topic', 'starts a new topic', 'joins the new topic', 'old topic again'];
    const { settled, transactions, batches } = await own.burst([
      toChannel(a.id, name, 'existing', contents[0]!),
      toChannel(a.id, name, 'brand new', contents[1]!),
      toChannel(b.id, name, 'Brand New', contents[2]!),
      toChannel(b.id, name, 'existing', contents[3]!),
    ]);
    t.is(batches, 1);
    t.is(transactions, 1, 'written in a transaction');
    const ids = settled.map((r) => value(r).message.id);
    t.deepEqual([...ids].sort((x, y) => x - y), ids, 'IDs in mailbox order');
    const rows = await stored(own.database.db, contents);
    t.deepEqual(rows.map((r) => r.content), contents, 'each stored once, in order');
    t.deepEqual(rows.map((r) => r.id), ids);
    // The default policy follows the topics one starts (ON_INITIATION): only the first send to the new topic did.
    t.deepEqual(
      settled.map((r) => value(r).visibility?.policy ?? null),
      [null, VISIBILITY_POLICY.FOLLOWED, null, null],
    );
  } finally {
    await own.close();
  }
});

test.serial('PostgreSQL refusing the statement: nothing of it is stored, the transaction writes the batch again and the refused send alone fails', async (t) => {
  const { a, b, name } = await fixture();
  const db = createDatabase(s.databaseUrl!);
  await db.db.none(`CREATE FUNCTION refuse_marked() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN IF NEW.content = 'refused by the database' THEN RAISE EXCEPTION 'refused'; END IF; RETURN NEW; END $$`);
  await db.db.none('CREATE TRIGGER refuse_marked BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION refuse_marked()');
  const own = await ownActor();
  try {
    const contents = ['before the refused one', 'refused by the database', 'after the refused one'];
    const { settled, transactions } = await own.burst(contents.map((c, i) => toChannel(i === 1 ? b.id : a.id, name, 'existing', c)));
    t.true(transactions >= 1, 'written in a transaction');
    t.is(settled[0]!.status, 'fulfilled');
    t.is(settled[1]!.status, 'rejected');
    t.is(settled[2]!.status, 'fulfilled');
    const rows = await stored(own.database.db, contents);
    t.deepEqual(rows.map((r) => r.content), [contents[0], contents[2]], 'the others stored once each');
    t.deepEqual(rows.map((r) => r.id), [value(settled[0]).message.id, value(settled[2]).message.id]);
  } finally {
    await own.close();
    await db.db.none('DROP TRIGGER refuse_marked ON messages; DROP FUNCTION refuse_marked()');
    await db.close();
  }
});

test.serial('through a database whose every write goes through its transactions (cluster mode fencing), the same sends open one', async (t) => {
  const { a, b, name } = await fixture();
  const own = await ownActor({ transactionsOnly: true });
  try {
    const contents = ['fenced one', 'fenced two'];
    const { settled, transactions } = await own.burst(contents.map((c, i) => toChannel(i === 0 ? a.id : b.id, name, 'existing', c)));
    t.is(transactions, 1);
    const rows = await stored(own.database.db, contents);
    t.deepEqual(rows.map((r) => r.id), settled.map((r) => value(r).message.id));
  } finally {
    await own.close();
  }
});

test.serial('a connection lost during the statement: 503, nothing stored, and the working set is reloaded before the next check', async (t) => {
  const { a, name } = await fixture();
  const own = await ownActor();
  const locker = createDatabase(s.databaseUrl!);
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let locked!: () => void;
  const lockTaken = new Promise<void>((r) => (locked = r));
  const holding = locker.db.tx(async (tx) => {
    await tx.none('LOCK TABLE messages IN EXCLUSIVE MODE');
    locked();
    await released;
  });
  try {
    await lockTaken;
    const lost = own.handle.dispatch('messages.send', await prepared(own.handle, 'messages.send', toChannel(a.id, name, 'existing', 'lost with its connection')));
    lost.catch(() => undefined);
    // The statement waits for the lock, outside any transaction block: its transaction began with it.
    let waiting: { pid: number; alone: boolean } | null = null;
    for (let i = 0; i < 300 && !waiting; i++) {
      waiting = await locker.db.oneOrNone(
        `SELECT pid, xact_start = query_start AS alone FROM pg_stat_activity
          WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%messages_id_seq%'`,
      );
      if (!waiting) await new Promise((r) => setTimeout(r, 20));
    }
    if (!waiting) throw new Error('the statement never waited for the lock');
    t.true(waiting.alone, 'one statement, no transaction block');
    await locker.db.one('SELECT pg_terminate_backend($1)', [waiting.pid]);
    const err = await t.throwsAsync(lost);
    t.true(err instanceof ApiError && err.status === 503, String(err));
    t.true(own.actor.getSnapshot().context.stale, 'uncertain: memory to be reloaded');
    release();
    await holding;
    t.deepEqual(await stored(own.database.db, ['lost with its connection']), []);
    // Meanwhile the database changes outside the actor (through the server's own actor): only a reload shows it.
    const outside = await post(s, s.owner, name, 'existing', 'written outside');
    const next = await own.handle.dispatch('messages.send', await prepared(own.handle, 'messages.send', toChannel(a.id, name, 'existing', 'after the loss')));
    t.true(next.message.id > outside);
    t.false(own.actor.getSnapshot().context.stale);
    t.true(own.handle.state.messages.lastId >= next.message.id);
  } finally {
    release();
    await holding.catch(() => undefined);
    await locker.close();
    await own.close();
  }
});
