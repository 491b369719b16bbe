// Starts a real server in this process on a random port, with its own database and data directory.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { hashPassword } from '../../src/auth/secrets.js';
import { loadConfig, type Config } from '../../src/config.js';
import type { Endpoint } from '../../src/http/endpoint.js';
import type { Logger } from '../../src/log.js';
import { startServer, type RunningServer, type StartOptions } from '../../src/server.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { Client, closeIdleConnections, type Credentials } from './http.js';

export const OWNER_EMAIL = 'owner@test.example';
export const OWNER_PASSWORD = 'owner-password-123';

export interface TestServer {
  server: RunningServer;
  config: Config;
  port: number;
  client: Client;
  owner: Credentials;
  dataDir: string;
  /** DATABASE_URL of this server's database, or undefined when it is embedded. */
  databaseUrl: string | undefined;
  /** Stops the server, keeping database and data directory (for restart tests). */
  stop(): Promise<void>;
  /** Stops the server and removes its database and data directory. */
  close(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  endpoints?: Endpoint[];
  /** Reuse the database and data directory of an earlier server (restart). */
  reuse?: { dataDir: string; databaseUrl: string | undefined; testDatabase?: TestDatabase | null };
  /** Force the embedded database even when DATABASE_URL is set. */
  embedded?: boolean;
  /** The server's logger (tests of the logs); by default one built from LOG_LEVEL. */
  log?: Logger;
  /** The scheduled-delivery actor's clock and timings. */
  scheduledDelivery?: StartOptions['scheduledDelivery'];
  /** Outgoing-webhook timeouts and retries. */
  outgoingWebhooks?: StartOptions['outgoingWebhooks'];
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const testDatabase = opts.reuse ? (opts.reuse.testDatabase ?? null) : opts.embedded ? null : await createTestDatabase();
  const dataDir = opts.reuse?.dataDir ?? mkdtempSync(path.join(tmpdir(), 'palaver-test-'));
  const databaseUrl = opts.reuse ? opts.reuse.databaseUrl : testDatabase?.url;
  // A first start on a fresh database is given no owner password: a given one is checked against the password policy,
  // whose estimator loads its dictionaries (about 0.5 s of CPU, in every test file); the owner gets OWNER_PASSWORD
  // right after (setOwnerPassword). Restarts, and tests that name their own, give it as before.
  const ownerPasswordLater = !opts.reuse && opts.env?.PALAVER_OWNER_PASSWORD === undefined;
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: '0',
    DATA_DIR: dataDir,
    PALAVER_OWNER_EMAIL: OWNER_EMAIL,
    PALAVER_OWNER_PASSWORD: OWNER_PASSWORD,
    PASSWORD_HASH_COST: '12',
    CHANGE_POLL_MS: '100',
    // Tests make many requests quickly; the rate-limit tests set their own limits.
    RATE_LIMIT_USER: '100000/60',
    RATE_LIMIT_IP: '100000/60',
    RATE_LIMIT_PASSWORD: '100000/60',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    // Every realm command's input and answer must survive msgpack (they will cross processes).
    PALAVER_CHECK_COMMANDS: '1',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...opts.env,
  });
  // One config object for the server and the test (tests change settings through s.config).
  const ownerPassword = config.ownerPassword!;
  if (ownerPasswordLater) config.ownerPassword = undefined;
  const server = await startServer(config, { extraEndpoints: opts.endpoints, scheduledDelivery: opts.scheduledDelivery, outgoingWebhooks: opts.outgoingWebhooks, log: opts.log }).finally(() => {
    config.ownerPassword = ownerPassword;
  });
  if (ownerPasswordLater && server.bootstrapped) await setOwnerPassword(server, ownerPassword);
  const client = new Client(server.port);
  const ownerEmail = config.ownerEmail!;
  const login = await client.post('/fetch_api_key', { form: { username: ownerEmail, password: config.ownerPassword! } });
  if (login.status !== 200) throw new Error(`owner login failed: ${login.text}`);
  const owner = { email: ownerEmail, apiKey: login.json.api_key as string };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await server.stop();
    closeIdleConnections([server.port, ...(config.metricsPort ? [config.metricsPort] : [])]);
  };
  return {
    server,
    config,
    port: server.port,
    client,
    owner,
    dataDir,
    databaseUrl,
    stop,
    async close() {
      await stop();
      await testDatabase?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** The owner the server just made with a generated password gets the configured one, as if it had been given. */
async function setOwnerPassword(server: RunningServer, password: string): Promise<void> {
  const { db, realms, config } = server.services;
  const realm = (await db.realms.byStringId(''))!;
  const owner = (await db.users.byEmail(realm.id, server.bootstrapped!.email))!;
  await db.users.setPasswordHash(owner.id, await hashPassword(password, config.passwordHashCost));
  await (await realms.get(realm.id)).dispatch('realm.reload');
  rmSync(server.bootstrapped!.credentialsFile!, { force: true });
}
