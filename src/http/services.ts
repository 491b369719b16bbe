// What request handlers may use: configuration, database, realms, the event hub and the log.
import type { Realms } from '../actors/realms.js';
import type { ActorJobs } from '../actors/system.js';
import type { Config } from '../config.js';
import type { EventHub } from '../bus/hub.js';
import type { LongPolls } from '../events/long-polls.js';
import type { QueueSockets } from '../events/queue-sockets.js';
import type { SocketTickets } from './events-socket-tickets.js';
import type { QueueRegistry } from '../events/queue-registry.js';
import type { EventRouter } from '../events/router.js';
import type { Logger } from '../log.js';
import type { Db } from '../persistence/db.js';
import type { Operators } from '../operators/index.js';
import type { Files } from '../files/service.js';
import type { RateLimiter } from './rate-limit.js';
import type { PresenceSessions } from '../actors/presence-sessions.js';
import type { ScheduledDelivery } from '../actors/scheduled-delivery.js';
import type { Cluster } from '../cluster/index.js';

export interface Services {
  config: Config;
  db: Db;
  realms: Realms;
  hub: EventHub;
  queues: QueueRegistry;
  router: EventRouter;
  longPolls: LongPolls;
  /** Open WebSockets on event queues, and the tickets browsers open them with. */
  sockets: QueueSockets;
  socketTickets: SocketTickets;
  presence: PresenceSessions;
  log: Logger;
  /** File storage, uploads (plain and resumable) and the removal of unclaimed files. */
  files: Files;
  rateLimiter: RateLimiter;
  /** The scheduled-delivery actor; its clock is the server's idea of now for scheduling. */
  scheduled: ScheduledDelivery;
  /** One-off jobs run as actors of the server's actor system (a topic deletion). */
  jobs: ActorJobs;
  /** Metrics, actor inspection, health, request observation and the dashboard's live feed. */
  operators: Operators;
  /** Cluster mode (NATS_URL): realm ownership, queues held by other processes; null for one process. */
  cluster: Cluster | null;
}
