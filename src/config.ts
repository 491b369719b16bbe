// Server configuration, read once from the environment.
import path from 'node:path';

export interface Config {
  host: string;
  port: number;
  /** Requests to this host are the default realm; `<sub>.<rootDomain>` selects a realm by subdomain. */
  rootDomain: string;
  /** Scheme used when building realm URLs. */
  externalScheme: 'http' | 'https';
  /** External PostgreSQL; when unset an embedded PGlite database under dataDir is used. */
  databaseUrl: string | undefined;
  dataDir: string;
  ownerEmail: string | undefined;
  ownerPassword: string | undefined;
  ownerName: string | undefined;
  /** Largest request body accepted, in bytes. */
  maxBodyBytes: number;
  /** How often external changes (admin CLI) are picked up, in ms. */
  changePollMs: number;
  /** Allow uWebSockets.js's slow pure-JS fallback instead of refusing to start. */
  allowUwsFallback: boolean;
  /** scrypt cost parameter (log2 N) for new password hashes. */
  passwordHashCost: number;
  shutdownTimeoutMs: number;
  /** WEB_PUBLIC_STREAMS_ENABLED: whether web-public channels may exist at all (realms also need spectator access). */
  webPublicStreamsEnabled: boolean;
  /** Topic deletion: messages per batch and the time after which a request answers `complete: false`. */
  topicDeletionBatchSize: number;
  topicDeletionTimeBudgetMs: number;
  /** Message retention: how often expired messages are removed, and how many per transaction. */
  retentionIntervalMs: number;
  retentionBatchSize: number;
  logLevel: string;
  /** A parked GET /events is answered with a heartbeat after this long. */
  heartbeatMs: number;
  /** A queue with no client for this long is garbage-collected. */
  queueIdleTimeoutMs: number;
  /** How often queues are swept for heartbeats and expiry. */
  queueSweepMs: number;
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

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const host = env.HOST || '127.0.0.1';
  const port = int(env, 'PORT', 9991);
  if (port < 0 || port > 65535) throw new Error(`PORT out of range: ${port}`);
  return {
    host,
    port,
    rootDomain: (env.ROOT_DOMAIN || host).toLowerCase(),
    externalScheme: env.EXTERNAL_SCHEME === 'https' ? 'https' : 'http',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: path.resolve(env.DATA_DIR || './data'),
    ownerEmail: env.PALAVER_OWNER_EMAIL || undefined,
    ownerPassword: env.PALAVER_OWNER_PASSWORD || undefined,
    ownerName: env.PALAVER_OWNER_NAME || undefined,
    maxBodyBytes: int(env, 'MAX_BODY_BYTES', 32 * 1024 * 1024),
    changePollMs: int(env, 'CHANGE_POLL_MS', 250),
    allowUwsFallback: flag(env, 'PALAVER_ALLOW_UWS_FALLBACK'),
    passwordHashCost: int(env, 'PASSWORD_HASH_COST', 15),
    shutdownTimeoutMs: int(env, 'SHUTDOWN_TIMEOUT_MS', 5000),
    webPublicStreamsEnabled: !['0', 'false', 'no'].includes((env.WEB_PUBLIC_STREAMS_ENABLED ?? '').toLowerCase()),
    topicDeletionBatchSize: int(env, 'TOPIC_DELETION_BATCH_SIZE', 1000),
    topicDeletionTimeBudgetMs: int(env, 'TOPIC_DELETION_TIME_BUDGET_MS', 50_000),
    retentionIntervalMs: int(env, 'RETENTION_INTERVAL_MS', 24 * 3600 * 1000),
    retentionBatchSize: int(env, 'RETENTION_BATCH_SIZE', 1000),
    logLevel: env.LOG_LEVEL || 'info',
    heartbeatMs: int(env, 'EVENT_HEARTBEAT_MS', 60_000),
    queueIdleTimeoutMs: int(env, 'EVENT_QUEUE_IDLE_TIMEOUT_MS', 600_000),
    queueSweepMs: int(env, 'EVENT_QUEUE_SWEEP_MS', 5_000),
  };
}
