// What request handlers may use: configuration, database, realms, the event hub and the log.
import type { Realms } from '../actors/realms.js';
import type { Config } from '../config.js';
import type { EventHub } from '../events/hub.js';
import type { LongPolls } from '../events/long-polls.js';
import type { QueueRegistry } from '../events/queue-registry.js';
import type { EventRouter } from '../events/router.js';
import type { Logger } from '../log.js';
import type { Db } from '../persistence/db.js';

export interface Services {
  config: Config;
  db: Db;
  realms: Realms;
  hub: EventHub;
  queues: QueueRegistry;
  router: EventRouter;
  longPolls: LongPolls;
  log: Logger;
}
