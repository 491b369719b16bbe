// The embedded database: PGlite under DATA_DIR, in a worker thread, served over the PostgreSQL wire protocol so
// pg-promise works unchanged.
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

export interface EmbeddedDatabase {
  connection: { host: string; port: number; user: string; database: string };
  stop(): Promise<void>;
}

/** Connections the socket server multiplexes onto PGlite's single session. */
export const EMBEDDED_MAX_CONNECTIONS = 16;
const INFO_FILE = 'embedded-db.json';

/** Where a running server's embedded database can be reached, written for the admin CLI. */
export function embeddedInfoPath(dataDir: string): string {
  return path.join(dataDir, INFO_FILE);
}

export async function startEmbedded(dataDir: string): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  // A unix socket inside DATA_DIR keeps the database private to this account; TCP on loopback when the path is too long.
  const socketPath = path.join(dataDir, '.s.PGSQL.5432');
  const useSocket = socketPath.length < 100;
  if (useSocket && existsSync(socketPath)) rmSync(socketPath);
  const worker = new Worker(new URL('./embedded-worker.js', import.meta.url), {
    workerData: { dbDir: path.join(dataDir, 'pglite'), socketPath: useSocket ? socketPath : null, maxConnections: EMBEDDED_MAX_CONNECTIONS },
  });
  const conn = await new Promise<string>((resolve, reject) => {
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`embedded database worker exited with code ${code}`)));
    worker.once('message', (m: { type: string; conn: string }) => resolve(m.conn));
  });
  worker.removeAllListeners('exit');
  worker.removeAllListeners('error');
  worker.on('error', (err) => process.emitWarning(`embedded database worker: ${err.message}`));
  let connection: EmbeddedDatabase['connection'];
  if (useSocket) {
    chmodSync(socketPath, 0o600);
    connection = { host: dataDir, port: 5432, user: 'postgres', database: 'postgres' };
  } else {
    connection = { host: '127.0.0.1', port: Number(conn.split(':').pop()), user: 'postgres', database: 'postgres' };
  }
  writeFileSync(embeddedInfoPath(dataDir), JSON.stringify(connection), { mode: 0o600 });
  let stopped: Promise<void> | null = null;
  return {
    connection,
    stop: () =>
      (stopped ??= (async () => {
        rmSync(embeddedInfoPath(dataDir), { force: true });
        const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
        worker.postMessage({ type: 'stop' });
        const timeout = new Promise<void>((resolve) => setTimeout(resolve, 10_000).unref());
        await Promise.race([exited, timeout]);
        await worker.terminate();
      })()),
  };
}

/** The connection of a server's embedded database that is running now, or null. */
export async function findRunningEmbedded(dataDir: string): Promise<EmbeddedDatabase['connection'] | null> {
  let info: EmbeddedDatabase['connection'];
  try {
    info = JSON.parse(readFileSync(embeddedInfoPath(dataDir), 'utf8'));
  } catch {
    return null;
  }
  const target = info.host.startsWith('/') ? { path: path.join(info.host, `.s.PGSQL.${info.port}`) } : { host: info.host, port: info.port };
  const reachable = await new Promise<boolean>((resolve) => {
    const s = net.connect(target as net.NetConnectOpts);
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
  return reachable ? info : null;
}
