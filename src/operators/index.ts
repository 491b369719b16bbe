// Everything operators see, assembled once per server: the actor directory, metrics, request observation, the traffic
// series, health and the dashboard's live feed.
import type { EventHub } from '../bus/hub.js';
import type { LongPolls } from '../events/long-polls.js';
import type { QueueSockets } from '../events/queue-sockets.js';
import type { QueueRegistry } from '../events/queue-registry.js';
import type { Logger } from '../log.js';
import type { Db } from '../persistence/db.js';
import { ActorDirectory, type ActorSource } from './actor-directory.js';
import { registerActorKinds } from './kinds.js';
import { Health } from './health.js';
import { LiveFeed } from './live-feed.js';
import { ServerMetrics } from './metrics.js';
import { RequestObserver } from './requests.js';
import { Throughput } from './throughput.js';

/** How long transitions are recorded after an inspection request. */
const INSPECTION_LEASE_MS = 5 * 60_000;

export interface OperatorSources {
  db: Db;
  hub: EventHub;
  queues: QueueRegistry;
  longPolls: LongPolls;
  sockets: QueueSockets;
  scheduled: { pending(): Map<number, number> };
}

export class Operators {
  readonly actors: ActorDirectory;
  /** Created before the database so it can observe queries from the first one. */
  readonly metrics = new ServerMetrics();
  readonly throughput = new Throughput();
  readonly requests: RequestObserver;
  readonly feed: LiveFeed;
  private health_: Health | null = null;
  private lease: { unwatch: () => void; timer: NodeJS.Timeout | null } | null = null;
  /** Ends the actor lifecycle log while it runs. */
  private unwatchLifecycle: (() => void) | null = null;

  /** `system` is the actor system whose actors operators see. */
  constructor(private readonly log: Logger, system: ActorSource, opts: { logRequests?: boolean } = {}) {
    this.actors = new ActorDirectory(system);
    registerActorKinds(this.actors);
    this.requests = new RequestObserver(log, this.metrics, this.throughput, opts.logRequests ?? true);
    this.feed = new LiveFeed(this.actors, this.throughput);
  }

  /** Once the server's parts exist. */
  connect(src: OperatorSources): void {
    this.actors.addPlain(src.queues);
    this.metrics.connect({ ...src, actors: this.actors, throughput: this.throughput });
    this.health_ = new Health(src.db, this.actors);
    this.syncLifecycleLog();
  }

  /** Actor lifecycle at debug level, transitions at trace; follows the log level (call again after SIGHUP). */
  syncLifecycleLog(): void {
    const wanted = this.log.isLevelEnabled('debug');
    if (wanted && !this.unwatchLifecycle) {
      this.unwatchLifecycle = this.actors.watch((c) => {
        if (c.type !== 'transition') {
          this.log.debug({ actor: c.id, kind: c.kind, state: c.to, status: c.status }, c.type === 'started' ? 'actor started' : 'actor ended');
        } else if (this.log.isLevelEnabled('trace')) {
          this.log.trace({ actor: c.id, kind: c.kind, from: c.from, to: c.to, event: c.event }, 'actor transition');
        }
      });
    } else if (!wanted && this.unwatchLifecycle) {
      this.endLifecycleLog();
    }
  }

  private endLifecycleLog(): void {
    this.unwatchLifecycle?.();
    this.unwatchLifecycle = null;
  }

  get health(): Health {
    if (!this.health_) throw new Error('operators not connected');
    return this.health_;
  }

  /** An inspection request: transitions are recorded for the next few minutes, so the next look shows them. */
  lookedAt(): void {
    this.lease ??= { unwatch: this.actors.watch(() => undefined), timer: null };
    if (this.lease.timer) clearTimeout(this.lease.timer);
    this.lease.timer = setTimeout(() => this.endLease(), INSPECTION_LEASE_MS);
    this.lease.timer.unref();
  }

  private endLease(): void {
    if (this.lease?.timer) clearTimeout(this.lease.timer);
    this.lease?.unwatch();
    this.lease = null;
  }

  stop(): void {
    this.endLease();
    this.endLifecycleLog();
    this.feed.stop();
    this.metrics.stop();
  }
}
