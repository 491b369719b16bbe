// The render pool's time limits: one shared table of start times that workers stamp when they start a job, and one
// sweep timer on the main thread while renders are in flight, instead of a timer, an AbortController and a shared
// buffer per render. A render is stopped within one sweep period after its limit.
/** The least piscina needs of an AbortSignal: `aborted`, `reason` and one 'abort' listener. */
export class Deadline {
  aborted = false;
  reason: unknown = undefined;
  private listener: (() => void) | undefined;

  constructor(readonly slot: number) {}

  addEventListener(_type: 'abort', listener: () => void): void {
    this.listener = listener;
  }

  removeEventListener(): void {
    this.listener = undefined;
  }

  abort(): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = 'past its time limit';
    this.listener?.();
  }
}

/** The sweep period for a limit: a tenth of it, between 1 ms and 100 ms. */
export const sweepPeriodMs = (limitMs: number): number => Math.max(1, Math.min(100, Math.ceil(limitMs / 10)));

/** A slot's value once its job has finished on the worker. */
const DONE = -1n;

/**
 * One slot per render in flight. A slot holds 0 while its job waits, then the worker's `process.hrtime.bigint()` at
 * its start (the monotonic clock every thread of the process shares), then DONE.
 */
export class Deadlines {
  /** Shared with the workers (their workerData); see `stampStart`. */
  readonly starts: BigInt64Array;
  private readonly inFlight = new Set<Deadline>();
  private readonly free: number[];
  private readonly limitNs: bigint;
  private timer: NodeJS.Timeout | undefined;

  constructor(slots: number, private readonly limitMs: number) {
    this.starts = new BigInt64Array(new SharedArrayBuffer(8 * slots));
    this.free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
    this.limitNs = BigInt(Math.round(limitMs * 1e6));
  }

  /** A deadline for a job about to be submitted; undefined when every slot is taken. */
  take(): Deadline | undefined {
    const slot = this.free.pop();
    if (slot === undefined) return undefined;
    Atomics.store(this.starts, slot, 0n);
    const d = new Deadline(slot);
    this.inFlight.add(d);
    this.timer ??= setInterval(() => this.sweep(), sweepPeriodMs(this.limitMs)).unref();
    return d;
  }

  /** The job settled: its slot is free again; the sweep stops when nothing is in flight. */
  release(d: Deadline): void {
    this.inFlight.delete(d);
    this.free.push(d.slot);
    if (this.inFlight.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Aborts every started job past its limit at `now` (the timer's sweep; tests call it with a clock of their own). */
  sweep(now: bigint = process.hrtime.bigint()): void {
    for (const d of this.inFlight) {
      const started = Atomics.load(this.starts, d.slot);
      if (started > 0n && now - started > this.limitNs) d.abort();
    }
  }
}

/** The worker's side: marks the job in `slot` started now. */
export function stampStart(starts: BigInt64Array, slot: number): void {
  Atomics.store(starts, slot, process.hrtime.bigint());
}

/** The worker's side: marks the job in `slot` finished (its reply on its way: no sweep stops it any more). */
export function stampDone(starts: BigInt64Array, slot: number): void {
  Atomics.store(starts, slot, DONE);
}
