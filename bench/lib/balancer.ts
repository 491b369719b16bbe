// A round-robin TCP balancer for the bench's cluster runs: each incoming connection goes to the next process in turn
// (connection-level, as a layer-4 balancer does; a client's keep-alive connection stays with one process).
import net from 'node:net';

export interface Balancer {
  port: number;
  close(): Promise<void>;
}

export async function startBalancer(ports: number[]): Promise<Balancer> {
  let next = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect({ host: '127.0.0.1', port: ports[next++ % ports.length]! });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
  });
  server.maxConnections = 100_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (server.address() as net.AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
