// A cluster for tests: nats-server (bench/lib/nats.ts), N Palaver processes (real children running dist/src/main.js) on one
// PostgreSQL test database, and a client that sends each request to the next process in turn.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ensureNats, type Nats } from '../../bench/lib/nats.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { Client, type Credentials, type RequestOptions, type Response } from './http.js';

/** The operator token every process of a test cluster accepts. */
export const OPERATOR_TOKEN = 'cluster-test-operator-token-0123456789';

export interface Node {
  child: ChildProcess;
  port: number;
  /** The process's cluster name (its queues' ID prefix). */
  node: string;
  exited: Promise<number | null>;
  output(): string;
  client: Client;
}

function startNode(env: Record<string, string>): Promise<Node> {
  const child = spawn(process.execPath, ['dist/src/main.js'], { env: { ...process.env, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return new Promise((resolve, reject) => {
    const check = () => {
      const m = /"port":(\d+),"msg":"listening"/.exec(out);
      const n = /"node":"([^"]+)","msg":"cluster mode"/.exec(out);
      if (m && n) {
        child.stdout!.off('data', check);
        const port = Number(m[1]);
        resolve({ child, port, node: n[1]!, exited, output: () => out, client: new Client(port) });
      }
    };
    child.stdout!.on('data', check);
    void exited.then(() => reject(new Error('exited before listening:\n' + out)));
  });
}

/** Sends each request to the next process in turn (a round-robin balancer in the client). */
export class RoundRobin extends Client {
  private next = 0;
  constructor(readonly ports: number[], defaults: { host?: string; auth?: Credentials } = {}) {
    super(ports[0]!, defaults);
  }
  override as(auth: Credentials): RoundRobin {
    return new RoundRobin(this.ports, { ...this.defaults, auth });
  }
  override withHost(host: string): RoundRobin {
    return new RoundRobin(this.ports, { ...this.defaults, host });
  }
  override request(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const port = this.ports[this.next++ % this.ports.length]!;
    return new Client(port, this.defaults).request(method, path, o);
  }
}

export interface TestCluster {
  nats: Nats;
  db: TestDatabase;
  nodes: Node[];
  owner: Credentials;
  env: Record<string, string>;
  /** Every request to the next live process. */
  roundRobin(): RoundRobin;
  /** One more process on the same database and NATS. */
  add(): Promise<Node>;
  stop(): Promise<void>;
}

/**
 * Starts `n` processes of one cluster: the first alone (it migrates and bootstraps the database), then the others.
 * `env` adds to every process's environment (CLUSTER_LEASE_MS defaults to 2 s here); `natsMaxPayload`: a NATS
 * server of the cluster's own whose messages carry at most that many bytes.
 */
export async function startCluster(n: number, env: Record<string, string> = {}, opts: { natsMaxPayload?: number } = {}): Promise<TestCluster> {
  const nats = await ensureNats({ maxPayload: opts.natsMaxPayload });
  const db = await createTestDatabase();
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-cluster-'));
  const email = 'owner@cluster.example';
  const password = 'cluster-owner-pass-1';
  const base: Record<string, string> = {
    DATABASE_URL: db.url,
    NATS_URL: nats.url,
    // Test files share one NATS server: each cluster keeps to its own subjects.
    CLUSTER_NAME: `t${randomBytes(6).toString('hex')}`,
    CLUSTER_LEASE_MS: '2000',
    DATA_DIR: dataDir,
    PORT: '0',
    PASSWORD_HASH_COST: '10',
    RENDER_THREADS: '1',
    PALAVER_OWNER_EMAIL: email,
    PALAVER_OWNER_PASSWORD: password,
    OPERATOR_TOKEN: OPERATOR_TOKEN,
    ...env,
  };
  const nodes: Node[] = [];
  let started = 0;
  const add = async () => {
    // Named before it starts: processes started together get distinct names.
    const node = await startNode({ ...base, NODE_NAME: `n${started++}` });
    nodes.push(node);
    return node;
  };
  try {
    await add();
    await Promise.all(Array.from({ length: n - 1 }, () => add()));
    const key = (await nodes[0]!.client.post('/fetch_api_key', { form: { username: email, password } })).json.api_key as string;
    const live = () => nodes.filter((x) => x.child.exitCode === null && x.child.signalCode === null);
    return {
      nats,
      db,
      nodes,
      owner: { email, apiKey: key },
      env: base,
      roundRobin: () => new RoundRobin(live().map((x) => x.port)),
      add,
      stop: async () => {
        await Promise.all(
          nodes.map(async (x) => {
            if (x.child.exitCode === null && x.child.signalCode === null) x.child.kill('SIGTERM');
            const timer = setTimeout(() => x.child.kill('SIGKILL'), 20_000);
            await x.exited;
            clearTimeout(timer);
          }),
        );
        await db.drop();
        await nats.stop();
        rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    for (const x of nodes) x.child.kill('SIGKILL');
    await db.drop().catch(() => undefined);
    await nats.stop();
    rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

/** A new member of the cluster's realm, created by `owner`, with an API key. */
export async function newUser(c: Client, owner: Credentials, name: string): Promise<Credentials & { id: number }> {
  const email = `${name}-${Math.random().toString(36).slice(2, 8)}@cluster.example`;
  const password = `pw-${name}-long-enough-1`;
  const created = await c.post('/users', { auth: owner, form: { email, password, full_name: name } });
  if (created.status !== 200) throw new Error(`creating ${name}: ${created.text}`);
  const key = await c.post('/fetch_api_key', { form: { username: email, password } });
  if (key.status !== 200) throw new Error(`key of ${name}: ${key.text}`);
  return { email, apiKey: key.json.api_key, id: created.json.user_id };
}

/** Subscribes `userIds` to the channel `name` (created when new). */
export async function channelWith(c: Client, owner: Credentials, name: string, userIds: number[]): Promise<void> {
  const r = await c.post('/users/me/subscriptions', {
    auth: owner,
    form: { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify(userIds) },
  });
  if (r.status !== 200) throw new Error(`subscribing: ${r.text}`);
}
