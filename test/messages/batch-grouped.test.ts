// A batch's writes grouped by kind (src/realm/write-order.ts) and written in bulk (flags and reactions too), and
// mixed batches in the realm actor's pipeline, over real PostgreSQL: the statements of a batch of sends, flag
// changes and reactions do not grow with it; commands that conflict keep the mailbox order and each gets the answer
// it would get written alone; a batch of those kinds is written while an earlier one commits when it touches
// nothing of it, and waits when it does; a presence announcement is answered without waiting for commits.
import { setTimeout as sleep } from 'node:timers/promises';
import test, { type ExecutionContext } from 'ava';
import type { FlagsResult } from '../../src/realm/messages/flags.js';
import type { ReactionResult } from '../../src/realm/messages/reactions.js';
import type { SendResult } from '../../src/realm/messages/send.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { untilSnapshot } from '../helpers/snapshot.js';
import { addUser } from '../helpers/users.js';
import { type AnyCommand, makeChannel, ownerUser, ownRealmActor, post, prepared, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

type Own = Awaited<ReturnType<typeof ownRealmActor>>;

const sendCmd = (senderId: number, to: string, content: string): AnyCommand => [
  'messages.send',
  { senderId, client: 'test', realmUrl: `http://127.0.0.1:${s.port}`, type: 'stream', to, topic: 'existing', content },
];
const flagCmd = (userId: number, op: 'add' | 'remove', flag: string, messages: number[]): AnyCommand => ['flags.update', { userId, op, flag, messages }];
const reactCmd = (userId: number, messageId: number, op: 'add' | 'remove', emojiName: string): AnyCommand => ['reactions.change', { userId, messageId, op, emojiName }];
const announceCmd = (userId: number): AnyCommand => [
  'presence.announce',
  { userId, lastConnected: 1_700_000_000, lastActive: 1_700_000_000, lastUpdateId: 1, serverTimestamp: 1_700_000_000 },
];

/**
 * Dispatches the commands in one burst to the actor: the first is written alone, the others wait for it in the
 * mailbox and go together. The statements its pool ran meanwhile, and each command's outcome.
 */
async function burst(own: Own, commands: AnyCommand[]) {
  const inputs = await Promise.all(commands.map(([kind, input]) => prepared(own.handle, kind, input)));
  const batches = own.actor.getSnapshot().context.batches;
  const before = own.counted.statements;
  const settled = await Promise.allSettled(commands.map(([kind], i) => own.handle.dispatch(kind, inputs[i] as never)));
  return { settled, statements: own.counted.statements - before, batches: own.actor.getSnapshot().context.batches - batches };
}

function value<R>(r: PromiseSettledResult<unknown> | undefined): R {
  if (r?.status !== 'fulfilled') throw new Error(`command failed: ${r?.status === 'rejected' ? String(r.reason) : 'missing'}`);
  return r.value as R;
}

/** A channel of the owner and `n` new users, with `n` messages from the owner in its topic `existing`. */
async function fixture(n: number) {
  const owner = await ownerUser(s);
  const users = await Promise.all(Array.from({ length: n }, (_, i) => addUser(s, { fullName: `Grouped ${uniqueName('u')} ${i}` })));
  const name = uniqueName();
  await makeChannel(s, name, [owner.id, ...users.map((u) => u.id)]);
  const messages: number[] = [];
  for (let i = 0; i < n; i++) messages.push(await post(s, s.owner, name, 'existing', `message ${i}`));
  return { owner, users, name, messages };
}

/**
 * Runs `round` on a fixture of 2 users, then of 6 (`setup`, made before the realm actor of its own it gets); `round`
 * returns the statements its burst cost, which must be the same for both.
 */
async function sameStatementsFor2And6<F>(t: ExecutionContext, setup: (n: number) => Promise<F>, round: (f: F, own: Own) => Promise<number>): Promise<void> {
  const statements: number[] = [];
  for (const n of [2, 6]) {
    const f = await setup(n);
    const own = await ownRealmActor(s);
    try {
      statements.push(await round(f, own));
    } finally {
      await own.close();
    }
  }
  t.is(statements[1], statements[0], `statements for 2 and 6: ${statements.join(', ')}`);
}

const reactionsOn = (own: Own, messageId: number) =>
  own.database.db.map('SELECT user_id, emoji_name FROM reactions WHERE message_id = $1 ORDER BY id', [messageId], (r) => `${r.user_id}:${r.emoji_name}`);

test.serial('sends, flag changes and reactions interleaved: the batch costs the same statements for 2 or 6 of each', async (t) => {
  await sameStatementsFor2And6(t, fixture, async (f, own) => {
    const commands: AnyCommand[] = [sendCmd(f.owner.id, f.name, 'warm-up: taken alone')];
    f.users.forEach((u, i) => {
      commands.push(sendCmd(u.id, f.name, `grouped ${i}`), flagCmd(u.id, 'add', 'read', f.messages), reactCmd(u.id, f.messages[i]!, 'add', 'heart'));
    });
    const { settled, statements: count, batches } = await burst(own, commands);
    t.is(batches, 1, 'the warm-up’s batch, which all the others joined while it opened its transaction');
    const sent = f.users.map((_, i) => value<SendResult>(settled[1 + 3 * i]).message.id);
    t.deepEqual([...sent].sort((a, b) => a - b), sent, 'message IDs follow the mailbox order');
    for (let i = 0; i < f.users.length; i++) {
      t.deepEqual(value<FlagsResult>(settled[2 + 3 * i]).changed, f.messages, 'each user’s messages were marked read');
      t.is(value<ReactionResult>(settled[3 + 3 * i]).reaction.emojiName, 'heart');
      t.deepEqual(await reactionsOn(own, f.messages[i]!), [`${f.users[i]!.id}:heart`]);
    }
    const unread = await own.database.db.one(
      'SELECT count(*)::int AS n FROM user_messages WHERE message_id = ANY($1::bigint[]) AND user_id = ANY($2::int[]) AND (flags & 1) = 0',
      [f.messages, f.users.map((u) => u.id)],
      (r) => r.n as number,
    );
    t.is(unread, 0, 'the rows are read in the database');
    return count;
  });
});

test.serial('reactions of many users to one message: one round of statements for 2 or 6 users, each as if written alone', async (t) => {
  // The outsider is not subscribed (the channel is public): their reaction adds a historical row, so later reactions
  // go to them too.
  const setup = async (n: number) => ({ ...(await fixture(n)), outsider: await addUser(s, { fullName: `Outsider ${uniqueName('u')}` }) });
  await sameStatementsFor2And6(t, setup, async (f, own) => {
    const { outsider } = f;
    const [m1] = f.messages as [number];
    const commands: AnyCommand[] = [sendCmd(f.owner.id, f.name, 'warm-up: taken alone'), reactCmd(outsider.id, m1, 'add', 'thumbs_up')];
    // The first user votes for the outsider's reaction by another name of its emoji; the others react with hearts.
    f.users.forEach((u, i) => commands.push(reactCmd(u.id, m1, 'add', i === 0 ? '+1' : 'heart')));
    const { settled, statements: count, batches } = await burst(own, commands);
    t.is(batches, 1);
    t.true(settled.every((r) => r.status === 'fulfilled'), 'every reaction added');
    const results = settled.slice(1).map((r) => value<ReactionResult>(r));
    t.is(results[1]!.reaction.emojiName, 'thumbs_up', 'a vote keeps the name of the reaction it votes for, added earlier in the batch');
    t.true(results.slice(1).every((r) => r.audience.includes(outsider.id)), 'the outsider’s historical row, added earlier in the batch, holds the message');
    t.deepEqual(await reactionsOn(own, m1), [
      `${outsider.id}:thumbs_up`,
      `${f.users[0]!.id}:thumbs_up`,
      ...f.users.slice(1).map((u) => `${u.id}:heart`),
    ]);
    return count;
  });
});

test.serial('sends starting topics: the senders follow them (once each), in the same statements for 2 or 6 starters', async (t) => {
  await sameStatementsFor2And6(t, fixture, async (f, own) => {
    const topicCmd = (senderId: number, topic: string, content: string): AnyCommand => {
      const [kind, input] = sendCmd(senderId, f.name, content);
      return [kind, { ...(input as Record<string, unknown>), topic }] as AnyCommand;
    };
    const commands: AnyCommand[] = [sendCmd(f.owner.id, f.name, 'warm-up: taken alone')];
    f.users.forEach((u, i) => {
      commands.push(topicCmd(u.id, `new topic ${i}`, 'starts it'));
      // The same topic again, in other letters: not a start, and the topic is followed already.
      commands.push(topicCmd(u.id, `NEW TOPIC ${i}`, 'again'));
    });
    const { settled, statements: count, batches } = await burst(own, commands);
    t.is(batches, 1);
    const results = settled.slice(1).map((r) => value<SendResult>(r));
    f.users.forEach((u, i) => {
      t.like(results[2 * i]!.visibility, { userId: u.id, topic: `new topic ${i}`, policy: 3 }, 'the starter follows the topic');
      t.is(results[2 * i + 1]!.visibility, null, 'the second send changes nothing');
    });
    const rows = await own.database.db.map(
      'SELECT user_id, topic, visibility_policy FROM user_topics WHERE user_id = ANY($1::int[])',
      [f.users.map((u) => u.id)],
      (r) => `${r.user_id}:${r.topic}:${r.visibility_policy}`,
    ).then((r) => r.sort());
    t.deepEqual(rows, f.users.map((u, i) => `${u.id}:new topic ${i}:3`).sort());
    return count;
  });
});

test.serial('conflicting commands in one batch keep the mailbox order: each answered as if written alone, events in mailbox order', async (t) => {
  const f = await fixture(2);
  const [u, v] = f.users as [(typeof f.users)[0], (typeof f.users)[0]];
  const [m1, m2] = f.messages as [number, number];
  const own = await ownRealmActor(s);
  try {
    const { settled, batches } = await burst(own, [
      sendCmd(f.owner.id, f.name, 'warm-up: taken alone'),
      flagCmd(u.id, 'add', 'starred', [m1]),
      reactCmd(u.id, m1, 'add', 'heart'),
      sendCmd(u.id, f.name, 'hello'),
      flagCmd(u.id, 'remove', 'starred', [m1]), // after the star: changes it back
      reactCmd(v.id, m1, 'add', 'heart'), // a vote for u's heart
      reactCmd(u.id, m1, 'remove', 'heart'), // after u's heart: removes it
      ['flags.markAllRead', { userId: u.id }], // after u's send: marks it read too
      flagCmd(u.id, 'add', 'read', [m2]), // after mark-all-read: nothing left to change
      reactCmd(u.id, m1, 'remove', 'heart'), // already removed
      announceCmd(v.id),
    ]);
    t.is(batches, 2);
    t.deepEqual(settled.map((r) => r.status), [...Array(9).fill('fulfilled'), 'rejected', 'fulfilled']);
    const hello = value<SendResult>(settled[3]).message.id;
    t.deepEqual(value<FlagsResult>(settled[1]).changed, [m1]);
    t.deepEqual(value<FlagsResult>(settled[4]).changed, [m1]);
    t.is(value<ReactionResult>(settled[5]).reaction.emojiName, 'heart');
    t.is(value<ReactionResult>(settled[6]).op, 'remove');
    t.true(value<FlagsResult>(settled[7]).changed.includes(hello), 'mark-all-read came after the send');
    t.deepEqual(value<FlagsResult>(settled[8]).changed, []);
    t.like((settled[9] as PromiseRejectedResult).reason, { message: "Reaction doesn't exist." });
    t.deepEqual(await reactionsOn(own, m1), [`${v.id}:heart`]);
    const flags = await own.database.db.one('SELECT flags FROM user_messages WHERE user_id = $1 AND message_id = $2', [u.id, m1], (r) => r.flags as number);
    t.is(flags & 2, 0, 'not starred');
    t.is(flags & 1, 1, 'read');
    // The events, in mailbox order (the announcement, answered as it arrived, first).
    const kinds = own.published.map(({ event: e }) => {
      if (e.kind === 'message_flags') return `flags:${e.op}:${e.flag}`;
      if (e.kind === 'reaction') return `reaction:${e.op}:${e.user.userId === u.id ? 'u' : 'v'}`;
      return e.kind;
    });
    t.deepEqual(kinds, [
      'presence',
      'message',
      'flags:add:starred',
      'reaction:add:u',
      'message',
      'flags:remove:starred',
      'reaction:add:v',
      'reaction:remove:u',
      'flags:add:read',
    ]);
  } finally {
    await own.close();
  }
});

/** The advisory lock the COMMIT of a transaction adding an `octopus` reaction waits on. */
const HOLD = 9201;

test.serial('a mixed batch touching nothing of the batch still committing is written meanwhile; one touching it waits; an announcement does not wait', async (t) => {
  const f = await fixture(3);
  const [u, v, w] = f.users as [(typeof f.users)[0], (typeof f.users)[0], (typeof f.users)[0]];
  const [m1, m2] = f.messages as [number, number];
  const own = await ownRealmActor(s);
  const db = own.database.db;
  await db.none(`CREATE OR REPLACE FUNCTION reactions_held() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN PERFORM pg_advisory_xact_lock_shared(${HOLD}); RETURN NULL; END $$`);
  await db.none(`CREATE CONSTRAINT TRIGGER reactions_held AFTER INSERT ON reactions DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.emoji_name = 'octopus') EXECUTE FUNCTION reactions_held()`);
  const hold = await db.connect();
  await hold.one('SELECT pg_advisory_lock($1)', [HOLD]);
  const answered: string[] = [];
  /** Dispatches a prepared command, noting when it is answered. */
  const track = (name: string, [kind, input]: AnyCommand) =>
    own.handle.dispatch(kind, input as never).then(
      (r) => (answered.push(name), r),
      (err: unknown) => (answered.push(`${name}!`), Promise.reject(err)),
    );
  const ready = (c: AnyCommand) => prepared(own.handle, c[0], c[1] as never).then((input) => [c[0], input] as AnyCommand);
  const pipelined = await Promise.all([
    ready(sendCmd(v.id, f.name, 'written while the octopus commits')),
    ready(flagCmd(v.id, 'add', 'read', [m1, m2])),
    ready(reactCmd(w.id, m2, 'add', 'heart')),
  ]);
  try {
    const first = track('octopus', reactCmd(u.id, m1, 'add', 'octopus'));
    await untilSnapshot(own.actor, (x) => x.context.inFlight[0]?.written === true);
    // Touches none of m1's reactions or holders, nor u's row of m1: taken and committed while the first batch waits.
    const second = Promise.all(['send', 'read', 'heart'].map((name, i) => track(name, pipelined[i]!)));
    // (The send may go in a batch of its own: a batch gathers while the one before it writes.)
    const committed = (x: ReturnType<typeof own.actor.getSnapshot>) =>
      x.context.pending.length === 0 && x.context.inFlight.length >= 2 && x.context.inFlight.slice(1).every((b) => b.result !== null);
    await untilSnapshot(own.actor, committed);
    t.is(own.actor.getSnapshot().context.inFlight[0]!.result, null, 'the first batch still commits');
    t.deepEqual(await reactionsOn(own, m2), [`${w.id}:heart`], 'the second batch committed');
    t.deepEqual(await reactionsOn(own, m1), [], 'the first has not');
    // An announcement writes nothing: answered now.
    await track('announce', announceCmd(w.id));
    t.deepEqual(answered, ['announce'], 'nothing that writes answered before the first batch settles');
    // A reaction to m1 touches what the first batch does: it waits in the mailbox.
    const third = track('tada', reactCmd(v.id, m1, 'add', 'tada'));
    await sleep(200);
    t.is(own.actor.getSnapshot().context.pending.length, 1);
    await hold.one('SELECT pg_advisory_unlock($1)', [HOLD]);
    await Promise.all([first, second, third]);
    t.deepEqual(answered, ['announce', 'octopus', 'send', 'read', 'heart', 'tada'], 'answered in the order the batches were taken');
    t.deepEqual(await reactionsOn(own, m1), [`${u.id}:octopus`, `${v.id}:tada`]);
  } finally {
    await hold.any('SELECT pg_advisory_unlock_all()').catch(() => undefined);
    hold.done();
    await db.none('DROP TRIGGER reactions_held ON reactions');
    await own.close();
  }
});
