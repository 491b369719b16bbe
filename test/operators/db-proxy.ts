// A TCP proxy in front of the test database's PostgreSQL server, which a test can take down and
// bring back, to see the server with its database unreachable.
import net from 'node:net';
import { createTestDatabase, socketOf } from '../helpers/database.js';

export interface DbProxy {
  /** DATABASE_URL through the proxy. */
  url: string;
  down(): void;
  up(): void;
  close(): Promise<void>;
}

export async function startDbProxy(): Promise<DbProxy> {
  const testDb = await createTestDatabase();
  const target = socketOf(testDb.url);
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
    url: Object.assign(new URL(testDb.url), { host: `127.0.0.1:${port}` }).toString(),
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
      await testDb.drop();
    },
  };
}
