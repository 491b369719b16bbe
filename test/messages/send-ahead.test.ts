// Send batches written ahead of the earlier batches' writes (realm/batch.ts BatchPipe.turn), over real PostgreSQL:
// a batch of sends to topics that have messages takes its message IDs from the realm actor's block once every earlier
// batch took its own and inserts while an earlier batch still writes, once it holds as many sends as the batch before
// it, at most two writing at once, by one statement that commits by itself (no transaction; in cluster mode inside
// one); IDs, answers, memory and events keep the mailbox order whatever order the batches commit in, across blocks,
// topic starts, inserts drawing from the sequence and rows inserted behind the actor's back; a send that starts a topic
// waits for the earlier writes (so only the first of two starters starts it); a statement refused at its commit, or a
// connection lost during one, in the middle of such a pipeline fails its batch alone (503 and a reload for the lost
// one). Writes and commits are held deterministically by triggers on messages that take shared advisory locks the
// test holds exclusively.
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import type { RealmEvent } from '../../src/bus/events.js';
import { ApiError } from '../../src/errors.js';
import type { SendResult } from '../../src/realm/messages/send.js';
import type { CommandInput } from '../../src/realm/registry.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { untilSnapshot } from '../helpers/snapshot.js';
import { addUser } from '../helpers/users.js';
import { makeChannel, ownerUser, ownRealmActor, post, prepared, uniqueName } from './helpers.js';

/** Contents starting `hold-write` wait on HOLD_WRITE in their insert; `hold-commit` on HOLD_COMMIT in their COMMIT. */
const HOLD_WRITE = 9201;
const HOLD_COMMIT = 9202;

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
  const db = (await ownRealmActor(s)).database;
  try {
    await db.db.none(`CREATE FUNCTION hold_send_write() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.content LIKE 'hold-write%' THEN PERFORM pg_advisory_xact_lock_shared(${HOLD_WRITE}); END IF;
        RETURN NEW;
      END $$`);
    await db.db.none('CREATE TRIGGER hold_send_write BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION hold_send_write()');
    await db.db.none(`CREATE FUNCTION hold_send_commit() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.content LIKE 'hold-commit%' THEN PERFORM pg_advisory_xact_lock_shared(${HOLD_COMMIT}); END IF;
        IF NEW.content LIKE '%fail-at-commit%' THEN RAISE EXCEPTION 'refused at commit'; END IF;
        RETURN NULL;
      END $$`);
    await db.db.none(`CREATE CONSTRAINT TRIGGER hold_send_commit AFTER INSERT ON messages
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_send_commit()`);
  } finally {
    await db.close();
  }
});
test.after.always(() => s?.close());

type Own = Awaited<ReturnType<typeof ownRealmActor>>;

/**
 * A channel of the owner and two new users with a message in its topic `existing`, a realm actor of its own started
 * after it (so its memory holds it), the advisory locks held, and what the callers got, in order.
 */
async function scenario(run: (x: Awaited<ReturnType<typeof setUp>>) => Promise<void>, opts: Parameters<typeof ownRealmActor>[1] = {}) {
  const x = await setUp(opts);
  try {
    await run(x);
  } finally {
    await x.hold.session.one('SELECT pg_advisory_unlock_all()');
    x.hold.session.done();
    await x.own.close();
  }
}

async function setUp(opts: Parameters<typeof ownRealmActor>[1] = {}) {
  const owner = await ownerUser(s);
  const [a, b] = await Promise.all([addUser(s, { fullName: `Ahead ${uniqueName('u')}` }), addUser(s, { fullName: `Ahead ${uniqueName('u')}` })]);
  const name = uniqueName();
  await makeChannel(s, name, [owner.id, a!.id, b!.id]);
  await post(s, s.owner, name, 'existing', 'already here');
  const own = await ownRealmActor(s, opts);
  const session = await own.database.db.connect();
  await session.one('SELECT pg_advisory_lock($1), pg_advisory_lock($2)', [HOLD_WRITE, HOLD_COMMIT]);
  const answered: string[] = [];
  const send = async (senderId: number, topic: string, content: string) => {
    const input: CommandInput<'messages.send'> = { senderId, client: 'test', realmUrl: `http://127.0.0.1:${s.port}`, type: 'stream', to: name, topic, content };
    const ready = await prepared(own.handle, 'messages.send', input);
    return (own.handle.dispatch('messages.send', ready) as Promise<SendResult>).then(
      (r) => (answered.push(content), r),
      (err: unknown) => {
        answered.push(`${content}!`);
        throw err;
      },
    );
  };
  const sendDirect = async (senderId: number, to: number[], content: string) => {
    const input: CommandInput<'messages.send'> = { senderId, client: 'test', realmUrl: `http://127.0.0.1:${s.port}`, type: 'direct', to, content };
    const ready = await prepared(own.handle, 'messages.send', input);
    return (own.handle.dispatch('messages.send', ready) as Promise<SendResult>).then((r) => (answered.push(content), r));
  };
  const hold = { session, release: (k: number) => session.one('SELECT pg_advisory_unlock($1)', [k]) };
  return { owner, a: a!, b: b!, name, own, send, sendDirect, answered, hold };
}

/** The batch in flight holding the send of `content`. */
function batchOf(own: Own, content: string) {
  return own.actor.getSnapshot().context.inFlight.find((b) => b.batch.some((c) => (c.input as { content: string }).content === content));
}

/** Whether the batch holding the send of `content` has ended and waits to settle (after the batches before it). */
const ended = (own: Own, content: string) => (batchOf(own, content)?.result ?? null) !== null;

const until = (own: Own, what: (o: Own) => boolean | undefined) => untilSnapshot(own.actor, () => what(own) === true);

/** Sessions of the test's database waiting on a lock. */
async function waitingOnLocks(own: Own, query: string): Promise<number[]> {
  return own.database.db.map(
    "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query ILIKE $1",
    [query],
    (r) => r.pid as number,
  );
}

/** How the text of a session running a message insert starts (either statement: repos/messages.ts; pg_stat_activity
 *  keeps only a statement's first kilobyte). */
const INSERTING = '%WITH _ AS MATERIALIZED%';

async function untilWaiting(own: Own, query: string, n = 1): Promise<number[]> {
  for (let i = 0; i < 600; i++) {
    const pids = await waitingOnLocks(own, query);
    if (pids.length >= n) return pids;
    await sleep(50);
  }
  throw new Error(`no session waiting on a lock in ${query}`);
}

const inIdOrder = (own: Own, contents: string[]) =>
  own.database.db.map('SELECT content FROM messages WHERE content = ANY($1) ORDER BY id', [contents], (r) => r.content as string);

/** The contents of the message events published, in order. */
const messageBodies = (published: RealmEvent[]) => published.flatMap((e) => (e.event.kind === 'message' ? [e.event.facts.content] : []));

test.serial('a batch of sends to a topic with messages writes while the batch before it still writes; two at most; IDs, answers, memory and events in mailbox order', (t) =>
  scenario(async ({ a, b, own, send, answered, hold }) => {
    const first = send(a.id, 'existing', 'hold-write first');
    await until(own, (o) => batchOf(o, 'hold-write first')?.writing);
    await untilWaiting(own, INSERTING);
    const second = send(b.id, 'existing', 'second, written ahead');
    await until(own, (o) => batchOf(o, 'second, written ahead')?.written);
    t.false(batchOf(own, 'hold-write first')!.written, 'the first batch still writes');
    // Nothing holds the second batch's COMMIT: it commits, and waits to be answered after the first.
    await until(own, (o) => batchOf(o, 'second, written ahead')?.result !== null);
    t.deepEqual(await inIdOrder(own, ['second, written ahead']), ['second, written ahead'], 'the second batch committed');
    t.deepEqual(answered, [], 'nothing answered before the first batch');
    // A third batch waits: two batches writing at once at most (the first's writes are not done).
    const third = send(a.id, 'EXISTING', 'third, waits for a writer');
    await until(own, (o) => batchOf(o, 'third, waits for a writer') !== undefined);
    await sleep(200);
    t.false(batchOf(own, 'third, waits for a writer')!.writing, 'the third batch does not write while the first does');
    await hold.release(HOLD_WRITE);
    const results = await Promise.all([first, second, third]);
    const ids = results.map((r) => r.message.id);
    t.true(ids[0]! < ids[1]! && ids[1]! < ids[2]!, `IDs in mailbox order: ${ids.join(', ')}`);
    t.deepEqual(answered, ['hold-write first', 'second, written ahead', 'third, waits for a writer'], 'answered in mailbox order');
    t.deepEqual(messageBodies(own.published), answered, 'events in mailbox order');
    t.is(own.actor.getSnapshot().context.state!.messages.lastId, ids[2], 'memory holds the last one');
    t.deepEqual(await inIdOrder(own, answered), answered, 'the database orders them by ID as the mailbox did');
    t.false(own.actor.getSnapshot().context.stale);
  }));

test.serial('sends that start a topic wait for the earlier batches’ writes: of two starters in two batches, only the first starts it', (t) =>
  scenario(async ({ a, b, own, send, answered, hold }) => {
    const first = send(a.id, 'existing', 'hold-write before the topic');
    await until(own, (o) => batchOf(o, 'hold-write before the topic')?.writing);
    await untilWaiting(own, INSERTING);
    const starter = send(a.id, 'fresh', 'starts the topic');
    await until(own, (o) => batchOf(o, 'starts the topic')?.writing);
    const second = send(b.id, 'FRESH', 'second in the topic');
    await until(own, (o) => batchOf(o, 'second in the topic') !== undefined);
    await sleep(200);
    t.false(batchOf(own, 'starts the topic')!.written, 'the topic start waits for the first batch’s writes');
    t.false(batchOf(own, 'second in the topic')!.written, 'and so does the send after it');
    t.deepEqual(await inIdOrder(own, ['starts the topic', 'second in the topic']), []);
    await hold.release(HOLD_WRITE);
    const [, started, after] = await Promise.all([first, starter, second]);
    t.truthy(started.visibility, 'its sender follows the topic it started');
    t.is(after.visibility, null, 'the second sender did not start it');
    t.true(started.message.id < after.message.id);
    t.deepEqual(answered, ['hold-write before the topic', 'starts the topic', 'second in the topic']);
  }));

test.serial('a statement refused at its commit behind a batch still committing: its batch goes to a transaction after the earlier writes, fails alone; the later batch commits; memory agrees', (t) =>
  scenario(async ({ a, b, own, send, answered, hold }) => {
    const first = send(a.id, 'existing', 'hold-commit first');
    await until(own, (o) => batchOf(o, 'hold-commit first')?.writing);
    await untilWaiting(own, INSERTING);
    const failing = Promise.allSettled([send(b.id, 'existing', 'fail-at-commit second')]);
    await until(own, (o) => batchOf(o, 'fail-at-commit second')?.writing);
    const third = send(a.id, 'existing', 'third');
    await until(own, (o) => batchOf(o, 'third') !== undefined);
    t.deepEqual(answered, [], 'nothing answered before the first batch');
    await hold.release(HOLD_COMMIT);
    const [r1, [r2], r3] = await Promise.all([first, failing, third]);
    t.is(r2!.status, 'rejected');
    t.regex(String((r2 as PromiseRejectedResult).reason.message), /refused at commit/);
    t.true(r1.message.id < r3.message.id);
    t.deepEqual(answered, ['hold-commit first', 'fail-at-commit second!', 'third']);
    t.deepEqual(await inIdOrder(own, ['hold-commit first', 'fail-at-commit second', 'third']), ['hold-commit first', 'third']);
    t.is(own.actor.getSnapshot().context.state!.messages.lastId, r3.message.id);
    t.false(own.actor.getSnapshot().context.stale, 'a refused statement is certain: no reload');
  }));

test.serial('a connection lost during a statement committing by itself, with a batch written ahead behind it: 503 for its batch, the later one commits, the working set is reloaded', (t) =>
  scenario(async ({ a, b, own, send, answered }) => {
    const lost = Promise.allSettled([send(a.id, 'existing', 'hold-commit lost')]);
    const [pid] = await untilWaiting(own, INSERTING);
    const later = send(b.id, 'existing', 'written ahead, commits');
    await until(own, (o) => ended(o, 'written ahead, commits'));
    t.true(await own.database.db.one('SELECT pg_terminate_backend($1) AS ok', [pid], (r) => r.ok as boolean));
    const [lostOutcome] = await lost;
    t.is(lostOutcome!.status, 'rejected');
    const reason = (lostOutcome as PromiseRejectedResult).reason as ApiError;
    t.true(reason instanceof ApiError);
    t.is(reason.status, 503);
    const kept = await later;
    t.deepEqual(answered, ['hold-commit lost!', 'written ahead, commits']);
    t.true(own.actor.getSnapshot().context.stale, 'memory may lag the database: reloaded before the next check');
    t.deepEqual(await inIdOrder(own, ['hold-commit lost', 'written ahead, commits']), ['written ahead, commits']);
    const next = await send(a.id, 'existing', 'after the reload');
    t.false(own.actor.getSnapshot().context.stale);
    t.true(next.message.id > kept.message.id);
  }));

test.serial('a batch writes ahead only once it holds as many sends as the batch writing before it', (t) =>
  scenario(async ({ a, b, own, send, answered, hold }) => {
    // Dispatched in one turn: the second joins the first's batch before its writes start.
    const firsts = [send(a.id, 'existing', 'hold-write one of two'), send(b.id, 'existing', 'two of two')];
    await until(own, (o) => batchOf(o, 'hold-write one of two')?.writing);
    t.is(batchOf(own, 'hold-write one of two')!.batch.length, 2);
    await untilWaiting(own, INSERTING);
    const third = send(a.id, 'existing', 'alone, waits');
    await until(own, (o) => batchOf(o, 'alone, waits') !== undefined);
    await sleep(200);
    t.false(batchOf(own, 'alone, waits')!.writing, 'one send does not write ahead of a batch of two');
    const fourth = send(b.id, 'existing', 'joins it');
    await until(own, (o) => batchOf(o, 'joins it')?.written);
    t.is(batchOf(own, 'joins it'), batchOf(own, 'alone, waits'), 'it joined the waiting batch, which then wrote ahead');
    t.false(batchOf(own, 'hold-write one of two')!.written, 'while the first batch still writes');
    await hold.release(HOLD_WRITE);
    await Promise.all([...firsts, third, fourth]);
    t.deepEqual(answered, ['hold-write one of two', 'two of two', 'alone, waits', 'joins it']);
    t.deepEqual(await inIdOrder(own, answered), answered);
  }));


/** How many transactions the realm actor opened while `run` ran. */
async function transactionsIn(own: Own, run: () => Promise<unknown>): Promise<number> {
  const before = own.counted.transactions;
  await run();
  return own.counted.transactions - before;
}

test.serial('a batch of sends to a topic with messages commits by one statement, without BEGIN; a topic start goes through a transaction', (t) =>
  scenario(async ({ a, b, own, send }) => {
    const counts = [
      await transactionsIn(own, () => send(a.id, 'existing', 'to the topic')),
      await transactionsIn(own, () => Promise.all([send(a.id, 'existing', 'one of a batch'), send(b.id, 'existing', 'two of a batch')])),
      await transactionsIn(own, () => send(b.id, 'a new topic', 'starting a topic')),
      await transactionsIn(own, () => send(a.id, 'a new topic', 'after the start')),
    ];
    t.deepEqual(counts, [0, 0, 1, 0], 'transactions opened');
    const sent = ['to the topic', 'one of a batch', 'two of a batch', 'starting a topic', 'after the start'];
    t.deepEqual(await inIdOrder(own, sent), sent);
  }));

test.serial('through a database that allows only transactions (cluster mode: fencing), a batch written ahead is in one', (t) =>
  scenario(
    async ({ a, own, send }) => {
      t.is(await transactionsIn(own, () => send(a.id, 'existing', 'fenced')), 1);
      t.is(await transactionsIn(own, () => send(a.id, 'existing', 'fenced again')), 1);
    },
    { transactionsOnly: true },
  ));

test.serial('message IDs follow the mailbox order across blocks, topic starts and batches written ahead', (t) =>
  scenario(
    async ({ a, b, own, send, answered, hold }) => {
      const sends = [send(a.id, 'existing', 'hold-write before the others')];
      await untilWaiting(own, INSERTING);
      const topics = ['existing', 'another', 'existing', 'another', 'existing', 'a third', 'existing'];
      topics.forEach((topic, i) => sends.push(send(i % 2 ? a.id : b.id, topic, `in order ${i}`)));
      await sleep(100);
      for (let i = 7; i < 14; i++) sends.push(send(i % 2 ? a.id : b.id, 'existing', `in order ${i}`));
      await sleep(100);
      await hold.release(HOLD_WRITE);
      const results = await Promise.all(sends);
      const ids = results.map((r) => r.message.id);
      t.deepEqual(ids, [...ids].sort((x, y) => x - y), `IDs in mailbox order: ${ids.join(', ')}`);
      t.deepEqual(await inIdOrder(own, answered), answered);
      t.is(answered.length, 15);
      t.is(own.actor.getSnapshot().context.state!.messages.lastId, ids[ids.length - 1]);
    },
    { idBlock: 2 },
  ));

test.serial('a batch whose insert draws its IDs from the sequence (a new direct conversation) drops the block: a batch written ahead of its COMMIT takes IDs above', (t) =>
  scenario(async ({ a, b, own, send, sendDirect, answered, hold }) => {
    const first = await send(a.id, 'existing', 'with the block');
    const direct = sendDirect(a.id, [b.id], 'hold-commit starts a direct conversation');
    await until(own, (o) => batchOf(o, 'hold-commit starts a direct conversation')?.written);
    const next = send(b.id, 'existing', 'with a new block');
    await until(own, (o) => ended(o, 'with a new block'));
    await hold.release(HOLD_COMMIT);
    const ids = [first, await direct, await next].map((r) => r.message.id);
    t.deepEqual(ids, [...ids].sort((x, y) => x - y), `IDs in mailbox order: ${ids.join(', ')}`);
    t.deepEqual(await inIdOrder(own, answered), answered);
  }));

test.serial('a message inserted behind the realm actor’s back above its block: the next sends give their IDs up and take new ones above it', (t) =>
  scenario(async ({ a, b, owner, name, own, send, hold }) => {
    const channelId = await own.database.db.one('SELECT id FROM channels WHERE name = $1', [name], (r) => r.id as number);
    const insertBehind = (content: string) =>
      own.database.db.one(
        `INSERT INTO messages (realm_id, sender_id, recipient_kind, stream_id, topic, content, rendered_content)
         VALUES ($1, $2, 'stream', $3, 'existing', $4, $4) RETURNING id`,
        [own.actor.getSnapshot().context.realmId, owner.id, channelId, content],
        (r) => Number(r.id),
      );
    const before = await send(a.id, 'existing', 'before');
    const behind = await insertBehind('behind its back');
    let next!: SendResult;
    const gaveUp = await transactionsIn(own, async () => (next = await send(b.id, 'existing', 'after it')));
    t.true(before.message.id < behind && behind < next.message.id, `${before.message.id} < ${behind} < ${next.message.id}`);
    // While a batch of the old block writes, another row comes behind the actor's back: the next batch's statement
    // finds it, and that batch inserts in a transaction after the first's writes, above it.
    const first = send(a.id, 'existing', 'hold-write with the block');
    await untilWaiting(own, INSERTING);
    const behind2 = await insertBehind('behind its back again');
    const pipelined = own.counted.transactions;
    const second = send(b.id, 'existing', 'above it');
    await until(own, (o) => batchOf(o, 'above it')?.writing);
    await sleep(200);
    await hold.release(HOLD_WRITE);
    const [r1, r2] = await Promise.all([first, second]);
    t.true(r1.message.id < behind2 && behind2 < r2.message.id, `${r1.message.id} < ${behind2} < ${r2.message.id}`);
    t.is(own.counted.transactions - pipelined, 1, 'the second batch gave its IDs up: a transaction');
    let later!: SendResult;
    const newBlock = await transactionsIn(own, async () => (later = await send(a.id, 'existing', 'later')));
    t.true(later.message.id > r2.message.id);
    t.deepEqual([gaveUp, newBlock], [1, 0], 'given up: a transaction; then a new block, one statement');
  }));
