// Scheduled delivery across restarts and processes: pending messages are reloaded, those that fell due while
// the server was down are sent at start-up, and two servers on one database send each message exactly once.
import test from 'ava';
import { addUser } from '../helpers/users.js';
import { makeChannel, uniqueName } from '../messages/helpers.js';
import { scheduleOk, sentWith, startClockedServer, storedRow } from './helpers.js';

test('restart: a message due while the server was down is sent at start-up; a later one at its time', async (t) => {
  const first = await startClockedServer();
  let second: Awaited<ReturnType<typeof startClockedServer>> | null = null;
  try {
    const user = await addUser(first.s);
    const friend = await addUser(first.s);
    const channelId = await makeChannel(first.s, uniqueName('restart'), [user.id, friend.id]);
    const start = first.now();
    const overdue = `overdue ${uniqueName()}`;
    const future = `future ${uniqueName()}`;
    const overdueId = await scheduleOk(first.s, user, { type: 'stream', to: String(channelId), topic: 't', content: overdue, scheduled_delivery_timestamp: String(start + 60) });
    const futureId = await scheduleOk(first.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content: future, scheduled_delivery_timestamp: String(start + 600) });
    await first.s.stop();

    // Two minutes later the server comes back.
    second = await startClockedServer({
      reuse: { dataDir: first.s.dataDir, databaseUrl: first.s.databaseUrl },
      startMs: (start + 120) * 1000,
    });
    await second.settled();
    t.is((await sentWith(second.s, user.id, overdue)).length, 1, 'sent at start-up');
    t.like(await storedRow(second.s, overdueId), { delivered: true });
    t.deepEqual(await sentWith(second.s, user.id, future), []);
    t.true(second.s.server.services.scheduled.pending().has(futureId), 'reloaded');
    await second.advance(479);
    t.deepEqual(await sentWith(second.s, user.id, future), []);
    await second.advance(1);
    t.is((await sentWith(second.s, user.id, future)).length, 1);
  } finally {
    await second?.s.stop();
    await first.s.close();
  }
});

test('two servers on one database race for the same messages: each is sent exactly once', async (t) => {
  const a = await startClockedServer();
  let b: Awaited<ReturnType<typeof startClockedServer>> | null = null;
  try {
    const user = await addUser(a.s);
    const friend = await addUser(a.s);
    const channelId = await makeChannel(a.s, uniqueName('race'), [user.id, friend.id]);
    const at = a.now() + 60;
    const contents = Array.from({ length: 12 }, (_, i) => `race ${i} ${uniqueName()}`);
    const ids: number[] = [];
    for (const [i, content] of contents.entries()) {
      const form: Record<string, string> = i % 2 === 0
        ? { type: 'stream', to: String(channelId), topic: 'race', content, scheduled_delivery_timestamp: String(at) }
        : { type: 'direct', to: JSON.stringify([friend.id]), content, scheduled_delivery_timestamp: String(at) };
      ids.push(await scheduleOk(a.s, user, form));
    }
    // The second process starts on the same database (and loads the pending messages), with its clock in step.
    b = await startClockedServer({ reuse: { dataDir: a.s.dataDir, databaseUrl: a.s.databaseUrl }, startMs: a.clock.now() });
    for (const id of ids) t.true(b.s.server.services.scheduled.pending().has(id));
    // Both clocks reach the due time together: both actors try every message at once.
    a.clock.increment(60_000);
    b.clock.increment(60_000);
    await Promise.all([a.settled(), b.settled()]);
    // A transaction the database aborted (a deadlock between the two) is retried a moment later.
    for (let i = 0; i < 5; i++) {
      a.clock.increment(5_000);
      b.clock.increment(5_000);
      await Promise.all([a.settled(), b.settled()]);
    }
    for (const id of ids) {
      t.false(a.s.server.services.scheduled.pending().has(id));
      t.false(b.s.server.services.scheduled.pending().has(id), 'the second process tried it too (and was told it is done)');
    }
    for (const [i, content] of contents.entries()) {
      const sent = await sentWith(a.s, user.id, content);
      t.is(sent.length, 1, `message ${i} sent exactly once`);
      const row = await storedRow(a.s, ids[i]!);
      t.like(row, { delivered: true, failed: false });
      t.is(Number(row.delivered_message_id), sent[0]!.id);
    }
  } finally {
    await b?.s.stop();
    await a.s.close();
  }
});
