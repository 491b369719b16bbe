// The scheduled-delivery actor alone, with a simulated clock and a fake delivery: due times, edits,
// cancellations, retries with a cap, reloads from the store.
import test from 'ava';
import { createActor, SimulatedClock, waitFor } from 'xstate';
import {
  scheduledDeliveryMachine,
  type DeliveryOutcome,
  type DueMessage,
  type PendingEntry,
  type ScheduledDeliveryInput,
} from '../../src/actors/scheduled-delivery.machine.js';

const T0 = 1_700_000_000_000;

function harness(opts: { pending?: PendingEntry[]; outcome?: (m: DueMessage, finalAttempt: boolean) => DeliveryOutcome } & Partial<ScheduledDeliveryInput> = {}) {
  const clock = new SimulatedClock();
  clock.set(T0);
  const calls: { id: number; at: number; finalAttempt: boolean }[] = [];
  let store = opts.pending ?? [];
  const actor = createActor(scheduledDeliveryMachine, {
    clock,
    input: {
      now: () => clock.now(),
      loadPending: async () => store,
      deliver: async (m, { finalAttempt }) => {
        calls.push({ id: m.id, at: clock.now(), finalAttempt });
        return opts.outcome ? opts.outcome(m, finalAttempt) : 'done';
      },
      resyncMs: opts.resyncMs ?? 60_000,
      retryMs: opts.retryMs ?? 1_000,
      maxAttempts: opts.maxAttempts ?? 3,
    },
  });
  actor.start();
  const settled = () =>
    waitFor(actor, (s) => s.matches('waiting') && ![...s.context.due.values()].some((m) => m.at <= clock.now()), { timeout: 5_000 });
  return {
    clock,
    actor,
    calls,
    settled,
    setStore: (entries: PendingEntry[]) => void (store = entries),
    async advance(ms: number) {
      clock.increment(ms);
      await settled();
    },
  };
}

test('a message is delivered when its time comes, not before', async (t) => {
  const h = harness();
  await h.settled();
  h.actor.send({ type: 'SCHEDULE', id: 1, realmId: 1, at: T0 + 10_000 });
  await h.advance(9_999);
  t.deepEqual(h.calls, []);
  await h.advance(1);
  t.deepEqual(h.calls, [{ id: 1, at: T0 + 10_000, finalAttempt: false }]);
  t.is(h.actor.getSnapshot().context.due.size, 0);
});

test('pending messages load at start; those already due are delivered at once, in due order', async (t) => {
  const h = harness({
    pending: [
      { id: 7, realmId: 1, at: T0 - 5_000 },
      { id: 5, realmId: 1, at: T0 - 60_000 },
      { id: 9, realmId: 1, at: T0 + 30_000 },
    ],
    // One at a time, so the order shows.
    concurrency: 1,
  });
  await h.settled();
  t.deepEqual(h.calls.map((c) => c.id), [5, 7]);
  await h.advance(30_000);
  t.deepEqual(h.calls.map((c) => c.id), [5, 7, 9]);
});

test('rescheduling moves the due time; unscheduling cancels', async (t) => {
  const h = harness();
  await h.settled();
  h.actor.send({ type: 'SCHEDULE', id: 1, realmId: 1, at: T0 + 10_000 });
  h.actor.send({ type: 'SCHEDULE', id: 2, realmId: 1, at: T0 + 10_000 });
  h.actor.send({ type: 'SCHEDULE', id: 1, realmId: 1, at: T0 + 20_000 });
  h.actor.send({ type: 'UNSCHEDULE', id: 2 });
  await h.advance(15_000);
  t.deepEqual(h.calls, []);
  await h.advance(5_000);
  t.deepEqual(h.calls.map((c) => c.id), [1]);
  // A sooner due time than the running timer restarts it.
  h.actor.send({ type: 'SCHEDULE', id: 3, realmId: 1, at: T0 + 80_000 });
  h.actor.send({ type: 'SCHEDULE', id: 4, realmId: 1, at: T0 + 21_000 });
  await h.advance(1_000);
  t.deepEqual(h.calls.map((c) => c.id), [1, 4]);
});

test('transient failures are retried with growing waits, and the last attempt is marked final', async (t) => {
  const h = harness({ outcome: () => 'retry', maxAttempts: 3, retryMs: 1_000 });
  await h.settled();
  h.actor.send({ type: 'SCHEDULE', id: 1, realmId: 1, at: T0 + 1_000 });
  await h.advance(1_000);
  await h.advance(1_000); // first retry after 1 s
  await h.advance(1_999);
  t.is(h.calls.length, 2);
  await h.advance(1); // second retry after 2 s
  t.deepEqual(h.calls.map((c) => [c.at - T0, c.finalAttempt]), [
    [1_000, false],
    [2_000, false],
    [4_000, true],
  ]);
});

test('the store is read again every resync interval: messages another process scheduled are picked up', async (t) => {
  const h = harness({ resyncMs: 10_000 });
  await h.settled();
  h.setStore([{ id: 42, realmId: 1, at: T0 + 5_000 }]);
  await h.advance(5_000);
  t.deepEqual(h.calls, [], 'not known yet');
  await h.advance(5_000);
  t.deepEqual(h.calls.map((c) => c.id), [42], 'found at the resync and delivered, being overdue');
});

test('a delivery result for a message rescheduled meanwhile leaves the new schedule in place', async (t) => {
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  const clock = new SimulatedClock();
  clock.set(T0);
  const actor = createActor(scheduledDeliveryMachine, {
    clock,
    input: {
      now: () => clock.now(),
      loadPending: async () => [],
      deliver: async () => {
        await gate;
        return 'done';
      },
    },
  }).start();
  await waitFor(actor, (s) => s.matches('waiting'));
  actor.send({ type: 'SCHEDULE', id: 1, realmId: 1, at: T0 + 1_000 });
  clock.increment(1_000);
  t.true(actor.getSnapshot().matches('delivering'));
  actor.send({ type: 'SCHEDULE', id: 1, realmId: 1, at: T0 + 60_000 });
  release();
  await waitFor(actor, (s) => s.matches('waiting'));
  t.is(actor.getSnapshot().context.due.get(1)?.at, T0 + 60_000);
});

test('STOP ends the actor', async (t) => {
  const h = harness();
  await h.settled();
  h.actor.send({ type: 'STOP' });
  t.is(h.actor.getSnapshot().status, 'done');
});
