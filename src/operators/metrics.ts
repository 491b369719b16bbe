// The server's Prometheus metrics (prom-client): what is counted on the way (requests, deliveries, expiries, batches,
// queries) and what is read when scraped (actors, queues, parked polls, pool, scheduled messages), plus the
// process's own (memory, CPU, event-loop lag) from prom-client's default metrics.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { EventHub } from '../bus/hub.js';
import type { LongPolls } from '../events/long-polls.js';
import type { QueueSockets } from '../events/queue-sockets.js';
import type { QueueRegistry } from '../events/queue-registry.js';
import type { Db, DbObserver } from '../persistence/db.js';
import { isRealmBatchTag } from '../realm/batch.js';
import type { RealmBatchObserver } from '../realm/commands.js';
import { SERVICE_VERSION } from '../version.js';
import type { ActorDirectory } from './actor-directory.js';
import { FirstSeen } from './first-seen.js';
import { HotCounter, HotHistogram, RequestMetrics, type CounterSeries, type HistogramSeries } from './hot-metrics.js';
import type { Throughput } from './throughput.js';

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];
const QUERY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];
const BATCH_SIZE_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];
/** Publication times kept for palaver_message_delivery_seconds, at least (a message delivered later may not be timed). */
const MESSAGE_TIMES_KEPT = 10_000;

export interface MetricsSources {
  hub: EventHub;
  queues: QueueRegistry;
  longPolls: LongPolls;
  sockets: QueueSockets;
  actors: ActorDirectory;
  db: Db;
  scheduled: { pending(): Map<number, number> };
  throughput: Throughput;
}

export class ServerMetrics {
  /** One registry per server (tests run several servers in one process). */
  readonly registry = new Registry();
  private readonly requests: RequestMetrics;
  private readonly delivered: CounterSeries;
  private readonly expiries: Counter<'reason'>;
  private readonly batchSize: Histogram;
  private readonly batchLatency: Histogram;
  private readonly commandWait: Histogram<'kind'>;
  private readonly batchSettle: Histogram<'kind'>;
  private readonly queryLatency: Histogram;
  private readonly queryErrors: Counter;
  private readonly messageDelivery: HistogramSeries;
  /**
   * Message ID → when its message event was published (ms), the newest MESSAGE_TIMES_KEPT at least: the first time
   * either the hub's listener or a delivery saw it. The router is subscribed before this listener, so parked polls
   * are answered inside the same publishEvents call, before the listener runs: their delivery is the first sight (and
   * takes no time).
   */
  private readonly messagePublishedAt = new FirstSeen<number>(MESSAGE_TIMES_KEPT);
  private readonly unsubscribe: (() => void)[] = [];

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    new Gauge({ name: 'palaver_info', help: 'Build information (always 1).', labelNames: ['version'], registers }).set({ version: SERVICE_VERSION }, 1);
    this.requests = new RequestMetrics(this.registry, LATENCY_BUCKETS);
    this.delivered = new HotCounter(this.registry, 'palaver_events_delivered_total', 'Events handed to clients in answers to GET /events and in event-socket frames.').series({});
    this.expiries = new Counter({
      name: 'palaver_event_queue_expiries_total',
      help: 'Event queues that ended, by reason (idle, overflow, deleted, error).',
      labelNames: ['reason'],
      registers,
    });
    this.batchSize = new Histogram({ name: 'palaver_realm_write_batch_size', help: 'Writes per realm-actor transaction (group commit).', buckets: BATCH_SIZE_BUCKETS, registers });
    this.batchLatency = new Histogram({ name: 'palaver_realm_write_batch_duration_seconds', help: 'Duration of realm-actor write transactions.', buckets: QUERY_BUCKETS, registers });
    this.commandWait = new Histogram({
      name: 'palaver_realm_command_wait_seconds',
      help: "Time a realm command waits in its realm actor's mailbox before its batch starts, by command kind.",
      labelNames: ['kind'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.batchSettle = new Histogram({
      name: 'palaver_realm_batch_seconds',
      help: 'Realm-actor batches from start (checks, write, commit) to callers answered and events published, by command kind (mixed when several).',
      labelNames: ['kind'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.queryLatency = new Histogram({ name: 'palaver_db_query_duration_seconds', help: 'Duration of database queries that succeeded.', buckets: QUERY_BUCKETS, registers });
    this.queryErrors = new Counter({ name: 'palaver_db_query_errors_total', help: 'Database queries that failed.', registers });
    this.messageDelivery = new HotHistogram(
      this.registry,
      'palaver_message_delivery_seconds',
      'Time from a message event being published (after its commit) to a GET /events answer carrying it, per receiving queue.',
      LATENCY_BUCKETS,
    ).series({});
  }

  /** The parts read from the running server; called once it is assembled (the database observer works before). */
  connect(src: MetricsSources): void {
    const registers = [this.registry];
    new Gauge({
      name: 'palaver_actors',
      help: 'Live actors by kind and state.',
      labelNames: ['kind', 'state'],
      registers,
      collect() {
        this.reset();
        for (const c of src.actors.counts()) this.set({ kind: c.kind, state: c.state }, c.count);
      },
    });
    new Counter({
      name: 'palaver_events_published_total',
      help: 'Events published by realm actors after their writes committed.',
      registers,
      collect() {
        // Counted by the hub on the hot path; copied here when scraped.
        this.reset();
        this.inc(src.hub.published);
      },
    });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({ name, help, registers, collect() { this.set(read()); } });
    gauge('palaver_event_queues', 'Live event queues.', () => src.queues.size);
    gauge('palaver_long_polls_parked', 'GET /events requests waiting for an event.', () => src.longPolls.count);
    gauge('palaver_event_sockets_open', 'WebSockets open on event queues (GET /api/v1/events/socket).', () => src.sockets.count);
    // Counted by the sockets on the hot path; copied here when scraped.
    const copied = (name: string, help: string, read: () => number) =>
      new Counter({ name, help, registers, collect() { this.reset(); this.inc(read()); } });
    copied('palaver_event_socket_frames_total', 'Event frames sent on event-queue WebSockets.', () => src.sockets.counters.frames);
    copied('palaver_event_socket_bytes_total', 'Bytes of event frames sent on event-queue WebSockets.', () => src.sockets.counters.bytes);
    new Counter({
      name: 'palaver_event_socket_disconnects_total',
      help: 'Event-queue WebSockets ended, by reason (client, replaced, expired, refused, slow, shutdown, protocol).',
      labelNames: ['reason'],
      registers,
      collect() {
        this.reset();
        for (const [reason, n] of Object.entries(src.sockets.counters.ended)) this.inc({ reason }, n);
      },
    });
    gauge('palaver_scheduled_messages_pending', 'Scheduled messages waiting for delivery.', () => src.scheduled.pending().size);
    const pool = () => src.db.$pool;
    new Gauge({
      name: 'palaver_db_pool_connections',
      help: 'Database connections by state (idle, busy).',
      labelNames: ['state'],
      registers,
      collect() {
        this.set({ state: 'idle' }, pool().idleCount);
        this.set({ state: 'busy' }, pool().totalCount - pool().idleCount);
      },
    });
    gauge('palaver_db_pool_waiting_clients', 'Queries waiting for a free database connection.', () => pool().waitingCount);
    gauge('palaver_db_pool_max_connections', 'Size limit of the database pool.', () => pool().options.max ?? 0);
    this.unsubscribe.push(
      src.queues.on('deliver', (e) => {
        this.delivered.value += e.batch.length;
        src.throughput.delivered(e.batch.length);
        const now = performance.now();
        for (const ev of e.batch.events) {
          const id = ev.type === 'message' ? (ev as { message?: { id?: number } }).message?.id : undefined;
          if (typeof id === 'number') this.messageDelivery.observe((now - this.messagePublishedAt.at(id, now)) / 1000);
        }
      }),
      src.queues.on('expired', (e) => this.expiries.inc({ reason: e.reason })),
      src.hub.subscribe((_realm, events) => {
        src.throughput.published(events.length);
        const now = performance.now();
        for (const re of events) {
          if (re.event.kind === 'message') this.messagePublishedAt.at(re.event.facts.id, now);
        }
      }, 'metrics'),
    );
  }

  observeRequest(method: string, route: string, status: number, seconds: number): void {
    this.requests.observe(method, route, status, seconds);
  }

  /** Hooks for the realm actors. */
  readonly realm: RealmBatchObserver = {
    waited: (kind, seconds) => this.commandWait.observe({ kind }, seconds),
    settled: (kind, seconds) => this.batchSettle.observe({ kind }, seconds),
  };

  /** Hooks for createDatabase. */
  readonly db: DbObserver = {
    query: (seconds) => this.queryLatency.observe(seconds),
    queryError: () => this.queryErrors.inc(),
    transaction: (tag, seconds) => {
      if (!isRealmBatchTag(tag)) return;
      this.batchLatency.observe(seconds);
      this.batchSize.observe(tag.writes);
    },
  };

  get contentType(): string {
    return this.registry.contentType;
  }

  render(): Promise<string> {
    return this.registry.metrics();
  }

  stop(): void {
    for (const u of this.unsubscribe.splice(0)) u();
    this.registry.clear();
  }
}
