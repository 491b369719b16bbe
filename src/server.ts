// Assembles and starts the server: database, migrations, first-start bootstrap, actors, HTTP; and stops it.
import { createActor } from 'xstate';
import { Realms } from './actors/realms.js';
import { rootMachine } from './actors/root.machine.js';
import type { Config } from './config.js';
import { EventHub } from './events/hub.js';
import { OutgoingWebhooks, type OutgoingWebhookTuning } from './realm/people/outgoing-webhooks.js';
import { createHandler } from './http/app.js';
import type { Endpoint } from './http/endpoint.js';
import { endpoints } from './http/routes/index.js';
import { InFlight, serve } from './http/respond.js';
import type { Services } from './http/services.js';
import { createLogger, type Logger } from './log.js';
import { createDatabase, type Database } from './persistence/db.js';
import { EMBEDDED_MAX_CONNECTIONS, startEmbedded, type EmbeddedDatabase } from './persistence/embedded.js';
import { migrate } from './persistence/migrate.js';
import { bootstrap, type Bootstrapped } from './realm/bootstrap.js';
import { realmCommands } from './realm/registry.js';
import { ROLE } from './realm/types.js';
import { retentionMachine } from './actors/retention.machine.js';
import { PresenceSessions } from './realm/people/presence-sessions.js';
import { ScheduledDelivery, type ScheduledDeliveryOptions } from './realm/scheduled/delivery.js';
import { MailSender } from './mail/sender.js';
import { loadUws } from './uws.js';
import { RateLimiter } from './http/rate-limit.js';
import { Files } from './files/service.js';
import { LongPolls } from './events/long-polls.js';
import { QueueRegistry } from './events/queue-registry.js';
import { EventRouter } from './events/router.js';
import { narrowResolver, restoreQueues, saveQueues } from './events/persistence.js';
import { Operators } from './operators/index.js';
import { registerActorKinds } from './operators/kinds.js';
import { serveLive } from './http/live.js';
import { listenForMetrics } from './http/metrics-listener.js';
import { configureRenderPool } from './render-pool/index.js';

export interface RunningServer {
  port: number;
  services: Services;
  /** Set on the first start of an empty database. */
  bootstrapped: Bootstrapped | null;
  stop(): Promise<void>;
}

export interface StartOptions {
  log?: Logger;
  /** Endpoints served besides the API's own (tests use this to exercise the pipeline). */
  extraEndpoints?: Endpoint[];
  /** The scheduled-delivery actor's clock and timings (tests drive a simulated clock). */
  scheduledDelivery?: Pick<ScheduledDeliveryOptions, 'clock' | 'tuning'>;
  /** Timeouts, retries and concurrency of outgoing-webhook deliveries (tests shorten them). */
  outgoingWebhooks?: Partial<OutgoingWebhookTuning>;
}

/** Migrations may legitimately run longer than the query timeout (indexes on large tables): they get a connection of their own. */
async function migrateWithoutTimeout(config: Config, db: Database['db']): Promise<string[]> {
  // The embedded database has no query timeout.
  if (!config.databaseUrl) return migrate(db);
  const own = createDatabase(config.databaseUrl, { max: 1 });
  try {
    return await migrate(own.db);
  } finally {
    await own.close();
  }
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.logLevel);
  const { uws } = loadUws(config.allowUwsFallback);
  configureRenderPool(config.render);

  const onIdleError = (err: Error) => log.warn({ err: err.message }, 'idle database connection lost');
  // Before the database, so its metrics observe every query.
  const operators = new Operators(log, { logRequests: config.logRequests });
  const observer = operators.metrics.db;
  let embedded: EmbeddedDatabase | null = null;
  let database: Database;
  if (config.databaseUrl) {
    database = createDatabase(config.databaseUrl, { onIdleError, observer, queryTimeoutMs: config.dbQueryTimeoutMs });
  } else {
    embedded = await startEmbedded(config.dataDir);
    // PGlite runs one query at a time; a few connections suffice and leave the rest for the admin CLI.
    // No query timeout: the embedded database cannot be partitioned away, and its one session queues every query.
    database = createDatabase(embedded.connection, { max: Math.min(4, EMBEDDED_MAX_CONNECTIONS), onIdleError, observer });
    log.info({ dataDir: config.dataDir }, 'embedded database started');
  }
  const { db } = database;
  const closeDatabase = async () => {
    await database.close();
    await embedded?.stop();
  };

  let root;
  try {
    const applied = await migrateWithoutTimeout(config, db);
    if (applied.length) log.info({ applied }, 'migrations applied');
    const bootstrapped = await bootstrap(db, config);
    const hub = new EventHub();
    root = createActor(rootMachine, {
      id: 'root',
      input: {
        db,
        hub,
        commands: realmCommands,
        realmObserver: operators.metrics.realm,
        directory: await db.realms.directory(),
        changePollMs: config.changePollMs,
        lastChangeId: await db.changes.latestId(),
      },
    });
    root.start();
    const realms = new Realms(root, config.rootDomain);
    const queues = new QueueRegistry({
      sweepIntervalMs: config.queueSweepMs,
      defaults: { heartbeatMs: config.heartbeatMs, idleTimeoutMs: config.queueIdleTimeoutMs },
      onListenerError: (err) => log.error({ err }, 'event queue listener failed'),
    });
    const router = new EventRouter(hub, queues, narrowResolver(realms), (realmId, userId) => {
      const user = realms.stateIfLoaded(realmId)?.usersById.get(userId);
      return user !== undefined && user.isActive && user.role !== ROLE.GUEST;
    });
    const longPolls = new LongPolls(queues);
    const restored = await restoreQueues(db, queues, router);
    if (restored.restored || restored.failed) log.info(restored, 'event queues restored');
    queues.start();
    const presence = new PresenceSessions(db, { onError: (err) => log.warn({ err }, 'presence flush failed') });
    presence.start();
    const mail = new MailSender(db, config, log);
    mail.start();
    const rateLimiter = new RateLimiter(config.rateLimits);
    const scheduled = new ScheduledDelivery({ db, realms, hub, config, log, ...opts.scheduledDelivery });
    const files = new Files(config, db, realms, log);
    const outgoingWebhooks = new OutgoingWebhooks({ hub, realms, config, log }, opts.outgoingWebhooks);
    await files.start();
    operators.connect({ db, hub, queues, longPolls, scheduled });
    const services: Services = { config, db, realms, hub, queues, router, longPolls, presence, log, rateLimiter, scheduled, files, operators };

    const app = uws.App();
    const inFlight = new InFlight();
    const onUnexpected = (err: unknown) => log.error({ err }, 'unexpected error');
    serve(app, createHandler(services, [...endpoints, ...(opts.extraEndpoints ?? [])]), { maxBodyBytes: config.maxBodyBytes, maxPendingReplyBytes: config.pendingReplyBytes, writeStallMs: config.writeStallMs, onUnexpected }, inFlight);
    const live = serveLive(app, { feed: operators.feed, operatorToken: config.operatorToken, log });
    const listenSocket = await new Promise<unknown>((resolve, reject) =>
      app.listen(config.host, config.port, (s) => (s ? resolve(s) : reject(new Error(`cannot listen on ${config.host}:${config.port}`)))),
    );
    const port = uws.us_socket_local_port(listenSocket as never);
    config.port = port;
    log.info({ host: config.host, port }, 'listening');
    const metricsListener =
      config.metricsPort === undefined ? null : await listenForMetrics(uws, config.metricsHost, config.metricsPort, operators.metrics, onUnexpected);
    if (metricsListener) {
      config.metricsPort = metricsListener.port;
      log.info({ host: config.metricsHost, port: metricsListener.port }, 'metrics listening');
    }
    // After listen: messages render with the realm URL, which names the port.
    scheduled.start();
    const retention = createActor(retentionMachine, { id: 'retention', input: { db, realms, intervalMs: config.retentionIntervalMs, batchSize: config.retentionBatchSize } }).start();
    registerActorKinds(operators.actors, { root, queues, scheduled, presence, retention });

    let stopping: Promise<void> | null = null;
    const stop = () =>
      (stopping ??= (async () => {
        // Readiness fails from now on; dashboards and the metrics port close.
        operators.health.drain();
        live.close();
        metricsListener?.close();
        uws.us_listen_socket_close(listenSocket as never);
        // Requests already on open connections may not be parsed yet: give them a moment to register.
        await new Promise((r) => setTimeout(r, 100));
        const deadline = new Promise<void>((r) => setTimeout(r, config.shutdownTimeoutMs).unref());
        // Parked polls are answered now; their clients poll the same queues after the restart.
        longPolls.releaseAll();
        await Promise.race([inFlight.idle(), deadline]);
        // Presence changed since the last flush is written through the realm actors before they stop.
        await presence.stop();
        await mail.stop();
        retention.stop();
        await scheduled.stop();
        outgoingWebhooks.stop();
        await realms.stop(config.shutdownTimeoutMs);
        await saveQueues(db, queues, router).catch((err) => log.error({ err }, 'saving event queues failed'));
        queues.stop();
        router.stop();
        rateLimiter.stop();
        files.stop();
        operators.stop();
        await closeDatabase();
        log.info('stopped');
      })());
    return { port, services, bootstrapped, stop };
  } catch (err) {
    root?.stop();
    await closeDatabase().catch(() => undefined);
    throw err;
  }
}
