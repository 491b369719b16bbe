// A TCP proxy between the server and PostgreSQL that injects faults: `down` resets every connection and refuses new
// ones (a stopped or unreachable server), `stall` keeps connections open but passes nothing (a network partition:
// no reset, no answer), `restart` drops every connection once and accepts again (a database restart), and
// `cutAfterCommit` lets the next COMMIT reach the database and drops the connection when its answer comes back,
// without passing it on (the one moment a client cannot know whether its transaction committed).
import net from 'node:net';
import { socketOf } from '../helpers/database.js';

export type ProxyMode = 'up' | 'down' | 'stall';

export interface FaultProxy {
  /** The PostgreSQL URL through the proxy. */
  url: string;
  set(mode: ProxyMode): void;
  restart(): void;
  /** One-shot: the next COMMIT is passed on, then its connection is reset once the database has answered it, the
   *  answer not passed back. */
  cutAfterCommit(): void;
  /** How many COMMITs were cut so far (the fault was injected). */
  readonly commitsCut: number;
  close(): Promise<void>;
}

/** Whether a chunk from the client holds a simple-protocol Query message of exactly `commit`. */
function holdsCommit(chunk: Buffer): boolean {
  for (let i = chunk.indexOf(0x51); i !== -1 && i + 12 <= chunk.length; i = chunk.indexOf(0x51, i + 1)) {
    if (chunk.readUInt32BE(i + 1) === 11 && chunk.toString('latin1', i + 5, i + 12).toLowerCase() === 'commit\0') return true;
  }
  return false;
}

export async function startFaultProxy(targetUrl: string): Promise<FaultProxy> {
  const target = socketOf(targetUrl);
  let mode: ProxyMode = 'up';
  let commitCutArmed = false;
  let commitsCut = 0;
  const pairs = new Set<{ client: net.Socket; upstream: net.Socket | null }>();
  const held: net.Socket[] = [];

  const connect = (client: net.Socket) => {
    const upstream = net.connect(target);
    const pair = { client, upstream };
    pairs.add(pair);
    for (const s of [client, upstream]) s.on('error', () => undefined);
    client.pipe(upstream);
    upstream.pipe(client);
    // After pipe's own listener has passed the chunk on, nothing more goes back to the client: once the database has
    // answered the COMMIT (so the transaction has certainly committed), the answer is dropped and the client reset.
    // (Reset at once, the server's 503 could come back while the database is still committing, slow under load, and a
    // read right after it would not find what the COMMIT wrote.)
    client.on('data', (chunk: Buffer) => {
      if (!commitCutArmed || !holdsCommit(chunk)) return;
      commitCutArmed = false;
      upstream.unpipe(client);
      upstream.once('data', () => {
        commitsCut++;
        client.resetAndDestroy();
      });
      // unpipe paused it.
      upstream.resume();
    });
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
    cutAfterCommit() {
      commitCutArmed = true;
    },
    get commitsCut() {
      return commitsCut;
    },
    async close() {
      resetAll();
      for (const c of held.splice(0)) c.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
