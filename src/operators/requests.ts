// Per-request bookkeeping: a request id, one structured log line (id, user, realm, route, status, duration),
// the HTTP metrics and the dashboard's traffic series. Unexpected errors are logged here with their stack.
import { randomBytes } from 'node:crypto';
import type { Logger } from '../log.js';
import type { ServerMetrics } from './metrics.js';
import type { Throughput } from './throughput.js';

/** What the pipeline fills in as it learns it; `route` is the endpoint's declared path. */
export interface ObservedRequest {
  readonly id: string;
  route: string;
  /** The path as logged (never the query string): the route instead where the path holds a secret. */
  path: string;
  realmId: number | null;
  userId: number | null;
  /** Records the answer; `err` is an unexpected error, logged with its stack. */
  finish(status: number, err?: unknown): void;
}

/** A request id a client or proxy sent us is kept when it looks like one. */
const INCOMING_ID = /^[\w.:-]{1,64}$/;

/** One request's bookkeeping (a class rather than a closure: a parked poll holds one of these a long while). */
class Observed implements ObservedRequest {
  route = 'unmatched';
  realmId: number | null = null;
  userId: number | null = null;
  private readonly started = performance.now();
  constructor(
    private readonly observer: RequestObserver,
    readonly id: string,
    private readonly method: string,
    public path: string,
    private readonly remoteAddress: string,
  ) {}

  finish(status: number, err?: unknown): void {
    const ms = performance.now() - this.started;
    const { log, metrics, throughput, logEach } = this.observer;
    metrics.observeRequest(this.method, this.route, status, ms / 1000);
    throughput.request(ms, status);
    const unexpected = err !== undefined;
    if (!unexpected && (!logEach || !log.isLevelEnabled('info'))) return;
    const fields = {
      reqId: this.id,
      method: this.method,
      path: this.path,
      route: this.route,
      status,
      ms: Math.round(ms * 1000) / 1000,
      userId: this.userId,
      realmId: this.realmId,
      ip: this.remoteAddress,
    };
    if (unexpected) log.error({ ...fields, err }, 'request failed');
    else log.info(fields, 'request');
  }
}

export class RequestObserver {
  private readonly prefix = randomBytes(3).toString('hex');
  private counter = 0;

  constructor(
    readonly log: Logger,
    readonly metrics: ServerMetrics,
    readonly throughput: Throughput,
    /** false: only unexpected failures are logged (LOG_REQUESTS=0). */
    readonly logEach = true,
  ) {}

  begin(method: string, path: string, headers: Record<string, string>, remoteAddress: string): ObservedRequest {
    const incoming = headers['x-request-id'];
    const id = incoming !== undefined && INCOMING_ID.test(incoming) ? incoming : `${this.prefix}-${(++this.counter).toString(36)}`;
    return new Observed(this, id, method, path, remoteAddress);
  }
}
