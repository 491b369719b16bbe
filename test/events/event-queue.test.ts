// The event queue, driven with a controlled clock: every state change and what it emits.
import test from 'ava';
import { HEARTBEAT_MS, IDLE_TIMEOUT_MS, type EventQueueInput, type QueuedEvent } from '../../src/events/event-queue.js';
import { drive } from '../helpers/queue-driver.js';

const T0 = 1_700_000_000_000;

function start(input: Partial<EventQueueInput> = {}) {
  const clock = { t: T0 };
  const { queue, send, emitted } = drive(() => clock.t, { queueId: 'q1', userId: 7, realmId: 2, ...input });
  const poll = (handle: number, lastEventId: number, dontBlock = false) => send({ type: 'POLL', handle, lastEventId, dontBlock });
  const enqueue = (...types: string[]) => send({ type: 'ENQUEUE', events: types.map((type) => ({ type })) });
  const state = () => queue.state;
  const ctx = () => ({
    queueId: queue.queueId,
    lastEventId: queue.lastEventId,
    firstUnacked: queue.firstUnacked,
    lastActivity: queue.lastActivity,
    handle: queue.handle,
    socket: queue.socket,
    parkedAt: queue.parkedAt,
    events: queue.queued(),
  });
  /** The emissions since the last call. */
  const take = () => emitted.splice(0);
  return { queue, send, clock, poll, enqueue, state, ctx, take };
}

const deliver = (handle: number, events: object[]) => ({ type: 'deliver', queueId: 'q1', handle, events });

test('a new queue waits, holding nothing, numbering from -1', (t) => {
  const q = start();
  t.is(q.state(), 'waiting');
  t.deepEqual(q.ctx().events, []);
  t.is(q.ctx().lastEventId, -1);
  t.is(q.ctx().firstUnacked, 0);
  t.is(q.ctx().lastActivity, T0);
});

test('a POLL with nothing to deliver parks its handle: waiting → polling', (t) => {
  const q = start();
  q.clock.t += 5;
  q.poll(1, -1);
  t.is(q.state(), 'polling');
  t.is(q.ctx().handle, 1);
  t.is(q.ctx().parkedAt, T0 + 5);
  t.deepEqual(q.take(), []);
});

test('an ENQUEUE while polling is delivered at once to the parked handle: polling → waiting', (t) => {
  const q = start();
  q.poll(1, -1);
  q.clock.t += 1000;
  q.enqueue('message', 'typing');
  t.deepEqual(q.take(), [deliver(1, [{ type: 'message', id: 0 }, { type: 'typing', id: 1 }])]);
  t.is(q.state(), 'waiting');
  t.is(q.ctx().handle, null);
  t.is(q.ctx().lastActivity, T0 + 1000);
});

test('events enqueued while waiting are buffered and answer the next POLL immediately', (t) => {
  const q = start();
  q.enqueue('a');
  q.enqueue('b', 'c');
  t.deepEqual(q.take(), []);
  t.is(q.ctx().lastEventId, 2);
  q.poll(4, -1);
  t.deepEqual(q.take(), [deliver(4, [{ type: 'a', id: 0 }, { type: 'b', id: 1 }, { type: 'c', id: 2 }])]);
  t.is(q.state(), 'waiting');
});

test('an enqueued event is copied, not mutated, so one object can go to many queues', (t) => {
  const q = start();
  const shared = { type: 'message', message: { id: 9 } };
  q.send({ type: 'ENQUEUE', events: [shared] });
  t.deepEqual(shared, { type: 'message', message: { id: 9 } });
  t.deepEqual(q.ctx().events, [{ type: 'message', message: { id: 9 }, id: 0 }]);
});

test('dont_block on an empty queue answers [] at once and keeps waiting', (t) => {
  const q = start();
  q.poll(1, -1, true);
  t.deepEqual(q.take(), [deliver(1, [])]);
  t.is(q.state(), 'waiting');
  t.is(q.ctx().handle, null);
});

test('last_event_id acknowledges: acked events are pruned, unacked ones are delivered again', (t) => {
  const q = start();
  q.enqueue('a', 'b', 'c');
  q.poll(1, -1);
  t.is(q.take()[0]!.type, 'deliver');
  // The client did not get the answer and asks again with the same ack: same events.
  q.poll(2, -1);
  t.deepEqual(q.take(), [deliver(2, [{ type: 'a', id: 0 }, { type: 'b', id: 1 }, { type: 'c', id: 2 }])]);
  q.poll(3, 1);
  t.deepEqual(q.take(), [deliver(3, [{ type: 'c', id: 2 }])]);
  t.is(q.ctx().firstUnacked, 2);
  q.poll(4, 2);
  t.deepEqual(q.take(), []);
  t.is(q.state(), 'polling');
  t.deepEqual(q.ctx().events, []);
  t.is(q.ctx().firstUnacked, 3);
});

test('a POLL acknowledging an event the queue never had, or one before the pruned ones, is rejected', (t) => {
  const q = start();
  q.enqueue('a', 'b', 'c');
  q.poll(1, 5);
  t.deepEqual(q.take(), [{ type: 'rejected', queueId: 'q1', handle: 1, msg: 'Event 5 was not in this queue' }]);
  t.is(q.ctx().events.length, 3, 'nothing pruned');
  q.poll(2, 1);
  q.take();
  q.poll(3, 0);
  t.deepEqual(q.take(), [
    { type: 'rejected', queueId: 'q1', handle: 3, msg: 'An event newer than 0 has already been pruned!' },
  ]);
  // Re-sending the newest ack is fine.
  q.poll(4, 1);
  t.deepEqual(q.take(), [deliver(4, [{ type: 'c', id: 2 }])]);
});

test('a rejected POLL leaves the parked one parked', (t) => {
  const q = start();
  q.poll(1, -1);
  q.poll(2, 3);
  t.deepEqual(q.take().map((e) => e.type), ['rejected']);
  t.is(q.state(), 'polling');
  t.is(q.ctx().handle, 1);
});

test('a new POLL replaces the parked one, which is answered with [] as Zulip does', (t) => {
  const q = start();
  q.poll(1, -1);
  q.clock.t += 30_000;
  q.poll(2, -1);
  t.deepEqual(q.take(), [deliver(1, [])]);
  t.is(q.state(), 'polling');
  t.is(q.ctx().handle, 2);
  t.is(q.ctx().parkedAt, T0 + 30_000, 'the heartbeat clock restarts for the new poll');
  q.enqueue('a');
  t.deepEqual(q.take(), [deliver(2, [{ type: 'a', id: 0 }])]);
});

test('a dont_block POLL replacing a parked one answers both with [] and leaves the queue waiting', (t) => {
  const q = start();
  q.poll(1, -1);
  q.poll(2, -1, true);
  t.deepEqual(q.take(), [deliver(1, []), deliver(2, [])]);
  t.is(q.state(), 'waiting');
  t.is(q.ctx().handle, null);
});

test('ABORT of the parked poll leaves a clean waiting queue that loses nothing', (t) => {
  const q = start();
  q.enqueue('a', 'b');
  q.poll(1, 0, true);
  q.poll(2, 1);
  q.take();
  q.clock.t += 20_000;
  q.send({ type: 'ABORT', handle: 2 });
  t.is(q.state(), 'waiting');
  t.is(q.ctx().handle, null);
  t.is(q.ctx().lastActivity, T0 + 20_000, 'connected until it went away');
  t.like(q.ctx(), { lastEventId: 1, firstUnacked: 2 });
  q.enqueue('c', 'd');
  t.deepEqual(q.take(), [], 'nobody to deliver to');
  q.poll(3, 1);
  t.deepEqual(q.take(), [deliver(3, [{ type: 'c', id: 2 }, { type: 'd', id: 3 }])]);
});

test('events delivered to a parked poll stay until acknowledged, so a lost answer is not lost events', (t) => {
  const q = start();
  q.poll(1, -1);
  q.enqueue('a');
  t.deepEqual(q.take(), [deliver(1, [{ type: 'a', id: 0 }])]);
  q.poll(2, -1);
  t.deepEqual(q.take(), [deliver(2, [{ type: 'a', id: 0 }])]);
});

test('ABORT of a handle that is not parked changes nothing', (t) => {
  const q = start();
  q.poll(1, -1);
  q.poll(2, -1);
  q.take();
  q.send({ type: 'ABORT', handle: 1 });
  t.is(q.state(), 'polling');
  t.is(q.ctx().handle, 2);
});

test('a poll parked for the heartbeat interval gets a heartbeat event on the next SWEEP', (t) => {
  const q = start();
  q.poll(1, -1);
  q.send({ type: 'SWEEP', now: T0 + HEARTBEAT_MS - 1 });
  t.deepEqual(q.take(), []);
  t.is(q.state(), 'polling');
  t.false(q.queue.sweepDue(T0 + HEARTBEAT_MS - 1));
  t.true(q.queue.sweepDue(T0 + HEARTBEAT_MS));
  q.send({ type: 'SWEEP', now: T0 + HEARTBEAT_MS });
  t.deepEqual(q.take(), [deliver(1, [{ type: 'heartbeat', id: 0 }])]);
  t.is(q.state(), 'waiting');
  t.is(q.ctx().lastActivity, T0 + HEARTBEAT_MS);
  // The heartbeat is an event like any other: acknowledged by id.
  q.poll(2, 0);
  t.is(q.state(), 'polling');
  t.is(q.ctx().firstUnacked, 1);
});

test('the heartbeat interval comes from input', (t) => {
  const q = start({ heartbeatMs: 1000 });
  q.poll(1, -1);
  q.send({ type: 'SWEEP', now: T0 + 1000 });
  t.deepEqual(q.take(), [deliver(1, [{ type: 'heartbeat', id: 0 }])]);
});

test('a queue without a client for 10 minutes expires on the SWEEP', (t) => {
  const q = start();
  q.send({ type: 'SWEEP', now: T0 + IDLE_TIMEOUT_MS - 1 });
  t.is(q.state(), 'waiting');
  t.false(q.queue.sweepDue(T0 + IDLE_TIMEOUT_MS - 1));
  q.send({ type: 'SWEEP', now: T0 + IDLE_TIMEOUT_MS });
  t.deepEqual(q.take(), [{ type: 'expired', queueId: 'q1', userId: 7, realmId: 2, reason: 'idle' }]);
  t.is(q.state(), 'expired');
  t.is(q.queue.status, 'done');
});

test('a POLL restarts the idle clock', (t) => {
  const q = start({ idleTimeoutMs: 1000 });
  q.clock.t = T0 + 900;
  q.poll(1, -1, true);
  q.send({ type: 'SWEEP', now: T0 + 1500 });
  t.is(q.state(), 'waiting');
  q.send({ type: 'SWEEP', now: T0 + 1900 });
  t.is(q.state(), 'expired');
});

test('a queue with a parked poll is never expired, however long it has been', (t) => {
  const q = start({ heartbeatMs: 60 * 60_000 });
  q.poll(1, -1);
  q.send({ type: 'SWEEP', now: T0 + 3 * IDLE_TIMEOUT_MS });
  t.is(q.state(), 'polling');
  t.deepEqual(q.take(), []);
  // Once the client goes, the 10 minutes count from its departure.
  q.clock.t = T0 + 3 * IDLE_TIMEOUT_MS;
  q.send({ type: 'ABORT', handle: 1 });
  q.send({ type: 'SWEEP', now: q.clock.t + IDLE_TIMEOUT_MS - 1 });
  t.is(q.state(), 'waiting');
  q.send({ type: 'SWEEP', now: q.clock.t + IDLE_TIMEOUT_MS });
  t.is(q.state(), 'expired');
});

test('an ENQUEUE that would pass maxEvents expires the queue instead of growing it', (t) => {
  const q = start({ maxEvents: 3 });
  q.enqueue('a', 'b');
  q.enqueue('c');
  t.is(q.state(), 'waiting', 'exactly maxEvents is allowed');
  q.enqueue('d');
  t.deepEqual(q.take(), [{ type: 'expired', queueId: 'q1', userId: 7, realmId: 2, reason: 'overflow' }]);
  t.is(q.state(), 'expired');
  t.is(q.ctx().events.length, 3);
});

test('acknowledged events no longer count towards maxEvents', (t) => {
  const q = start({ maxEvents: 2 });
  q.enqueue('a', 'b');
  q.poll(1, 1, true);
  q.enqueue('c', 'd');
  t.is(q.state(), 'waiting');
  t.deepEqual(q.ctx().events.map((e) => e.id), [2, 3]);
  t.deepEqual(q.take(), [deliver(1, [])]);
});

test('an overflow while polling answers the parked poll before the queue expires', (t) => {
  const q = start({ maxEvents: 2 });
  q.poll(1, -1);
  q.enqueue('a', 'b', 'c');
  t.deepEqual(q.take(), [deliver(1, []), { type: 'expired', queueId: 'q1', userId: 7, realmId: 2, reason: 'overflow' }]);
  t.is(q.queue.status, 'done');
});

test('DELETE expires a waiting queue', (t) => {
  const q = start();
  q.send({ type: 'DELETE' });
  t.deepEqual(q.take(), [{ type: 'expired', queueId: 'q1', userId: 7, realmId: 2, reason: 'deleted' }]);
  t.is(q.state(), 'expired');
});

test('DELETE of a polling queue answers the parked poll first', (t) => {
  const q = start();
  q.poll(1, -1);
  q.send({ type: 'DELETE' });
  t.deepEqual(q.take(), [deliver(1, []), { type: 'expired', queueId: 'q1', userId: 7, realmId: 2, reason: 'deleted' }]);
});

test('an expired queue ignores everything', (t) => {
  const q = start();
  q.send({ type: 'DELETE' });
  q.take();
  q.enqueue('a');
  q.poll(1, -1, true);
  t.deepEqual(q.take(), []);
});

test('the filter decides which events are numbered and delivered', (t) => {
  const q = start({ filter: (e) => e.type !== 'typing' });
  q.poll(1, -1);
  q.enqueue('typing');
  t.deepEqual(q.take(), [], 'a filtered-out event does not wake the poll');
  t.is(q.state(), 'polling');
  q.enqueue('typing', 'message', 'typing', 'reaction');
  t.deepEqual(q.take(), [deliver(1, [{ type: 'message', id: 0 }, { type: 'reaction', id: 1 }])]);
});

test('only the events the filter lets in count towards maxEvents, parked or not', (t) => {
  const q = start({ maxEvents: 2, filter: (e) => e.type !== 'typing' });
  q.enqueue('typing', 'typing', 'typing', 'a');
  t.is(q.state(), 'waiting', 'one accepted event of four');
  q.poll(1, 0);
  q.enqueue('typing', 'b', 'typing', 'c');
  t.deepEqual(q.take(), [deliver(1, [{ type: 'b', id: 1 }, { type: 'c', id: 2 }])]);
  t.is(q.state(), 'waiting');
  q.enqueue('d');
  t.deepEqual(q.take(), [{ type: 'expired', queueId: 'q1', userId: 7, realmId: 2, reason: 'overflow' }], 'a third unacknowledged one is too many');
});

test('ids continue from the lastEventId given as input', (t) => {
  const q = start({ lastEventId: 41 });
  q.poll(1, 41);
  q.enqueue('a');
  t.deepEqual(q.take(), [deliver(1, [{ type: 'a', id: 42 }])]);
});

test('under any sequence of sends, the buffer stays gap-free and a parked poll means an empty buffer', async (t) => {
  const fc = await import('fast-check');
  const op = fc.oneof(
    fc.record({ k: fc.constant('enqueue' as const), n: fc.integer({ min: 0, max: 4 }) }),
    fc.record({ k: fc.constant('poll' as const), back: fc.integer({ min: -1, max: 6 }), dontBlock: fc.boolean() }),
    fc.record({ k: fc.constant('abort' as const) }),
    fc.record({ k: fc.constant('sweep' as const), dt: fc.integer({ min: 0, max: 2 * HEARTBEAT_MS }) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
      const q = start({ maxEvents: 1_000_000, idleTimeoutMs: Number.MAX_SAFE_INTEGER });
      let handle = 0;
      let ack = -1;
      for (const o of ops) {
        let tried: number | null = null;
        if (o.k === 'enqueue') q.enqueue(...Array.from({ length: o.n }, () => 'x'));
        else if (o.k === 'poll') q.poll(++handle, (tried = q.ctx().lastEventId - o.back), o.dontBlock);
        else if (o.k === 'abort') q.send({ type: 'ABORT', handle });
        else {
          q.clock.t += o.dt;
          q.send({ type: 'SWEEP', now: q.clock.t });
        }
        const c = q.ctx();
        if (!c.events.every((e, i) => e.id === c.firstUnacked + i)) return false;
        if (c.events.length !== c.lastEventId - c.firstUnacked + 1) return false;
        if ((q.state() === 'polling') !== (c.handle !== null)) return false;
        if (q.state() === 'polling' && c.events.length > 0) return false;
        const out = q.take();
        if (tried !== null && !out.some((e) => e.type === 'rejected')) ack = tried;
        for (const e of out) {
          if (e.type !== 'deliver' || !e.events || e.events.length === 0) continue;
          // A delivery is everything after the client's acknowledgement, up to the newest event, without gaps.
          if (!e.events.every((ev, i) => ev.id === ack + 1 + i)) return false;
          if (e.events.at(-1)!.id !== c.lastEventId) return false;
        }
      }
      return true;
    }),
    { numRuns: 300 },
  );
  t.pass();
});

// A WebSocket on the queue (ATTACH / ACK / DETACH): the streaming state.

test('ATTACH pushes the backlog after its lastEventId, then each accepted batch at once; nothing twice', (t) => {
  const q = start();
  q.enqueue('a', 'b', 'c');
  q.send({ type: 'ATTACH', handle: 's1', lastEventId: 0 });
  t.is(q.state(), 'streaming');
  t.deepEqual(q.take(), [{ type: 'deliver', queueId: 'q1', handle: 's1', events: [{ type: 'b', id: 1 }, { type: 'c', id: 2 }] }]);
  t.is(q.ctx().firstUnacked, 1, 'the ATTACH acknowledged event 0');
  q.enqueue('d');
  t.deepEqual(q.take(), [{ type: 'deliver', queueId: 'q1', handle: 's1', events: [{ type: 'd', id: 3 }] }]);
  t.deepEqual(q.ctx().events.map((e) => e.id), [1, 2, 3], 'pushed events stay until acknowledged');
});

test('ACK prunes like a POLL’s last_event_id; a bad one is rejected to the socket', (t) => {
  const q = start();
  q.send({ type: 'ATTACH', handle: 's1', lastEventId: -1 });
  q.enqueue('a', 'b', 'c');
  q.take();
  q.clock.t += 10;
  q.send({ type: 'ACK', handle: 's1', lastEventId: 1 });
  t.deepEqual(q.ctx().events.map((e) => e.id), [2]);
  t.is(q.ctx().lastActivity, T0 + 10);
  q.send({ type: 'ACK', handle: 's1', lastEventId: 9 });
  t.deepEqual(q.take(), [{ type: 'rejected', queueId: 'q1', handle: 's1', msg: 'Event 9 was not in this queue' }]);
  t.is(q.state(), 'streaming');
});

test('a streaming queue is never idle and gets no heartbeat events; after DETACH it idles from the close', (t) => {
  const q = start();
  q.send({ type: 'ATTACH', handle: 's1', lastEventId: -1 });
  q.clock.t += 5 * IDLE_TIMEOUT_MS;
  t.false(q.queue.sweepDue(q.clock.t));
  q.send({ type: 'SWEEP', now: q.clock.t });
  t.is(q.state(), 'streaming');
  t.deepEqual(q.take(), []);
  q.send({ type: 'DETACH', handle: 's1' });
  t.is(q.state(), 'waiting');
  const closedAt = q.clock.t;
  q.clock.t = closedAt + IDLE_TIMEOUT_MS - 1;
  t.false(q.queue.sweepDue(q.clock.t));
  q.clock.t = closedAt + IDLE_TIMEOUT_MS;
  q.send({ type: 'SWEEP', now: q.clock.t });
  t.is(q.queue.status, 'done');
  t.like(q.take()[0], { type: 'expired', reason: 'idle' });
});

test('a newer ATTACH or a POLL replaces the socket (released); a stale DETACH or ACK is ignored', (t) => {
  const q = start();
  q.send({ type: 'ATTACH', handle: 's1', lastEventId: -1 });
  q.enqueue('a');
  q.take();
  q.send({ type: 'ATTACH', handle: 's2', lastEventId: -1 });
  t.deepEqual(q.take(), [
    { type: 'released', queueId: 'q1', handle: 's1' },
    { type: 'deliver', queueId: 'q1', handle: 's2', events: [{ type: 'a', id: 0 }] },
  ]);
  q.send({ type: 'DETACH', handle: 's1' });
  q.send({ type: 'ACK', handle: 's1', lastEventId: 0 });
  t.is(q.state(), 'streaming');
  t.is(q.ctx().events.length, 1);
  q.poll(1, 0);
  t.deepEqual(q.take(), [{ type: 'released', queueId: 'q1', handle: 's2' }]);
  t.is(q.state(), 'polling', 'the poll is then handled as in waiting: it parks');
  t.is(q.ctx().events.length, 0, 'and its last_event_id pruned');
});

test('ATTACH while a poll is parked answers the poll; a DELETE while streaming expires the queue', (t) => {
  const q = start();
  q.poll(1, -1);
  q.send({ type: 'ATTACH', handle: 's1', lastEventId: -1 });
  t.deepEqual(q.take(), [deliver(1, [])]);
  t.is(q.ctx().handle, null);
  q.send({ type: 'DELETE' });
  t.like(q.take(), [{ type: 'expired', reason: 'deleted' }] as never);
});
