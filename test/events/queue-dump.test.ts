// Queue dumps: a queue survives a restart with its events, its ids and its acknowledgements; bad dumps are refused.
import test from 'ava';
import { Packr } from '../../src/msgpack.js';
import { drive } from '../helpers/queue-driver.js';
import { dumpQueue, migrateDump, QUEUE_DUMP_VERSION, restoreQueue } from '../../src/events/queue-dump.js';

const T0 = 1_700_000_000_000;
const packr = new Packr({ useRecords: false });

function live(now: () => number, extra: Record<string, unknown> = {}) {
  const { queue, send, emitted } = drive(now, { queueId: 'p1:abc', userId: 7, realmId: 2, heartbeatMs: 30_000, maxEvents: 50, ...extra });
  const state = () => ({ value: queue.state, context: { ...queue, events: queue.queued() } });
  return { queue, send, emitted, state };
}

test('a restored queue keeps its unacknowledged events, its ids and its acknowledgements', (t) => {
  let now = T0;
  const before = live(() => now);
  before.send({ type: 'ENQUEUE', events: ['a', 'b', 'c', 'd', 'e'].map((type) => ({ type, n: { deep: [1, 2] } })) });
  before.send({ type: 'POLL', handle: 1, lastEventId: 2, dontBlock: true });
  const buf = dumpQueue(before.queue);
  t.true(Buffer.isBuffer(buf));

  now = T0 + 5000;
  const input = restoreQueue(buf);
  t.is(input.queueId, 'p1:abc');
  t.is(input.heartbeatMs, 30_000);
  t.is(input.maxEvents, 50);
  const after = live(() => now, input);
  const c = after.state().context;
  t.is(after.state().value, 'waiting');
  t.is(c.lastEventId, 4);
  t.is(c.firstUnacked, 3);
  t.is(c.lastActivity, T0, 'idle time before the restart still counts');
  t.deepEqual(c.events, [
    { type: 'd', n: { deep: [1, 2] }, id: 3 },
    { type: 'e', n: { deep: [1, 2] }, id: 4 },
  ]);

  // The client carries on with its last_event_id; new events continue the numbering.
  after.send({ type: 'POLL', handle: 2, lastEventId: 3, dontBlock: false });
  after.send({ type: 'POLL', handle: 3, lastEventId: 4, dontBlock: false });
  after.send({ type: 'ENQUEUE', events: [{ type: 'f' }] });
  t.deepEqual(after.emitted, [
    { type: 'deliver', queueId: 'p1:abc', handle: 2, events: [{ type: 'e', n: { deep: [1, 2] }, id: 4 }] },
    { type: 'deliver', queueId: 'p1:abc', handle: 3, events: [{ type: 'f', id: 5 }] },
  ]);
  after.send({ type: 'POLL', handle: 4, lastEventId: 1, dontBlock: true });
  t.is(after.emitted.at(-1)!.type, 'rejected', 'what was pruned before the restart stays pruned');
});

test('a queue dumped with a parked poll restores waiting, active as of the dump', (t) => {
  let now = T0;
  const before = live(() => now);
  before.send({ type: 'POLL', handle: 1, lastEventId: -1, dontBlock: false });
  now = T0 + 9 * 60_000;
  const input = restoreQueue(dumpQueue(before.queue));
  t.is(input.restored.lastActivity, T0 + 9 * 60_000);
  const after = live(() => now, input);
  t.is(after.state().value, 'waiting');
  t.is(after.state().context.handle, null);
});

test('the registration parameters travel with the dump; the filter does not', (t) => {
  const registration = { event_types: ['message'], narrow: [['is', 'dm']] };
  const before = live(() => T0, { registration, filter: () => true });
  const input = restoreQueue(dumpQueue(before.queue));
  t.deepEqual(input.registration, registration);
  t.false('filter' in input);
});

test('an expired queue cannot be dumped', (t) => {
  const q = live(() => T0);
  q.send({ type: 'DELETE' });
  t.throws(() => dumpQueue(q.queue), { message: /live queue/ });
});

test('every dump carries the current version', (t) => {
  const raw = packr.unpack(dumpQueue(live(() => T0).queue));
  t.is(raw.version, QUEUE_DUMP_VERSION);
});

function validDump(): Record<string, unknown> {
  return {
    version: QUEUE_DUMP_VERSION,
    queueId: 'p1:q',
    userId: 1,
    realmId: 1,
    maxEvents: 10,
    heartbeatMs: 60_000,
    idleTimeoutMs: 600_000,
    lastEventId: 6,
    firstUnacked: 5,
    lastActivity: T0,
    events: [{ type: 'a', id: 5 }, { type: 'b', id: 6 }],
  };
}

test('a dump from a newer server, or without a version, is refused', (t) => {
  t.notThrows(() => restoreQueue(packr.pack(validDump())));
  t.throws(() => restoreQueue(packr.pack({ ...validDump(), version: QUEUE_DUMP_VERSION + 1 })), { message: /newer/ });
  const { version: _, ...unversioned } = validDump();
  t.throws(() => restoreQueue(packr.pack(unversioned)), { message: /no version/ });
});

test('an older version with no migration step is refused rather than guessed at', (t) => {
  t.throws(() => migrateDump({ ...validDump(), version: 0 }), { message: /No migration from queue dump version 0/ });
});

test('a dump whose events do not match its ids is refused', (t) => {
  t.throws(() => restoreQueue(packr.pack({ ...validDump(), firstUnacked: 4 })), { message: /ids/ });
  t.throws(() => restoreQueue(packr.pack({ ...validDump(), events: [{ type: 'a', id: 5 }, { type: 'b', id: 7 }] })), {
    message: /ids/,
  });
  t.throws(() => restoreQueue(packr.pack({ ...validDump(), userId: 'x' })), { message: /userId/ });
  t.throws(() => restoreQueue(Buffer.from([0xc1])));
});
