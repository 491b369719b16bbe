// Latency statistics: percentiles over recorded samples.
export interface Summary {
  count: number;
  p50: number;
  p90: number;
  p95: number;
  p99: number;
  p999: number;
  max: number;
  mean: number;
}

/** The percentiles a latency-by-percentile chart draws (p100 is the maximum). */
export const CHART_PERCENTILES = [0, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 92.5, 95, 97, 98, 99, 99.5, 99.7, 99.9, 99.95, 99.99, 100];

const at = (sorted: number[], q: number) => sorted[Math.max(0, Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1))]!;

export function summarize(samples: number[]): Summary {
  if (samples.length === 0) return { count: 0, p50: NaN, p90: NaN, p95: NaN, p99: NaN, p999: NaN, max: NaN, mean: NaN };
  const sorted = [...samples].sort((a, b) => a - b);
  return {
    count: sorted.length,
    p50: at(sorted, 0.5),
    p90: at(sorted, 0.9),
    p95: at(sorted, 0.95),
    p99: at(sorted, 0.99),
    p999: at(sorted, 0.999),
    max: sorted[sorted.length - 1]!,
    mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
  };
}

/** Latency (ms) at each of CHART_PERCENTILES, as [percentile, ms] pairs: what the result file keeps for the chart. */
export function percentiles(samples: number[]): [number, number][] {
  if (samples.length === 0) return [];
  const sorted = [...samples].sort((a, b) => a - b);
  return CHART_PERCENTILES.map((p) => [p, +at(sorted, p / 100).toFixed(3)]);
}

/** Latencies by the second (since `start`) they finished in: operations per second and their p99, second by second. */
export class PerSecond {
  private readonly bySecond = new Map<number, number[]>();

  constructor(public start = performance.now()) {}

  /** Counts a latency in the second it finished in (now, unless given). */
  add(ms: number, second = Math.floor((performance.now() - this.start) / 1000)): void {
    const xs = this.bySecond.get(second);
    if (xs) xs.push(ms);
    else this.bySecond.set(second, [ms]);
  }

  result(): { counts: number[]; p99: (number | null)[] } {
    const last = Math.max(-1, ...this.bySecond.keys());
    const counts: number[] = [];
    const p99: (number | null)[] = [];
    for (let s = 0; s <= last; s++) {
      const xs = this.bySecond.get(s) ?? [];
      counts.push(xs.length);
      p99.push(xs.length ? +summarize(xs).p99.toFixed(3) : null);
    }
    return { counts, p99 };
  }
}
