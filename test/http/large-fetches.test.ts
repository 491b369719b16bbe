// Large-fetch slots: a few held at once, a bounded queue served in order, a per-user cap, shed requests get a 503
// with Retry-After, and a client that goes away while waiting leaves the queue.
import test from 'ava';
import { ApiError } from '../../src/errors.js';
import { Slots } from '../../src/http/large-fetches.js';
import type { Connection } from '../../src/http/respond.js';

class FakeConnection implements Connection {
  aborted = false;
  private listeners: (() => void)[] = [];
  onAbort(cb: () => void): void {
    this.listeners.push(cb);
  }
  abort(): void {
    this.aborted = true;
    for (const l of this.listeners.splice(0)) l();
  }
}

const tick = () => new Promise((r) => setImmediate(r));

test('slots are held up to the limit, then requests wait in order and get a slot as one is released', async (t) => {
  const slots = new Slots({ slots: 2, queue: 2, perUser: 10 });
  const a = await slots.acquire('a', new FakeConnection());
  const b = await slots.acquire('b', new FakeConnection());
  const granted: string[] = [];
  const c = slots.acquire('c', new FakeConnection()).then((r) => (granted.push('c'), r));
  const d = slots.acquire('d', new FakeConnection()).then((r) => (granted.push('d'), r));
  await tick();
  t.deepEqual(granted, []);
  t.is(slots.queued, 2);
  a();
  a(); // a second release of the same slot changes nothing
  await tick();
  t.deepEqual(granted, ['c']);
  b();
  await tick();
  t.deepEqual(granted, ['c', 'd']);
  t.is(slots.held, 2);
  (await c)();
  (await d)();
  t.is(slots.held, 0);
  t.is(slots.queued, 0);
});

test('beyond the queue a request is shed with 503 SERVICE_UNAVAILABLE and Retry-After', async (t) => {
  const slots = new Slots({ slots: 1, queue: 1, perUser: 10 });
  const held = await slots.acquire('a', new FakeConnection());
  const waiting = slots.acquire('b', new FakeConnection());
  const err = await t.throwsAsync(slots.acquire('c', new FakeConnection()), { instanceOf: ApiError });
  t.is(err!.status, 503);
  t.is(err!.code, 'SERVICE_UNAVAILABLE');
  t.is(err!.headers['Retry-After'], '2');
  held();
  (await waiting)();
  t.is(slots.held, 0);
});

test('one user cannot hold or wait for more than their share; others still get slots', async (t) => {
  const slots = new Slots({ slots: 2, queue: 10, perUser: 2 });
  const first = await slots.acquire('greedy', new FakeConnection());
  const second = await slots.acquire('greedy', new FakeConnection());
  const err = await t.throwsAsync(slots.acquire('greedy', new FakeConnection()), { instanceOf: ApiError });
  t.is(err!.status, 503);
  t.regex(err!.message, /of yours/);
  const other = slots.acquire('other', new FakeConnection());
  first();
  (await other)();
  // Released slots count again for their user.
  const again = await slots.acquire('greedy', new FakeConnection());
  again();
  second();
  t.is(slots.held, 0);
});

test('a client that goes away while waiting leaves the queue and its share', async (t) => {
  const slots = new Slots({ slots: 1, queue: 1, perUser: 1 });
  const held = await slots.acquire('a', new FakeConnection());
  const conn = new FakeConnection();
  const waiting = slots.acquire('b', conn);
  conn.abort();
  const err = await t.throwsAsync(waiting, { instanceOf: ApiError });
  t.is(err!.code, 'CLIENT_CLOSED_REQUEST');
  t.is(slots.queued, 0);
  // Its place in the queue and its per-user share are free again.
  const next = slots.acquire('b', new FakeConnection());
  held();
  (await next)();
  t.is(slots.held, 0);
});

test('a slot handed to a client that went away meanwhile is passed on', async (t) => {
  const slots = new Slots({ slots: 1, queue: 2, perUser: 5 });
  const held = await slots.acquire('a', new FakeConnection());
  const gone = new FakeConnection();
  const waiting = slots.acquire('b', gone);
  const after = slots.acquire('c', new FakeConnection());
  held(); // the slot goes to b…
  gone.aborted = true; // …whose client is gone before it runs (no abort callback: it was already granted)
  await t.throwsAsync(waiting, { instanceOf: ApiError });
  (await after)();
  t.is(slots.held, 0);
});
