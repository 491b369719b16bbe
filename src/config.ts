// Server configuration, read once from the environment.
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { LIMITS, PRESENCE_EVENTS_USER_LIMIT } from './limits.js';
import { parseRule, type RateLimitConfig } from './rate-rules.js';

export interface Config {
  host: string;
  port: number;
  /** Requests to this host are the default realm; `<sub>.<rootDomain>` selects a realm by subdomain. */
  rootDomain: string;
  /** Scheme used when building realm URLs. */
  externalScheme: 'http' | 'https';
  /** External PostgreSQL; when unset an embedded PostgreSQL under dataDir is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  /** The embedded PostgreSQL: EMBEDDED_DB_OS_USER is the account that runs it when Palaver runs as root (created when
   *  missing); EMBEDDED_DB_PORT makes it listen on 127.0.0.1 too, for user postgres with EMBEDDED_DB_PASSWORD. */
  embeddedDb: { osUser: string; tcp: { port: number; password: string } | null };
  /** DB_QUERY_TIMEOUT_MS: a query unanswered this long fails (503) and its connection is dropped, so a database
   *  that stops answering (a network partition) cannot hang requests. */
  dbQueryTimeoutMs: number;
  /** Most write batches a realm has in flight at once (pipelined group commit), each on its own connection. */
  realmPipelineDepth: number;
  /** Most of those writing at once (message IDs drawn ahead of the inserts, in the mailbox's order). */
  realmPipelineWriters: number;
  /** Connections of the server's database pool. */
  dbPoolSize: number;
  /**
   * PRESENCE_EVENTS_USER_LIMIT: a user coming online is announced by an event only to an audience of at most this many
   * users (the reference's USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS); larger realms' clients learn presence from
   * their own presence requests' answers, as the reference's do.
   */
  presenceEventsUserLimit: number;
  ownerEmail: string | undefined;
  ownerPassword: string | undefined;
  ownerName: string | undefined;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** PENDING_REPLY_BYTES: bytes of large replies that may wait at once for slow clients to take them; a large reply
   *  beyond it is refused (503 + Retry-After). */
  pendingReplyBytes: number;
  /** WRITE_STALL_MS: a client that takes no bytes of a large reply for this long is disconnected. */
  writeStallMs: number;
  /** BODY_BYTES_IN_FLIGHT / ANONYMOUS_BODY_BYTES_IN_FLIGHT: bytes of request bodies held at once across the server,
   *  and the part of them requests without credentials may hold; beyond them a body is refused (503 + Retry-After).
   *  BODY_STALL_MS: a body that receives nothing for this long is abandoned (408). */
  bodies: { bytesInFlight: number; anonymousBytesInFlight: number; stallMs: number };
  /** GET /messages asking for more than 100 messages (a large fetch): how many are built at once per server
   *  (`slots`), how many more may wait for one (`queue`), and how many one user may have building or waiting
   *  (`perUser`); beyond these the fetch is refused (503 + Retry-After). */
  largeFetches: { slots: number; queue: number; perUser: number };
  /** How often external changes (admin CLI) are picked up, in ms. */
  changePollMs: number;
  /** Allow uWebSockets.js's slow pure-JS fallback instead of refusing to start. */
  allowUwsFallback: boolean;
  /** scrypt cost parameter (log2 N) for new password hashes. */
  passwordHashCost: number;
  shutdownTimeoutMs: number;
  /** PALAVER_CHECK_COMMANDS: check that every realm command's input and answer is plain data (survives msgpack),
   *  and fail loudly when one is not (the tests set it; src/realm/command-check.ts). */
  checkCommands: boolean;
  /** WEB_PUBLIC_STREAMS_ENABLED: whether web-public channels may exist at all (realms also need spectator access). */
  webPublicStreamsEnabled: boolean;
  /** Topic deletion: messages per batch and the time after which a request answers `complete: false`. */
  topicDeletionBatchSize: number;
  topicDeletionTimeBudgetMs: number;
  /** Message retention: how often expired messages are removed, and how many per transaction. */
  retentionIntervalMs: number;
  retentionBatchSize: number;
  logLevel: string;
  /** LOG_LEVEL_FILE: on SIGHUP the log level is read from here (default DATA_DIR/log-level); LOG_LEVEL when absent. */
  logLevelFile: string;
  /** LOG_REQUESTS: one info line per request (default); `0` leaves only failed requests' lines (benchmarks). */
  logRequests: boolean;
  /** LOG_FORMAT: `json` always, `pretty` always, or `auto` (pretty when stdout is a terminal). */
  logFormat: 'json' | 'pretty' | 'auto';
  /** OPERATOR_TOKEN: Bearer token for /metrics, the actor inspection API and the dashboard; unset: they are refused. */
  operatorToken: string | undefined;
  /** METRICS_PORT: also serve GET /metrics without a token on this port (0: any free port); unset: not at all. */
  metricsPort: number | undefined;
  /** METRICS_HOST: where the metrics port listens (default loopback). */
  metricsHost: string;
  /** A parked GET /events is answered with a heartbeat after this long. */
  heartbeatMs: number;
  /** A queue with no client for this long is garbage-collected. */
  queueIdleTimeoutMs: number;
  /** How often queues are swept for heartbeats and expiry. */
  queueSweepMs: number;
  /** Event queues over WebSocket (GET /api/v1/events/socket): a socket with more than `maxBufferedBytes` waiting for
   *  its client is closed (its queue kept); pings keep a socket silent for `idleTimeoutS` seconds alive, and one that
   *  answers nothing for that long is closed. */
  eventSockets: { maxBufferedBytes: number; idleTimeoutS: number };
  /** Uploaded files: the size limit (MiB), where the local storage backend keeps them, and how long a file no
   *  message links is kept before it is removed. */
  files: { maxUploadMib: number; dir: string; unclaimedGraceMs: number };
  /** Reusable invitation links expire after this many minutes unless the request says otherwise. */
  invitationLinkValidityMinutes: number;
  /** Email invitations a realm may mail in a day (the reference's INVITES_DEFAULT_REALM_DAILY_MAX). */
  invitesDailyMax: number;
  /** The push notification service; unset: POST /mobile_push/register answers PUSH_SERVICE_NOT_CONFIGURED. */
  pushServiceUrl: string | undefined;
  /** smtp://[user:pass@]host[:port]; unset: outgoing email stays in the outbox and is logged. */
  smtpUrl: string | undefined;
  /** The From address of outgoing email. */
  mailFrom: string;
  rateLimits: RateLimitConfig;
  /** ZULIP_COMPAT_FIELDS: also send the version fields under the reference's `zulip_*` names (default on). */
  zulipCompatFields: boolean;
  /** Markdown rendering on worker threads: RENDER_THREADS at most, RENDER_TIME_LIMIT_MS per render (then it is
   *  abandoned: "Unable to render message"), RENDER_QUEUE renders waiting at most (beyond: 503). */
  render: { threads: number; timeLimitMs: number; maxQueue: number };
  /** Inline image previews. IMAGE_PROXY_KEY: the secret signing /external_content/ URLs (unset: one is made once and
   *  kept in the database). The proxy's fetches: IMAGE_PROXY_MAX_BYTES per image, IMAGE_PROXY_TIMEOUT_MS for the
   *  whole fetch, IMAGE_PROXY_MAX_REDIRECTS, and IMAGE_PROXY_ALLOW_PRIVATE (refused by default: loopback, private,
   *  link-local and other special-use addresses). */
  images: { proxyKey: string | undefined; proxyMaxBytes: number; proxyTimeoutMs: number; proxyMaxRedirects: number; proxyAllowPrivate: boolean };
  /** OUTGOING_WEBHOOKS_ALLOW_PRIVATE: let outgoing-webhook bots reach loopback, private, link-local and other
   *  special-use addresses (refused by default, as the reference does with Smokescreen). */
  outgoingWebhooks: { allowPrivate: boolean };
  /** Cluster mode (README "Cluster"): on when NATS_URL is set. `name` (CLUSTER_NAME, default: derived from the
   *  database) keeps clusters sharing one NATS apart; `node` (NODE_NAME) labels this process; a realm whose owner
   *  stops renewing its lease is taken over after `leaseMs` (CLUSTER_LEASE_MS); a command no owner answers within
   *  `commandTimeoutMs` (CLUSTER_COMMAND_TIMEOUT_MS) is refused with 503. */
  cluster: { natsUrl: string | undefined; name: string | undefined; node: string | undefined; leaseMs: number; commandTimeoutMs: number };
}

function int(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n)) throw new Error(`${name} must be an integer, got ${JSON.stringify(raw)}`);
  return n;
}

function flag(env: NodeJS.ProcessEnv, name: string): boolean {
  return ['1', 'true', 'yes'].includes((env[name] ?? '').toLowerCase());
}

/** A flag that is on unless set to 0, false or no. */
function flagDefaultOn(env: NodeJS.ProcessEnv, name: string): boolean {
  return !['0', 'false', 'no'].includes((env[name] ?? '').toLowerCase());
}

function embeddedDbConfig(env: NodeJS.ProcessEnv): Config['embeddedDb'] {
  const osUser = env.EMBEDDED_DB_OS_USER || 'palaver-db';
  if (!env.EMBEDDED_DB_PORT) return { osUser, tcp: null };
  const port = int(env, 'EMBEDDED_DB_PORT', 0);
  if (port < 1 || port > 65535) throw new Error(`EMBEDDED_DB_PORT out of range: ${port}`);
  const password = env.EMBEDDED_DB_PASSWORD ?? '';
  if (password.length < 12) throw new Error('EMBEDDED_DB_PORT needs EMBEDDED_DB_PASSWORD (at least 12 characters)');
  return { osUser, tcp: { port, password } };
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 9991);
  if (port < 0 || port > 65535) throw new Error(`PORT out of range: ${port}`);
  const dataDir = path.resolve(env.DATA_DIR || './data');
  for (const name of ['LARGE_FETCH_SLOTS', 'LARGE_FETCH_PER_USER', 'WRITE_STALL_MS', 'PENDING_REPLY_BYTES', 'RENDER_THREADS', 'RENDER_TIME_LIMIT_MS', 'BODY_BYTES_IN_FLIGHT', 'ANONYMOUS_BODY_BYTES_IN_FLIGHT', 'BODY_STALL_MS']) {
    if (int(env, name, 1) < 1) throw new Error(`${name} must be at least 1`);
  }
  return {
    host,
    port,
    rootDomain: (env.ROOT_DOMAIN || host).toLowerCase(),
    externalScheme: env.EXTERNAL_SCHEME === 'https' ? 'https' : 'http',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir,
    embeddedDb: embeddedDbConfig(env),
    dbQueryTimeoutMs: int(env, 'DB_QUERY_TIMEOUT_MS', 10_000),
    realmPipelineDepth: Math.max(1, int(env, 'REALM_PIPELINE_DEPTH', 4)),
    realmPipelineWriters: Math.max(1, int(env, 'REALM_PIPELINE_WRITERS', 2)),
    dbPoolSize: Math.max(2, int(env, 'DB_POOL_SIZE', 10)),
    presenceEventsUserLimit: Math.max(0, int(env, 'PRESENCE_EVENTS_USER_LIMIT', PRESENCE_EVENTS_USER_LIMIT)),
    ownerEmail: env.PALAVER_OWNER_EMAIL || undefined,
    ownerPassword: env.PALAVER_OWNER_PASSWORD || undefined,
    ownerName: env.PALAVER_OWNER_NAME || undefined,
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 32 * 1024 * 1024),
    pendingReplyBytes: int(env, 'PENDING_REPLY_BYTES', 64 * 1024 * 1024),
    writeStallMs: int(env, 'WRITE_STALL_MS', 10_000),
    bodies: {
      bytesInFlight: int(env, 'BODY_BYTES_IN_FLIGHT', 256 * 1024 * 1024),
      anonymousBytesInFlight: int(env, 'ANONYMOUS_BODY_BYTES_IN_FLIGHT', 16 * 1024 * 1024),
      stallMs: int(env, 'BODY_STALL_MS', 20_000),
    },
    largeFetches: {
      slots: int(env, 'LARGE_FETCH_SLOTS', 4),
      queue: int(env, 'LARGE_FETCH_QUEUE', 32),
      perUser: int(env, 'LARGE_FETCH_PER_USER', 4),
    },
    changePollMs: int(env, 'CHANGE_POLL_MS', 250),
    allowUwsFallback: flag(env, 'PALAVER_ALLOW_UWS_FALLBACK'),
    passwordHashCost: int(env, 'PASSWORD_HASH_COST', 15),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 5000),
    checkCommands: flag(env, 'PALAVER_CHECK_COMMANDS'),
    render: {
      threads: int(env, 'RENDER_THREADS', Math.max(1, availableParallelism() - 1)),
      timeLimitMs: int(env, 'RENDER_TIME_LIMIT_MS', 5000),
      maxQueue: int(env, 'RENDER_QUEUE', 1000),
    },
    webPublicStreamsEnabled: flagDefaultOn(env, 'WEB_PUBLIC_STREAMS_ENABLED'),
    topicDeletionBatchSize: int(env, 'TOPIC_DELETION_BATCH_SIZE', 1000),
    topicDeletionTimeBudgetMs: int(env, 'TOPIC_DELETION_TIME_BUDGET_MS', 50_000),
    retentionIntervalMs: int(env, 'RETENTION_INTERVAL_MS', 24 * 3600 * 1000),
    retentionBatchSize: int(env, 'RETENTION_BATCH_SIZE', 1000),
    logLevel: env.LOG_LEVEL || 'info',
    logLevelFile: env.LOG_LEVEL_FILE ? path.resolve(env.LOG_LEVEL_FILE) : path.join(dataDir, 'log-level'),
    logRequests: flagDefaultOn(env, 'LOG_REQUESTS'),
    logFormat: env.LOG_FORMAT === 'json' || env.LOG_FORMAT === 'pretty' ? env.LOG_FORMAT : 'auto',
    operatorToken: env.OPERATOR_TOKEN || undefined,
    metricsPort: env.METRICS_PORT ? int(env, 'METRICS_PORT', 0) : undefined,
    metricsHost: env.METRICS_HOST || '127.0.0.1',
    heartbeatMs: int(env, 'EVENT_HEARTBEAT_MS', 60_000),
    queueIdleTimeoutMs: int(env, 'EVENT_QUEUE_IDLE_TIMEOUT_MS', 600_000),
    queueSweepMs: int(env, 'EVENT_QUEUE_SWEEP_MS', 5_000),
    eventSockets: {
      maxBufferedBytes: int(env, 'EVENT_SOCKET_MAX_BUFFERED_BYTES', 1024 * 1024),
      idleTimeoutS: int(env, 'EVENT_SOCKET_IDLE_TIMEOUT_S', 60),
    },
    files: {
      maxUploadMib: int(env, 'MAX_FILE_UPLOAD_SIZE_MIB', LIMITS.max_file_upload_size_mib),
      dir: path.join(dataDir, 'uploads'),
      unclaimedGraceMs: int(env, 'UNCLAIMED_ATTACHMENT_GRACE_MS', 21 * 24 * 3600 * 1000),
    },
    invitationLinkValidityMinutes: int(env, 'INVITATION_LINK_VALIDITY_MINUTES', 14400),
    invitesDailyMax: int(env, 'INVITES_DAILY_MAX', 100),
    pushServiceUrl: env.PUSH_SERVICE_URL || undefined,
    zulipCompatFields: flagDefaultOn(env, 'ZULIP_COMPAT_FIELDS'),
    smtpUrl: env.SMTP_URL || undefined,
    mailFrom: env.MAIL_FROM || `noreply@${(env.ROOT_DOMAIN || host).toLowerCase()}`,
    rateLimits: {
      enabled: (env.RATE_LIMITS ?? 'on').toLowerCase() !== 'off',
      user: parseRule(env.RATE_LIMIT_USER, { limit: 200, windowSeconds: 60 }),
      ip: parseRule(env.RATE_LIMIT_IP, { limit: 100, windowSeconds: 60 }),
      passwordAttempts: parseRule(env.RATE_LIMIT_PASSWORD, { limit: 10, windowSeconds: 600 }),
    },
    images: {
      proxyKey: env.IMAGE_PROXY_KEY || undefined,
      proxyMaxBytes: int(env, 'IMAGE_PROXY_MAX_BYTES', 5 * 1024 * 1024),
      proxyTimeoutMs: int(env, 'IMAGE_PROXY_TIMEOUT_MS', 4000),
      proxyMaxRedirects: int(env, 'IMAGE_PROXY_MAX_REDIRECTS', 4),
      proxyAllowPrivate: flag(env, 'IMAGE_PROXY_ALLOW_PRIVATE'),
    },
    outgoingWebhooks: { allowPrivate: flag(env, 'OUTGOING_WEBHOOKS_ALLOW_PRIVATE') },
    cluster: {
      natsUrl: env.NATS_URL || undefined,
      name: env.CLUSTER_NAME || undefined,
      node: env.NODE_NAME || undefined,
      leaseMs: int(env, 'CLUSTER_LEASE_MS', 10_000),
      commandTimeoutMs: int(env, 'CLUSTER_COMMAND_TIMEOUT_MS', 15_000),
    },
  };
}
