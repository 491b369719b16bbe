// A thread's event-loop lag, window by window (the load generator's threads; bench/lib/probe.ts). Kept apart from the
// probe so a bench worker thread loads it without the probe's database client.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

/** Timers of monitorEventLoopDelay fire every RESOLUTION_MS: its figures are that plus the lag. */
const RESOLUTION_MS = 10;
/** A timer's delay (ms) as the lag beyond its interval. */
export const lagMs = (ms: number) => +Math.max(0, ms - RESOLUTION_MS).toFixed(1);

/** This thread's event-loop lag (ms beyond the timer), p99 and max, window by window. */
export class LoopLag {
  private readonly h: IntervalHistogram = monitorEventLoopDelay({ resolution: RESOLUTION_MS });

  constructor() {
    this.h.enable();
  }

  /** The lag since the last take (or since made), and a new window from now. */
  take(): { p99: number; max: number } {
    const out = { p99: lagMs(this.h.percentile(99) / 1e6), max: lagMs(this.h.max / 1e6) };
    this.h.reset();
    return out;
  }

  stop(): void {
    this.h.disable();
  }
}
