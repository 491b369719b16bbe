// Runs PGlite and its socket server in a worker thread, so database work never blocks the HTTP event loop.
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { parentPort, workerData } from 'node:worker_threads';

interface Start {
  dbDir: string;
  socketPath: string | null;
  maxConnections: number;
}

const { dbDir, socketPath, maxConnections } = workerData as Start;
const pg = await PGlite.create(dbDir);
const server = new PGLiteSocketServer(
  socketPath
    ? { db: pg, path: socketPath, maxConnections }
    : { db: pg, host: '127.0.0.1', port: 0, maxConnections },
);
await server.start();
parentPort!.postMessage({ type: 'ready', conn: server.getServerConn() });
parentPort!.on('message', async (msg: { type: string }) => {
  if (msg.type !== 'stop') return;
  await server.stop();
  await pg.close();
  parentPort!.postMessage({ type: 'stopped' });
  process.exit(0);
});
