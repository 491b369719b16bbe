// The server as a child process for the reliability tests: started on a database and data directory that outlive it,
// killed with any signal, started again on the same data; plus direct database access (as the admin CLI has) to make
// users and to watch progress from outside the server.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { findRunningEmbedded, startEmbedded } from '../../src/persistence/embedded.js';
import { createUser } from '../../src/realm/provision.js';
import type { Role } from '../../src/model/realm.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';
import { Client, type Credentials } from '../helpers/http.js';

export const OWNER = { email: 'owner@crash.example', password: 'owner-pass-123' };

export interface ChildServer {
  child: ChildProcess;
  port: number;
  client: Client;
  exited: Promise<number | null>;
  output(): string;
  kill(signal?: NodeJS.Signals): Promise<void>;
}

/** A database and data directory for several server processes in a row. */
export interface Site {
  dataDir: string;
  /** Unset: the embedded database under dataDir. */
  databaseUrl: string | undefined;
  /** `nodeArgs`: flags for node before the server's script (e.g. a preloaded probe). */
  start(env?: Record<string, string>, nodeArgs?: string[]): Promise<ChildServer>;
  /** Direct access to the database, as the admin CLI has (the embedded one is opened here while no server runs). */
  connect(): Promise<Database>;
  close(): Promise<void>;
}

export async function openSite(opts: { embedded?: boolean; env?: Record<string, string> } = {}): Promise<Site> {
  const testDb: TestDatabase | null = opts.embedded ? null : await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-crash-'));
  const children = new Set<ChildProcess>();
  const killAll = () => {
    for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  };
  process.once('exit', killAll);
  const site: Site = {
    dataDir,
    databaseUrl: testDb?.url,
    async start(env = {}, nodeArgs = []) {
      const child = spawn(process.execPath, [...nodeArgs, 'dist/src/main.js'], {
        env: {
          ...process.env,
          DATABASE_URL: testDb?.url ?? '',
          DATA_DIR: dataDir,
          PORT: '0',
          LOG_LEVEL: 'info',
          LOG_FORMAT: 'json',
          LOG_REQUESTS: '0',
          PASSWORD_HASH_COST: '12',
          RATE_LIMITS: 'off',
          CHANGE_POLL_MS: '100',
          PALAVER_OWNER_EMAIL: OWNER.email,
          PALAVER_OWNER_PASSWORD: OWNER.password,
          ...opts.env,
          ...env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.add(child);
      let out = '';
      child.stdout!.on('data', (c) => (out += c));
      child.stderr!.on('data', (c) => (out += c));
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      exited.then(() => children.delete(child));
      const port = await new Promise<number>((resolve, reject) => {
        const timer = setInterval(() => {
          const m = /"port":(\d+),"msg":"listening"/.exec(out);
          if (m) {
            clearInterval(timer);
            resolve(Number(m[1]));
          } else if (child.exitCode !== null) {
            clearInterval(timer);
            reject(new Error(`server exited before listening:\n${out}`));
          }
        }, 20);
      });
      return {
        child,
        port,
        client: new Client(port),
        exited,
        output: () => out,
        async kill(signal = 'SIGKILL') {
          if (child.exitCode === null && child.signalCode === null) child.kill(signal);
          await exited;
        },
      };
    },
    async connect() {
      if (testDb) return createDatabase(testDb.url, { max: 2, onIdleError: () => undefined });
      const c = await findRunningEmbedded(dataDir);
      if (c) return createDatabase(c, { max: 2, onIdleError: () => undefined });
      // No server runs: the embedded database opened here for as long as the connection (as the admin CLI does).
      const embedded = await startEmbedded(dataDir);
      const database = createDatabase(embedded.connection, { max: 1, onIdleError: () => undefined });
      return { ...database, close: () => database.close().finally(() => embedded.stop()) };
    },
    async close() {
      killAll();
      process.off('exit', killAll);
      await testDb?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return site;
}

export async function login(client: Client, email = OWNER.email, password = OWNER.password): Promise<Credentials> {
  const r = await client.post('/fetch_api_key', { form: { username: email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${r.status} ${r.text}`);
  return { email, apiKey: r.json.api_key };
}

export interface SiteUser extends Credentials {
  id: number;
}

/** Users made the way the admin CLI makes them; the running server has picked them up when this returns. */
export async function addUsers(site: Site, server: ChildServer, n: number, role: Role = 400): Promise<SiteUser[]> {
  const { db, close } = await site.connect();
  const users: SiteUser[] = [];
  try {
    await db.tx(async (t) => {
      const realm = (await t.realms.byStringId(''))!;
      for (let i = 0; i < n; i++) {
        const email = `u${Date.now().toString(36)}-${i}@crash.example`;
        const u = await createUser(t, realm.id, { email, fullName: `User ${i}`, role, passwordHash: null });
        users.push({ id: u.id, email, apiKey: u.apiKey });
      }
      await t.changes.record(realm.id);
    });
  } finally {
    await close();
  }
  for (const u of users) await until(async () => (await server.client.as(u).get('/users/me')).status === 200, `user ${u.email} known`);
  return users;
}

/** Makes a channel with these subscribers (as `owner`) and returns its ID. */
export async function makeChannel(server: ChildServer, owner: Credentials, name: string, principals: number[]): Promise<number> {
  const c = server.client.as(owner);
  const r = await c.post('/users/me/subscriptions', {
    form: { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(principals) },
  });
  if (r.status !== 200) throw new Error(`subscribe failed: ${r.text}`);
  const id = await c.get('/get_stream_id', { query: { stream: name } });
  return id.json.stream_id;
}

/** Every message of a narrow, oldest first, as `who` sees it. */
export async function history(client: Client, narrow: unknown[]): Promise<{ id: number; content: string; subject: string }[]> {
  const out: { id: number; content: string; subject: string }[] = [];
  let anchor = '0';
  for (;;) {
    const r = await client.get('/messages', {
      query: { anchor, num_before: '0', num_after: '1000', narrow: JSON.stringify(narrow), apply_markdown: 'false', include_anchor: 'false' },
    });
    if (r.status !== 200) throw new Error(`GET /messages: ${r.status} ${r.text}`);
    out.push(...r.json.messages);
    if (r.json.found_newest || r.json.messages.length === 0) return out;
    anchor = String(r.json.messages.at(-1).id);
  }
}

/** Retries `check` until true; only bounds a hang, asserts no timing. */
export async function until(check: () => boolean | Promise<boolean>, what: string, ms = 60_000, every = 25): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, every));
  }
  throw new Error(`never happened: ${what}`);
}
