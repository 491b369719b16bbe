// The server's side of a measurement, from its Prometheus /metrics: a histogram read before and after a run,
// and percentiles of the difference (each given as the upper bound of its bucket, so they are "at most").
import http from 'node:http';
import type { Target } from './server.js';

export type Buckets = Map<number, number>;

/** The text of an operator route of the server (Bearer operator token), or null when it has none or fails. */
export function operatorGet(target: Target, path: string): Promise<string | null> {
  if (!target.operatorToken) return Promise.resolve(null);
  return new Promise((resolve) => {
    const req = http.get(new URL(path, target.url), { headers: { authorization: `Bearer ${target.operatorToken}` } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve(res.statusCode === 200 ? text : null));
    });
    req.on('error', () => resolve(null));
  });
}

export function scrape(target: Target): Promise<string | null> {
  return operatorGet(target, '/metrics');
}

/** Cumulative bucket counts of a histogram without labels: upper bound (s) → count. */
export function histogram(text: string | null, name: string): Buckets | null {
  if (!text) return null;
  const out: Buckets = new Map();
  const re = new RegExp(`^${name}_bucket\\{le="([^"]+)"\\} (\\d+)`, 'gm');
  for (const m of text.matchAll(re)) out.set(m[1] === '+Inf' ? Infinity : Number(m[1]), Number(m[2]));
  return out.size ? out : null;
}

/**
 * A histogram's `_sum` and `_count`, summed over its series (a cluster's processes label theirs with their node), or
 * only over those whose labels (`{…}` as written) match `labels`; null when the text has none. With several processes
 * behind a balancer, the text is the one process's that answered.
 */
export function sumCount(text: string | null, name: string, labels?: RegExp): { sum: number; count: number } | null {
  if (!text) return null;
  let sum = 0;
  let count = 0;
  let seen = false;
  for (const m of text.matchAll(new RegExp(`^${name}_(sum|count)(\\{[^}]*\\})? (\\S+)`, 'gm'))) {
    if (labels && !labels.test(m[2] ?? '')) continue;
    seen = true;
    if (m[1] === 'sum') sum += Number(m[3]);
    else count += Number(m[3]);
  }
  return seen ? { sum, count } : null;
}

export interface BucketSummary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
}

/** Percentiles (ms, bucket upper bounds) of the observations between two reads of the same histogram. */
export function bucketPercentiles(before: Buckets | null, after: Buckets | null): BucketSummary | null {
  if (!after) return null;
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const cumulative = bounds.map((b) => after.get(b)! - (before?.get(b) ?? 0));
  const count = cumulative[cumulative.length - 1] ?? 0;
  if (count === 0) return { count: 0, p50: NaN, p95: NaN, p99: NaN };
  const at = (q: number) => {
    const i = cumulative.findIndex((c) => c >= q * count);
    return bounds[i]! * 1000;
  };
  return { count, p50: at(0.5), p95: at(0.95), p99: at(0.99) };
}

/** A counter's increase between two reads (no labels), or null when either read lacks it. */
export function counterDelta(before: string | null, after: string | null, name: string): number | null {
  const read = (text: string | null) => {
    const m = text && new RegExp(`^${name} (\\S+)`, 'm').exec(text);
    return m ? Number(m[1]) : null;
  };
  const a = read(before);
  const b = read(after);
  return a === null || b === null ? null : b - a;
}

