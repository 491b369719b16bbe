// A TCP proxy in front of a PostgreSQL server (embedded PGlite or DATABASE_URL's), which a test can take down and
// bring back, to see the server with its database unreachable.
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmbedded, type EmbeddedDatabase } from '../../src/persistence/embedded.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

export interface DbProxy {
  /** DATABASE_URL through the proxy. */
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startDbProxy(): Promise<DbProxy> {
  let target: net.NetConnectOpts;
  let user = 'postgres';
  let database = 'postgres';
  let embedded: EmbeddedDatabase | null = null;
  let testDb: TestDatabase | null = null;
  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-dbproxy-'));
  testDb = await createTestDatabase();
  if (testDb) {
    const u = new URL(testDb.url);
    target = { host: u.hostname, port: Number(u.port || 5432) };
    user = decodeURIComponent(u.username) + (u.password ? ':' + decodeURIComponent(u.password) : '');
    database = u.pathname.slice(1);
  } else {
    embedded = await startEmbedded(dir);
    const c = embedded.connection;
    target = c.host.startsWith('/') ? { path: path.join(c.host, `.s.PGSQL.${c.port}`) } : { host: c.host, port: c.port };
  }
  let isUp = true;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (!isUp) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target);
    for (const sock of [client, upstream]) {
      sockets.add(sock);
      sock.on('close', () => sockets.delete(sock));
      sock.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `postgres://${user}@127.0.0.1:${port}/${database}`,
    down() {
      isUp = false;
      for (const sock of sockets) sock.destroy();
    },
    up() {
      isUp = true;
    },
    async close() {
      for (const sock of sockets) sock.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await embedded?.stop();
      await testDb?.drop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
