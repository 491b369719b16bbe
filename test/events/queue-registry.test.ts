// The queue registry: creating, finding and routing to queues, the sweep, forgetting expired queues, dump and restore.
import test from 'ava';
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueuedEvent } from '../../src/events/event-queue.js';
import { QueueRegistry, type RegistryExpired } from '../../src/events/queue-registry.js';

const T0 = 1_700_000_000_000;
const MIN = 60_000;

function registry(extra: ConstructorParameters<typeof QueueRegistry>[0] = {}) {
  const clock = { t: T0 };
  const reg = new QueueRegistry({ now: () => clock.t, processTag: 'p7', ...extra });
  const delivered: { type: 'deliver'; queueId: string; handle: unknown; events: QueuedEvent[] }[] = [];
  const expired: RegistryExpired[] = [];
  reg.on('deliver', (e) => delivered.push({ type: e.type, queueId: e.queueId, handle: e.handle, events: e.batch.toJSON() }));
  reg.on('expired', (e) => expired.push(e));
  return { reg, clock, delivered, expired };
}

test('create names the queue after the process; operators see it as queue:<id>', (t) => {
  const { reg } = registry();
  const id = reg.create(7, 2);
  t.regex(id, /^p7:[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
  const queue = reg.get(id)!;
  t.is(queue.id, `queue:${id}`);
  t.is(queue.state, 'waiting');
  t.like(queue, { userId: 7, realmId: 2, lastActivity: T0 });
  t.not(reg.create(7, 2), id);
  t.is(reg.size, 2);
});

test("a queue is found for its owner and for nobody else", (t) => {
  const { reg } = registry();
  const id = reg.create(7, 2);
  t.truthy(reg.get(id, 7));
  t.is(reg.get(id, 8), undefined);
  t.is(reg.get('p7:nope'), undefined);
  t.false(reg.poll(id, 8, { handle: 1, lastEventId: -1, dontBlock: true }));
  t.true(reg.poll(id, 7, { handle: 1, lastEventId: -1, dontBlock: true }));
});

test('registry defaults and per-queue options reach the queue', (t) => {
  const { reg } = registry({ defaults: { heartbeatMs: 1000, maxEvents: 5 } });
  const a = reg.get(reg.create(1, 1))!;
  t.like(a, { heartbeatMs: 1000, maxEvents: 5 });
  const b = reg.get(reg.create(1, 1, { maxEvents: 9, lastEventId: 3 }))!;
  t.like(b, { heartbeatMs: 1000, maxEvents: 9, lastEventId: 3 });
});

test('enqueue hands events to every queue of the given users and to no one else', (t) => {
  const { reg, delivered } = registry();
  const a1 = reg.create(1, 1);
  const a2 = reg.create(1, 1);
  const b = reg.create(2, 1);
  const c = reg.create(3, 1);
  t.deepEqual(reg.byUser(1).map((q) => q.queueId).sort(), [a1, a2].sort());
  for (const id of [a1, a2, b, c]) reg.poll(id, reg.get(id)!.userId, { handle: id, lastEventId: -1, dontBlock: false });

  const sent = reg.enqueue([1, 2, 2, 99], [{ type: 'message', content: 'hi' }, { type: 'typing' }]);
  t.is(sent, 3);
  t.deepEqual(delivered.map((d) => d.handle).sort(), [a1, a2, b].sort());
  for (const d of delivered) {
    t.deepEqual(d.events, [{ type: 'message', content: 'hi', id: 0 }, { type: 'typing', id: 1 }]);
  }
  t.is(reg.get(c)!.state, 'polling');
});

test('enqueue takes a single event too', (t) => {
  const { reg } = registry();
  const id = reg.create(1, 1);
  reg.enqueue([1], { type: 'presence' });
  t.deepEqual(reg.get(id)!.queued(), [{ type: 'presence', id: 0 }]);
});

test('the sweep expires idle queues and forgets them; queues with a parked poll get heartbeats instead', (t) => {
  const { reg, clock, delivered, expired } = registry();
  const idle = reg.create(1, 1);
  const parked = reg.create(1, 1);
  const other = reg.create(2, 1);
  reg.poll(parked, 1, { handle: 'h', lastEventId: -1, dontBlock: false });
  clock.t = T0 + 5 * MIN;
  reg.poll(other, 2, { handle: 'o', lastEventId: -1, dontBlock: true });
  delivered.length = 0;

  t.is(reg.sweep(T0 + 10 * MIN - 1), 1, 'only the heartbeat is due');
  t.deepEqual(delivered, [{ type: 'deliver', queueId: parked, handle: 'h', events: [{ type: 'heartbeat', id: 0 }] }]);
  t.is(reg.size, 3);

  clock.t = T0 + 10 * MIN - 1;
  reg.poll(parked, 1, { handle: 'h2', lastEventId: 0, dontBlock: false });
  t.is(reg.sweep(T0 + 10 * MIN), 1, 'only the idle queue is due');
  t.deepEqual(expired, [{ type: 'expired', queueId: idle, userId: 1, realmId: 1, reason: 'idle' }]);
  t.is(reg.get(idle), undefined);
  t.deepEqual(reg.byUser(1).map((q) => q.queueId), [parked]);
  t.is(reg.size, 2);

  reg.sweep(T0 + 15 * MIN);
  t.is(reg.get(other), undefined);
  t.deepEqual(reg.byUser(2), []);
  t.truthy(reg.get(parked));
});

test('a deleted or overflowing queue leaves the registry', (t) => {
  const { reg, expired } = registry({ defaults: { maxEvents: 2 } });
  const a = reg.create(1, 1);
  const b = reg.create(1, 1);
  t.false(reg.delete(a, 2), 'only by its owner');
  t.true(reg.delete(a, 1));
  reg.enqueue([1], [{ type: 'x' }, { type: 'y' }, { type: 'z' }]);
  t.deepEqual(expired.map((e) => [e.queueId, e.reason]), [[a, 'deleted'], [b, 'overflow']]);
  t.is(reg.size, 0);
  t.deepEqual(reg.byUser(1), []);
  t.false(reg.delete(a));
});

test('a queue whose filter throws is forgotten and announced as expired', (t) => {
  const { reg, expired } = registry();
  const id = reg.create(1, 1, {
    filter: () => {
      throw new Error('bad narrow');
    },
  });
  const ok = reg.create(1, 1);
  reg.enqueue([1], { type: 'message' });
  t.deepEqual(expired, [{ type: 'expired', queueId: id, userId: 1, realmId: 1, reason: 'error' }]);
  t.is(reg.get(id), undefined);
  t.deepEqual(reg.get(ok)!.queued(), [{ type: 'message', id: 0 }]);
});

test('a throwing listener is reported and does not stop the others', (t) => {
  const errors: unknown[] = [];
  const { reg, delivered } = registry({ onListenerError: (e) => errors.push(e) });
  const off = reg.on('deliver', () => {
    throw new Error('socket gone');
  });
  const id = reg.create(1, 1);
  reg.poll(id, 1, { handle: 1, lastEventId: -1, dontBlock: true });
  t.is(errors.length, 1);
  t.is(delivered.length, 1);
  off();
  reg.poll(id, 1, { handle: 2, lastEventId: -1, dontBlock: true });
  t.is(errors.length, 1);
});

test('ABORT through the registry unparks the poll', (t) => {
  const { reg } = registry();
  const id = reg.create(1, 1);
  reg.poll(id, 1, { handle: 5, lastEventId: -1, dontBlock: false });
  reg.abort(id, 5);
  t.is(reg.get(id)!.state, 'waiting');
});

test('rejected polls are relayed', (t) => {
  const { reg } = registry();
  const rejected: unknown[] = [];
  reg.on('rejected', (e) => rejected.push(e));
  const id = reg.create(1, 1);
  reg.poll(id, 1, { handle: 5, lastEventId: 3, dontBlock: false });
  t.deepEqual(rejected, [{ type: 'rejected', queueId: id, handle: 5, msg: 'Event 3 was not in this queue' }]);
});

test('dump and restore carry queues to a new registry under the same ids', (t) => {
  const old = registry();
  const a = old.reg.create(1, 1, { registration: { event_types: ['message'] } });
  const b = old.reg.create(2, 1);
  old.reg.enqueue([1, 2], [{ type: 'message' }, { type: 'typing' }]);
  old.reg.poll(a, 1, { handle: 1, lastEventId: 0, dontBlock: true });
  const dumps = old.reg.dump();
  old.reg.stop();
  t.is(old.expired.length, 0, 'stopping is not expiring');
  t.is(old.reg.size, 0);

  const fresh = registry();
  const seen: unknown[] = [];
  const result = fresh.reg.restore(dumps, (q) => {
    seen.push(q.registration);
    return q.registration ? (e) => e.type === 'message' : undefined;
  });
  t.deepEqual(result, { restored: 2, failed: 0 });
  t.deepEqual(seen.filter(Boolean), [{ event_types: ['message'] }]);
  t.is(fresh.reg.get(a, 1)!.id, `queue:${a}`);
  t.is(fresh.reg.byUser(2).length, 1);

  fresh.reg.poll(a, 1, { handle: 'x', lastEventId: 1, dontBlock: false });
  fresh.reg.enqueue([1], [{ type: 'typing' }, { type: 'message' }]);
  t.deepEqual(fresh.delivered, [{ type: 'deliver', queueId: a, handle: 'x', events: [{ type: 'message', id: 2 }] }]);
  fresh.reg.poll(b, 2, { handle: 'y', lastEventId: -1, dontBlock: false });
  t.deepEqual(fresh.delivered.at(-1)!.events, [{ type: 'message', id: 0 }, { type: 'typing', id: 1 }]);
});

test('restore skips what does not decode and queues already live', (t) => {
  const { reg } = registry();
  const id = reg.create(1, 1);
  const dumps = reg.dump();
  t.deepEqual(reg.restore([...dumps, Buffer.from('junk')]), { restored: 0, failed: 2 });
  t.is(reg.size, 1);
  t.truthy(reg.get(id));
});

test('start sweeps on an interval with the registry clock, and stop ends it', async (t) => {
  const reg = new QueueRegistry({ sweepIntervalMs: 5, defaults: { idleTimeoutMs: 0 } });
  const expired: string[] = [];
  reg.on('expired', (e) => expired.push(e.queueId));
  const id = reg.create(1, 1);
  reg.start();
  for (let i = 0; i < 100 && expired.length === 0; i++) await sleep(5);
  t.deepEqual(expired, [id]);
  reg.stop();
  reg.create(1, 1);
  await sleep(30);
  t.is(expired.length, 1);
});
