// The embedded database: PGlite under DATA_DIR served over the PostgreSQL wire protocol, so pg-promise works unchanged.
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

export interface EmbeddedDatabase {
  connection: { host: string; port: number; user: string; database: string };
  stop(): Promise<void>;
}

/** Connections the socket server multiplexes onto PGlite's single session. */
export const EMBEDDED_MAX_CONNECTIONS = 8;
const INFO_FILE = 'embedded-db.json';

/** Where a running server's embedded database can be reached, written for the admin CLI. */
export function embeddedInfoPath(dataDir: string): string {
  return path.join(dataDir, INFO_FILE);
}

export async function startEmbedded(dataDir: string): Promise<EmbeddedDatabase> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const dbDir = path.join(dataDir, 'pglite');
  const pg = await PGlite.create(dbDir);
  // A unix socket inside DATA_DIR keeps the database private to this account; TCP on loopback when the path is too long.
  const socketPath = path.join(dataDir, '.s.PGSQL.5432');
  const useSocket = socketPath.length < 100;
  if (useSocket && existsSync(socketPath)) rmSync(socketPath);
  const server = new PGLiteSocketServer(
    useSocket
      ? { db: pg, path: socketPath, maxConnections: EMBEDDED_MAX_CONNECTIONS }
      : { db: pg, host: '127.0.0.1', port: 0, maxConnections: EMBEDDED_MAX_CONNECTIONS },
  );
  await server.start();
  let connection: EmbeddedDatabase['connection'];
  if (useSocket) {
    chmodSync(socketPath, 0o600);
    connection = { host: dataDir, port: 5432, user: 'postgres', database: 'postgres' };
  } else {
    const port = Number(server.getServerConn().split(':').pop());
    connection = { host: '127.0.0.1', port, user: 'postgres', database: 'postgres' };
  }
  writeFileSync(embeddedInfoPath(dataDir), JSON.stringify(connection), { mode: 0o600 });
  return {
    connection,
    async stop() {
      rmSync(embeddedInfoPath(dataDir), { force: true });
      await server.stop();
      await pg.close();
    },
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
