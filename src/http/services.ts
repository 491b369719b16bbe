// What request handlers may use: configuration, database, realms, the event hub and the log.
import type { Realms } from '../actors/realms.js';
import type { Config } from '../config.js';
import type { EventHub } from '../events/hub.js';
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
import type { PresenceSessions } from '../realm/people/presence-sessions.js';
import type { ScheduledDelivery } from '../realm/scheduled/delivery.js';

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
  /** Metrics, actor inspection, health, request observation and the dashboard's live feed. */
  operators: Operators;
}
