// Assembles and starts the server: database, migrations, first-start bootstrap, actors, HTTP; and stops it.
import { randomBytes } from 'node:crypto';
import type { AnyActorRef } from 'xstate';
import { Realms } from './actors/realms.js';
import { rootMachine } from './actors/root.machine.js';
import { ActorSystem, STOP_PHASE } from './actors/system.js';
import type { Config } from './config.js';
import { EventHub } from './bus/hub.js';
import { OutgoingWebhooks, type OutgoingWebhookTuning } from './webhooks/outgoing.js';
import { createHandler } from './http/app.js';
import type { Endpoint } from './http/endpoint.js';
import { endpoints } from './http/routes/index.js';
import { InFlight, serve } from './http/respond.js';
import type { Services } from './http/services.js';
import { createLogger, type Logger } from './log.js';
import { cancelQueries, createDatabase, type Connection, type Database } from './persistence/db.js';
import { startEmbedded, type EmbeddedDatabase } from './persistence/embedded.js';
import { migrate } from './persistence/migrate.js';
import { bootstrap, type Bootstrapped } from './realm/bootstrap.js';
import { realmCommands } from './realm/registry.js';
import { ROLE } from './model/realm.js';
import { retentionMachine } from './actors/retention.machine.js';
import { PresenceSessions } from './actors/presence-sessions.js';
import { ScheduledDelivery, type ScheduledDeliveryOptions } from './actors/scheduled-delivery.js';
import { MailSender } from './mail/sender.js';
import { listenExclusive, loadUws } from './uws.js';
import { RateLimiter } from './http/rate-limit.js';
import { Files } from './files/service.js';
import { LongPolls } from './events/long-polls.js';
import { QueueSockets } from './events/queue-sockets.js';
import { serveEventsSocket } from './http/events-socket.js';
import { SocketTickets } from './http/events-socket-tickets.js';
import { QueueRegistry } from './events/queue-registry.js';
import { EventRouter } from './events/router.js';
import { narrowResolver, restoreQueues, saveQueues } from './events/persistence.js';
import { Operators } from './operators/index.js';
import { serveLive } from './http/live.js';
import { listenForMetrics } from './http/metrics-listener.js';
import { closeFetchSlots } from './http/large-fetches.js';
import { configureRenderPool } from './render-pool/index.js';
import { ClusterPresence } from './cluster/presence.js';
import { SocketRelays } from './cluster/socket-relay.js';

export interface RunningServer {
  port: number;
  services: Services;
  /** Every long-lived actor of this server: created, listed and stopped through it. */
  actors: ActorSystem;
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

/** Runs `fn` on a connection of its own, outside the pool: for migrations (which may legitimately run longer than the
 *  query timeout) and for shutdown's last work (when the pool's connections may all be taken by heavy queries). */
async function withOwnConnection<T>(connection: Connection, fn: (db: Database['db']) => Promise<T>): Promise<T> {
  const own = createDatabase(connection, { max: 1 });
  try {
    return await fn(own.db);
  } finally {
    await own.close();
  }
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.logLevel);
  const { uws } = loadUws(config.allowUwsFallback);
  configureRenderPool(config.render);

  const onIdleError = (err: Error) => log.warn({ err: err.message }, 'idle database connection lost');
  // Every long-lived actor is created, listed and stopped through it.
  const system = new ActorSystem({
    onActorError: (id, err) => log.error({ err, actor: id }, 'actor failed'),
    onStopError: (keeper, err) => log.error({ err, keeper }, 'stopping failed'),
  });
  // Before the database, so its metrics observe every query.
  const operators = new Operators(log, system, { logRequests: config.logRequests });
  const observer = operators.metrics.db;
  let embedded: EmbeddedDatabase | null = null;
  // This server's sessions in pg_stat_activity: shutdown cancels what still runs in them.
  const applicationName = `palaver-${process.pid}-${randomBytes(4).toString('hex')}`;
  if (!config.databaseUrl) {
    embedded = await startEmbedded(config.dataDir, { ...config.embeddedDb, log });
    log.info({ dataDir: config.dataDir }, 'embedded PostgreSQL started');
  }
  const connection = config.databaseUrl ?? embedded!.connection;
  const database = createDatabase(connection, { max: config.dbPoolSize, onIdleError, observer, queryTimeoutMs: config.dbQueryTimeoutMs, applicationName });
  const { db } = database;
  const closeDatabase = async () => {
    await database.close();
    await embedded?.stop();
  };

  let startedFiles: Files | null = null;
  try {
    const applied = await withOwnConnection(connection, migrate);
    if (applied.length) log.info({ applied }, 'migrations applied');
    const bootstrapped = await bootstrap(db, config);
    const hub = new EventHub(log);
    const rateLimiter = new RateLimiter(config.rateLimits);
    // Cluster mode (NATS_URL): realms are owned through leases, written by their owner, replicated to the others. Its
    // module (and the NATS client) is loaded only then: a single process does without them.
    const cluster = config.cluster.natsUrl ? await (await import('./cluster/index.js')).Cluster.connect({ config, db, commands: realmCommands, log, rateLimiter }) : null;
    if (cluster) {
      // After the realm actors stopped (their last writes committed and replicated): leases given up, NATS drained.
      system.keep({ name: 'cluster', phase: STOP_PHASE.cluster, stop: () => cluster.stop() });
      log.info({ node: cluster.node }, 'cluster mode');
      // Every series names the process it comes from.
      operators.metrics.registry.setDefaultLabels({ node: cluster.node });
    }
    // Every realm's events, wherever its owner runs (the scheduled-delivery actor follows them all).
    const allRealms = cluster ? new EventHub(log) : hub;
    if (cluster) hub.subscribe((realmId, events) => allRealms.publishEvents(realmId, events), 'every realm (cluster)');
    const root = system.create(rootMachine, {
      id: 'root',
      stopPhase: STOP_PHASE.realms,
      input: {
        db,
        hub,
        commands: realmCommands,
        realmObserver: operators.metrics.realm,
        directory: await db.realms.directory(),
        rootDomain: config.rootDomain,
        realmPipelineDepth: config.realmPipelineDepth,
        realmPipelineWriters: config.realmPipelineWriters,
        changePollMs: config.changePollMs,
        lastChangeId: await db.changes.latestId(),
        cluster: cluster?.rootHooks(),
      },
    });
    root.start();
    const realms = new Realms(root, config.rootDomain, config.checkCommands, cluster?.owners);
    system.keep({ name: 'realms', phase: STOP_PHASE.realms, stop: (timeoutMs) => realms.stop(timeoutMs) });
    const queues = new QueueRegistry({
      sweepIntervalMs: config.queueSweepMs,
      defaults: { heartbeatMs: config.heartbeatMs, idleTimeoutMs: config.queueIdleTimeoutMs },
      onListenerError: (err) => log.error({ err }, 'event queue listener failed'),
      // In a cluster a queue's ID names the process holding it.
      processTag: cluster?.node,
    });
    const router = new EventRouter(hub, queues, narrowResolver(realms), (realmId, userId) => {
      const user = realms.stateIfLoaded(realmId)?.usersById.get(userId);
      return user !== undefined && user.isActive && user.role !== ROLE.GUEST;
    });
    const longPolls = new LongPolls(queues);
    const sockets = new QueueSockets(queues);
    // A cluster's queues die with their process (clients register again); one process keeps them over a restart.
    const restored = cluster ? { restored: 0, dropped: 0, kept: 0 } : await restoreQueues(db, realms, router, (queueId, realmId, err) =>
      log.warn({ queueId, realmId, err: err instanceof Error ? err.message : String(err) }, 'saved event queue not restored'),
    );
    if (restored.restored || restored.dropped || restored.kept) log.info(restored, 'event queues restored');
    const presenceOptions = { onError: (err: unknown) => log.warn({ err }, 'presence flush failed'), eventUserLimit: config.presenceEventsUserLimit };
    // In a cluster a realm's presence sessions live on its owner.
    const presence = cluster ? new ClusterPresence(db, system, presenceOptions, cluster.owners) : new PresenceSessions(db, system, presenceOptions);
    const mail = new MailSender(db, config, log);
    const scheduled = new ScheduledDelivery({ actors: system, db, realms, hub: allRealms, config, log, ...opts.scheduledDelivery });
    const files = new Files(config, db, realms, log);
    const outgoingWebhooks = new OutgoingWebhooks({ hub, realms, config, log }, opts.outgoingWebhooks);
    startedFiles = files;
    await files.start();
    // An export being built when the server stopped will not finish: it is reported failed (the reference's too).
    await db.realmExports.failUnfinished();
    operators.connect({ db, hub, queues, longPolls, sockets, scheduled });
    const socketTickets = new SocketTickets(db);
    const services: Services = { config, db, realms, hub, queues, router, longPolls, sockets, socketTickets, presence, log, rateLimiter, scheduled, files, jobs: system, operators, cluster };

    const app = uws.App();
    const inFlight = new InFlight();
    const onUnexpected = (err: unknown) => log.error({ err }, 'unexpected error');
    const handler = createHandler(services, [...endpoints, ...(opts.extraEndpoints ?? [])]);
    const relays = cluster ? new SocketRelays((queueId, userId, lastEventId, onAbort) => cluster.pollElsewhere(queueId, userId, lastEventId, false, onAbort)) : null;
    serveEventsSocket(app, handler, { sockets, relays: relays ?? undefined, ...config.eventSockets, maxBodyBytes: config.maxBodyBytes, onUnexpected });
    serve(app, handler, { maxBodyBytes: config.maxBodyBytes, maxPendingReplyBytes: config.pendingReplyBytes, writeStallMs: config.writeStallMs, bodies: config.bodies, onUnexpected }, inFlight);
    const live = serveLive(app, { feed: operators.feed, operatorToken: config.operatorToken, log, rateLimiter });
    const listenSocket = await listenExclusive(app, config.host, config.port, 'the API');
    const port = uws.us_socket_local_port(listenSocket);
    config.port = port;
    log.info({ host: config.host, port }, 'listening');
    const metricsListener =
      config.metricsPort === undefined
        ? null
        : await listenForMetrics(uws, config.metricsHost, config.metricsPort, operators.metrics, onUnexpected).catch((err: unknown) => {
            live.close();
            uws.us_listen_socket_close(listenSocket);
            throw err;
          });
    if (metricsListener) {
      config.metricsPort = metricsListener.port;
      log.info({ host: config.metricsHost, port: metricsListener.port }, 'metrics listening');
    }
    // Background work starts once both ports are ours (a server that cannot listen has started none of it but the files'
    // thumbnailer, stopped below).
    queues.start();
    presence.start();
    // Once-only work (outbox mail, scheduled delivery, retention): here, or in a cluster on the holder of its lease.
    let retention: AnyActorRef | null = null;
    let onceOnlyRunning = false;
    const onceOnly = async (run: boolean) => {
      if (run === onceOnlyRunning) return;
      onceOnlyRunning = run;
      if (run) {
        mail.start();
        // After listen: messages render with the realm URL, which names the port.
        scheduled.start();
        retention = system
          .create(retentionMachine, {
            id: 'retention',
            stopPhase: STOP_PHASE.feeders,
            input: { db, realms, intervalMs: config.retentionIntervalMs, batchSize: config.retentionBatchSize },
          })
          .start();
      } else {
        await mail.stop();
        retention?.stop();
        retention = null;
        await scheduled.stop();
      }
    };
    // What shutdown stops besides the actors (which go in their phases): presence changed since the last flush is
    // written through the realm actors before they stop; event queues are saved once the realms' last events reached
    // them (on a connection of its own: the pool may still be held by requests that outlived the deadline).
    system.keep({ name: 'presence sessions', phase: STOP_PHASE.feeders, stop: () => presence.stop() });
    system.keep({ name: 'once-only work (mail, scheduled delivery, retention)', phase: STOP_PHASE.feeders, stop: () => onceOnly(false) });
    system.keep({ name: 'outgoing webhooks', phase: STOP_PHASE.feeders, stop: () => outgoingWebhooks.stop() });
    system.keep({
      name: 'event queues',
      phase: STOP_PHASE.queues,
      stop: async () => {
        // A cluster's queues are not kept: they die with the process.
        if (!cluster) await withOwnConnection(connection, (own) => saveQueues(own, queues, router)).catch((err) => log.error({ err }, 'saving event queues failed'));
        queues.stop();
      },
    });
    if (cluster) {
      cluster.start(realms, {
        deliver: (realmId, events, readBy) => {
          router.route(realmId, events, readBy);
          allRealms.publishEvents(realmId, events);
        },
        dropRealm: (realmId) => {
          for (const q of router.liveQueues()) if (q.realmId === realmId) queues.delete(q.queueId);
        },
        poll: async (queueId, userId, lastEventId, dontBlock, onAbort) => (await longPolls.poll(queueId, userId, lastEventId, dontBlock, onAbort)).toJSON(),
        // Parked polls are answered empty at shutdown (longPolls.releaseAll) and when their queue ends.
        ended: (queueId) => (stopping ? 'shutdown' : queues.get(queueId) ? undefined : 'gone'),
        delete: (queueId, userId) => queues.delete(queueId, userId),
        holds: (queueId, userId) => queues.get(queueId, userId) !== undefined,
      }, (held) => void onceOnly(held));
      operators.health.addCheck('cluster', () => cluster.readiness());
      cluster.serveActors(operators.actors);
      operators.feed.showCluster(cluster);
    } else void onceOnly(true);

    let stopping: Promise<void> | null = null;
    const stop = () =>
      (stopping ??= (async () => {
        // Readiness fails from now on; dashboards and the metrics port close.
        operators.health.drain();
        live.close();
        metricsListener?.close();
        uws.us_listen_socket_close(listenSocket);
        // Requests already on open connections may not be parsed yet: give them a moment to register.
        await new Promise((r) => setTimeout(r, 100));
        const deadline = new Promise<void>((r) => setTimeout(r, config.shutdownTimeoutMs).unref());
        // Parked polls are answered now; their clients poll the same queues after the restart.
        longPolls.releaseAll();
        sockets.closeAll();
        relays?.closeAll();
        await Promise.race([inFlight.idle(), deadline]);
        // Requests still running past the deadline (heavy queries) are cancelled in the database, so the connections
        // they hold come back and the work below gets its turn; those waiting to run one are refused.
        closeFetchSlots(config);
        if (inFlight.count > 0 && config.databaseUrl) {
          const cancelled = await withOwnConnection(connection, (own) => cancelQueries(own, applicationName)).catch((err: unknown) => {
            log.warn({ err }, 'cancelling running queries failed');
            return 0;
          });
          if (cancelled) log.warn({ cancelled }, 'queries still running at shutdown cancelled');
        }
        await system.stop(config.shutdownTimeoutMs);
        router.stop();
        rateLimiter.stop();
        files.stop();
        operators.stop();
        await closeDatabase();
        log.info('stopped');
      })());
    return { port, services, actors: system, bootstrapped, stop };
  } catch (err) {
    await system.stop(config.shutdownTimeoutMs);
    startedFiles?.stop();
    operators.stop();
    await closeDatabase().catch(() => undefined);
    throw err;
  }
}
