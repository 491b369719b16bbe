// Keeps the embedded PostgreSQL that the test files of one ava run share (see database.ts): started here, in a process
// of its own, and stopped (its directory removed) once the run's main process is gone.
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { processStart } from '../../src/persistence/embedded-host.js';
import { startEmbedded } from '../../src/persistence/embedded.js';

const [dir, run] = process.argv.slice(2) as [string, string];
const runStart = processStart(Number(run));
try {
  const pg = await startEmbedded(dir);
  const stop = async () => {
    clearInterval(watch);
    await pg.stop();
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  };
  const watch = setInterval(() => {
    if (processStart(Number(run)) !== runStart) void stop();
  }, 1000);
  process.once('SIGTERM', () => void stop());
  process.once('SIGINT', () => void stop());
} catch (err) {
  writeFileSync(path.join(dir, 'failed'), (err as Error).message);
  process.exit(1);
}
