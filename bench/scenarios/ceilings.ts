// Ceilings measured in the same run: the HTTP one (a bare uWebSockets.js JSON route loaded by the same client), and the
// child process they run in (fanout's WebSocket floor uses it too).
import { spawn } from 'node:child_process';
import type { GetInput } from '../lib/jobs.js';
import { runWindowJobs, slices } from '../lib/workers.js';

export interface HttpCeiling {
  requestsPerSecond: number;
  concurrency: number;
  seconds: number;
  workers: number;
}

export interface Child {
  base: string;
  pid: number | null;
  stop(): void;
}

/** Starts a bare server script (it prints `<what> listening on PORT`) and resolves once it listens. */
export async function startChild(script: string, what: string, args: string[] = []): Promise<Child> {
  const child = spawn(process.execPath, [script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
  const stop = () => void child.kill('SIGTERM');
  try {
    const port = await new Promise<number>((resolve, reject) => {
      child.stdout.on('data', (c: Buffer) => {
        const m = new RegExp(`${what} listening on (\\d+)`).exec(String(c));
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', () => reject(new Error(`${what} server exited`)));
    });
    return { base: `http://127.0.0.1:${port}`, pid: child.pid ?? null, stop };
  } catch (err) {
    stop();
    throw err;
  }
}

export async function httpCeiling(quick: boolean, workers: number): Promise<HttpCeiling> {
  const child = await startChild('dist/bench/ceiling-server.js', 'ceiling');
  try {
    const base = child.base;
    const concurrency = 32;
    const seconds = quick ? 1 : 5;
    // The same load generator as the scenarios: worker threads, 32 keep-alive connections in all.
    const jobs = slices(Array.from({ length: concurrency }, (_, i) => i), workers).map((part) => ({ base, path: '/ceiling', connections: part.map((p) => p.index) }));
    const counts = await runWindowJobs<GetInput, number>('getLoops', jobs, seconds).done;
    const done = counts.reduce((a, b) => a + b, 0);
    return { requestsPerSecond: done / seconds, concurrency, seconds, workers: jobs.length };
  } finally {
    child.stop();
  }
}
