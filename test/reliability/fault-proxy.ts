// A TCP proxy between the server and PostgreSQL that injects faults: `down` resets every connection and refuses new
// ones (a stopped or unreachable server), `stall` keeps connections open but passes nothing (a network partition:
// no reset, no answer), `restart` drops every connection once and accepts again (a database restart).
import net from 'node:net';

export type ProxyMode = 'up' | 'down' | 'stall';

export interface FaultProxy {
  /** The PostgreSQL URL through the proxy. */
  url: string;
  set(mode: ProxyMode): void;
  restart(): void;
  close(): Promise<void>;
}

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const host = target.hostname;
  const port = Number(target.port || 5432);
  let mode: ProxyMode = 'up';
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket | null }>();
  const held: net.Socket[] = [];

  const connect = (client: net.Socket) => {
    const upstream = net.connect({ host, port });
    const pair = { client, upstream };
    pairs.add(pair);
    for (const s of [client, upstream]) s.on('error', () => undefined);
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', end);
    upstream.on('close', end);
  };

  const server = net.createServer((client) => {
    client.on('error', () => undefined);
    if (mode === 'down') client.destroy();
    else if (mode === 'stall') held.push(client);
    else connect(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const listenPort = (server.address() as net.AddressInfo).port;
  const url = new URL(targetUrl);
  url.host = `127.0.0.1:${listenPort}`;

  const resetAll = () => {
    for (const p of pairs) {
      p.client.resetAndDestroy();
      p.upstream?.destroy();
    }
    pairs.clear();
  };
  return {
    url: url.toString(),
    set(next) {
      mode = next;
      if (next === 'down') {
        resetAll();
        for (const c of held.splice(0)) c.resetAndDestroy();
      } else if (next === 'stall') {
        // Nothing flows either way; the sockets stay open, as across a partition.
        for (const p of pairs) {
          p.client.unpipe();
          p.upstream?.unpipe();
          p.client.pause();
          p.upstream?.pause();
        }
      } else {
        for (const p of pairs) {
          p.client.pipe(p.upstream!);
          p.upstream!.pipe(p.client);
          p.client.resume();
          p.upstream!.resume();
        }
        for (const c of held.splice(0)) connect(c);
      }
    },
    restart() {
      resetAll();
    },
    async close() {
      resetAll();
      for (const c of held.splice(0)) c.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
