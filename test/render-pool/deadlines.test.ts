// The render pool's time limits: a job is stopped once it has run past its limit on the shared clock, never while
// it waits for a worker; slots bound the jobs in flight and come back when they settle.
import test from 'ava';
import { Deadlines, stampDone, stampStart, sweepPeriodMs } from '../../src/render-pool/deadlines.js';

const MS = 1_000_000n;

test('a started job is aborted once past its limit, not before; a waiting one never', (t) => {
  const d = new Deadlines(4, 100);
  t.teardown(() => d.close());
  const waiting = d.take()!;
  const running = d.take()!;
  let aborted = 0;
  running.addEventListener('abort', () => aborted++);
  const start = 1_000n * MS;
  Atomics.store(d.starts, running.slot, start); // what stampStart writes, at a chosen time
  d.sweep(start + 100n * MS);
  t.false(running.aborted);
  d.sweep(start + 101n * MS);
  t.true(running.aborted);
  t.is(aborted, 1);
  d.sweep(start + 200n * MS);
  t.is(aborted, 1, 'aborted once');
  t.false(waiting.aborted);
});

test('slots bound the jobs in flight and are reused once released; a reused slot starts unstarted', (t) => {
  const d = new Deadlines(2, 100);
  t.teardown(() => d.close());
  const a = d.take()!;
  const b = d.take()!;
  t.is(d.take(), undefined);
  stampStart(d.starts, a.slot);
  d.release(a);
  const c = d.take()!;
  t.is(c.slot, a.slot);
  t.is(Atomics.load(d.starts, c.slot), 0n);
  d.sweep(process.hrtime.bigint() + 10_000n * MS);
  t.false(c.aborted);
  t.false(b.aborted);
});

test('the sweep period is a tenth of the limit, between 1 and 100 ms', (t) => {
  t.is(sweepPeriodMs(1), 1);
  t.is(sweepPeriodMs(200), 20);
  t.is(sweepPeriodMs(5_000), 100);
});

test('a job its worker has finished is not aborted, whenever its reply is handled', (t) => {
  const d = new Deadlines(1, 100);
  t.teardown(() => d.close());
  const job = d.take()!;
  stampStart(d.starts, job.slot);
  stampDone(d.starts, job.slot);
  d.sweep(process.hrtime.bigint() + 10_000n * MS);
  t.false(job.aborted);
});
