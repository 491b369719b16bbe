// The server's Prometheus metrics: what is counted on the way (requests, deliveries, expiries, batches, queries)
// and what is read when scraped (actors, queues, parked polls, pool, scheduled messages, memory, event-loop lag).
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { EventHub } from '../events/hub.js';
import type { LongPolls } from '../events/long-polls.js';
import type { QueueRegistry } from '../events/queue-registry.js';
import type { Db, DbObserver } from '../persistence/db.js';
import { isRealmBatchTag } from '../realm/batch.js';
import { SERVICE_VERSION } from '../version.js';
import type { ActorDirectory } from './actor-directory.js';
import { Counter, CounterFunc, Gauge, Histogram, Registry } from './prometheus.js';
import type { Throughput } from './throughput.js';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const QUERY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];


export interface MetricsSources {
  hub: EventHub;
  queues: QueueRegistry;
  longPolls: LongPolls;
  actors: ActorDirectory;
  db: Db;
  scheduled: { pending(): Map<number, number> };
  throughput: Throughput;
}

export class ServerMetrics {
  readonly registry = new Registry();
  private readonly requests: Counter;
  private readonly latency: Histogram;
  private readonly delivered: Counter;
  private readonly expiries: Counter;
  private readonly batchSize: Histogram;
  private readonly batchLatency: Histogram;
  private readonly queryLatency: Histogram;
  private readonly queryErrors: Counter;
  private readonly loopDelay = monitorEventLoopDelay({ resolution: 10 });
  private readonly unsubscribe: (() => void)[] = [];

  constructor() {
    const r = this.registry;
    r.add(new Gauge('palaver_info', 'Build information (always 1).', () => [{ labels: { version: SERVICE_VERSION }, value: 1 }]));
    this.requests = r.add(new Counter('palaver_http_requests_total', 'HTTP requests answered, by route and status.', ['method', 'route', 'status']));
    this.latency = r.add(
      new Histogram('palaver_http_request_duration_seconds', 'Time from request to reply, by route.', LATENCY_BUCKETS, ['method', 'route']),
    );
    this.delivered = r.add(new Counter('palaver_events_delivered_total', 'Events handed to clients in answers to GET /events.'));
    this.expiries = r.add(
      new Counter('palaver_event_queue_expiries_total', 'Event queues that ended, by reason (idle, overflow, deleted, error).', ['reason']),
    );
    this.batchSize = r.add(new Histogram('palaver_realm_write_batch_size', 'Writes per realm-actor transaction (group commit).', BATCH_SIZE_BUCKETS));
    this.batchLatency = r.add(new Histogram('palaver_realm_write_batch_duration_seconds', 'Duration of realm-actor write transactions.', QUERY_BUCKETS));
    this.queryLatency = r.add(new Histogram('palaver_db_query_duration_seconds', 'Duration of database queries that succeeded.', QUERY_BUCKETS));
    this.queryErrors = r.add(new Counter('palaver_db_query_errors_total', 'Database queries that failed.'));
    r.add(new Gauge('process_resident_memory_bytes', 'Resident memory size in bytes.', () => process.memoryUsage.rss()));
    r.add(new Gauge('nodejs_heap_size_total_bytes', 'V8 heap size in bytes.', () => process.memoryUsage().heapTotal));
    r.add(new Gauge('nodejs_heap_size_used_bytes', 'V8 heap in use, in bytes.', () => process.memoryUsage().heapUsed));
    r.add(new Gauge('nodejs_external_memory_bytes', 'Memory of C++ objects bound to JavaScript, in bytes.', () => process.memoryUsage().external));
    r.add(new CounterFunc('process_cpu_seconds_total', 'User and system CPU time, in seconds.', () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1e6;
    }));
    r.add(new Gauge('process_start_time_seconds', 'Start time of the process, in Unix seconds.', () => Math.round(Date.now() / 1000 - process.uptime())));
    // Event-loop delay since the previous scrape.
    const lag = (f: () => number) => () => (this.loopDelay.count ? f() / 1e9 : 0);
    r.add(new Gauge('nodejs_eventloop_lag_mean_seconds', 'Mean event-loop delay since the last scrape.', lag(() => this.loopDelay.mean)));
    r.add(new Gauge('nodejs_eventloop_lag_p50_seconds', 'Median event-loop delay since the last scrape.', lag(() => this.loopDelay.percentile(50))));
    r.add(new Gauge('nodejs_eventloop_lag_p99_seconds', '99th percentile event-loop delay since the last scrape.', lag(() => this.loopDelay.percentile(99))));
    r.add(new Gauge('nodejs_eventloop_lag_max_seconds', 'Longest event-loop delay since the last scrape.', lag(() => this.loopDelay.max)));
    this.loopDelay.enable();
  }

  /** The parts read from the running server; called once it is assembled (the database observer works before). */
  connect(src: MetricsSources): void {
    const r = this.registry;
    r.add(new Gauge('palaver_actors', 'Live actors by kind and state.', () =>
      src.actors.counts().map((c) => ({ labels: { kind: c.kind, state: c.state }, value: c.count })),
    ));
    r.add(new CounterFunc('palaver_events_published_total', 'Events published by realm actors after their writes committed.', () => src.hub.published));
    r.add(new Gauge('palaver_event_queues', 'Live event queues.', () => src.queues.size));
    r.add(new Gauge('palaver_long_polls_parked', 'GET /events requests waiting for an event.', () => src.longPolls.count));
    const pool = () => src.db.$pool;
    r.add(new Gauge('palaver_db_pool_connections', 'Database connections by state (idle, busy).', () => [
      { labels: { state: 'idle' }, value: pool().idleCount },
      { labels: { state: 'busy' }, value: pool().totalCount - pool().idleCount },
    ]));
    r.add(new Gauge('palaver_db_pool_waiting_clients', 'Queries waiting for a free database connection.', () => pool().waitingCount));
    r.add(new Gauge('palaver_db_pool_max_connections', 'Size limit of the database pool.', () => pool().options.max ?? 0));
    r.add(new Gauge('palaver_scheduled_messages_pending', 'Scheduled messages waiting for delivery.', () => src.scheduled.pending().size));
    this.unsubscribe.push(
      src.queues.on('deliver', (e) => {
        this.delivered.inc({}, e.events.length);
        src.throughput.delivered(e.events.length);
      }),
      src.queues.on('expired', (e) => this.expiries.inc({ reason: e.reason })),
      src.hub.subscribe((_realm, events) => src.throughput.published(events.length)),
    );
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.inc({ method, route, status });
    this.latency.observe({ method, route }, seconds);
  }

  /** Hooks for createDatabase. */
  readonly db: DbObserver = {
    query: (seconds) => this.queryLatency.observe({}, seconds),
    queryError: () => this.queryErrors.inc(),
    transaction: (tag, seconds) => {
      if (!isRealmBatchTag(tag)) return;
      this.batchLatency.observe({}, seconds);
      this.batchSize.observe({}, tag.writes);
    },
  };

  async render(): Promise<string> {
    const text = await this.registry.render();
    this.loopDelay.reset();
    return text;
  }

  stop(): void {
    this.loopDelay.disable();
    for (const u of this.unsubscribe.splice(0)) u();
  }
}
