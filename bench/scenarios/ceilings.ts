// Ceilings measured in the same run: the HTTP one (a bare uWebSockets.js JSON route loaded by the same client).
import { spawn } from 'node:child_process';
import type { GetInput } from '../lib/jobs.js';
import { nowAbs, runJobs, slices } from '../lib/workers.js';

export interface HttpCeiling {
  requestsPerSecond: number;
  concurrency: number;
  seconds: number;
  workers: number;
}

export async function httpCeiling(quick: boolean, workers: number): Promise<HttpCeiling> {
  const child = spawn(process.execPath, ['dist/bench/ceiling-server.js'], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        const m = /listening on (\d+)/.exec(String(c));
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', () => reject(new Error('ceiling server exited')));
    });
    const base = `http://127.0.0.1:${port}`;
    const concurrency = 32;
    const seconds = quick ? 1 : 5;
    // The same load generator as the scenarios: worker threads, 32 keep-alive connections in all.
    const startAt = nowAbs() + 300;
    const endAt = startAt + seconds * 1000;
    const jobs = slices(Array.from({ length: concurrency }, (_, i) => i), workers).map(
      (part): GetInput => ({ base, path: '/ceiling', startAt, endAt, connections: part.map((p) => p.index) }),
    );
    const counts = await runJobs<GetInput, number>('getLoops', jobs).done;
    const done = counts.reduce((a, b) => a + b, 0);
    return { requestsPerSecond: done / seconds, concurrency, seconds, workers: jobs.length };
  } finally {
    child.kill('SIGTERM');
  }
}
