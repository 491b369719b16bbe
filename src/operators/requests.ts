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

export class RequestObserver {
  private readonly prefix = randomBytes(3).toString('hex');
  private counter = 0;

  constructor(
    private readonly log: Logger,
    private readonly metrics: ServerMetrics,
    private readonly throughput: Throughput,
    /** false: only unexpected failures are logged (LOG_REQUESTS=0). */
    private readonly logEach = true,
  ) {}

  begin(method: string, path: string, headers: Record<string, string>, remoteAddress: string): ObservedRequest {
    const incoming = headers['x-request-id'];
    const id = incoming !== undefined && INCOMING_ID.test(incoming) ? incoming : `${this.prefix}-${(++this.counter).toString(36)}`;
    const started = performance.now();
    const { log, metrics, throughput, logEach } = this;
    return {
      id,
      route: 'unmatched',
      path,
      realmId: null,
      userId: null,
      finish(status, err) {
        const ms = performance.now() - started;
        metrics.observeRequest(method, this.route, status, ms / 1000);
        throughput.request(ms, status);
        const unexpected = err !== undefined;
        if (!unexpected && (!logEach || !log.isLevelEnabled('info'))) return;
        const fields = {
          reqId: id,
          method,
          path: this.path,
          route: this.route,
          status,
          ms: Math.round(ms * 1000) / 1000,
          userId: this.userId,
          realmId: this.realmId,
          ip: remoteAddress,
        };
        if (unexpected) log.error({ ...fields, err }, 'request failed');
        else log.info(fields, 'request');
      },
    };
  }
}
