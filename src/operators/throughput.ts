// The last minutes of traffic, one bucket per second, for the dashboard's charts: requests, errors, latency,
// events published and delivered. Recording is a few additions into the current bucket.

export interface SecondSample {
  /** Unix time of the second, in seconds. */
  t: number;
  requests: number;
  errors: number;
  /** Mean and slowest request latency in that second, in milliseconds (0 without requests). */
  mean_ms: number;
  max_ms: number;
  published: number;
  delivered: number;
}

interface Bucket {
  t: number;
  requests: number;
  errors: number;
  sumMs: number;
  maxMs: number;
  published: number;
  delivered: number;
}

export class Throughput {
  private readonly buckets: Bucket[];

  constructor(readonly seconds = 600, private readonly now: () => number = Date.now) {
    this.buckets = Array.from({ length: seconds }, () => ({ t: -1, requests: 0, errors: 0, sumMs: 0, maxMs: 0, published: 0, delivered: 0 }));
  }

  request(ms: number, status: number): void {
    const b = this.current();
    b.requests++;
    if (status >= 500) b.errors++;
    b.sumMs += ms;
    if (ms > b.maxMs) b.maxMs = ms;
  }

  published(n: number): void {
    this.current().published += n;
  }

  delivered(n: number): void {
    this.current().delivered += n;
  }

  /** The last `seconds` seconds up to and including the current one, oldest first; quiet seconds are zeros. */
  series(seconds = this.seconds): SecondSample[] {
    const nowSec = Math.floor(this.now() / 1000);
    const out: SecondSample[] = [];
    for (let t = nowSec - Math.min(seconds, this.seconds) + 1; t <= nowSec; t++) {
      const b = this.buckets[t % this.seconds]!;
      const live = b.t === t;
      out.push({
        t,
        requests: live ? b.requests : 0,
        errors: live ? b.errors : 0,
        mean_ms: live && b.requests ? round(b.sumMs / b.requests) : 0,
        max_ms: live ? round(b.maxMs) : 0,
        published: live ? b.published : 0,
        delivered: live ? b.delivered : 0,
      });
    }
    return out;
  }

  private current(): Bucket {
    const t = Math.floor(this.now() / 1000);
    const b = this.buckets[t % this.seconds]!;
    if (b.t !== t) {
      b.t = t;
      b.requests = b.errors = b.sumMs = b.maxMs = b.published = b.delivered = 0;
    }
    return b;
  }
}

function round(ms: number): number {
  return Math.round(ms * 100) / 100;
}
