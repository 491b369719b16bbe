// Ceilings measured in the same run: the HTTP one (a bare uWebSockets.js JSON route loaded by the same client).
import { spawn } from 'node:child_process';
import { agentFor, request } from '../lib/client.js';

export interface HttpCeiling {
  requestsPerSecond: number;
  concurrency: number;
  seconds: number;
}

export async function httpCeiling(quick: boolean): Promise<HttpCeiling> {
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
    let done = 0;
    const end = performance.now() + seconds * 1000;
    await Promise.all(
      Array.from({ length: concurrency }, async (_, i) => {
        const agent = agentFor(i);
        while (performance.now() < end) {
          await request(base, 'GET', '/ceiling', { agent });
          done++;
        }
      }),
    );
    return { requestsPerSecond: done / seconds, concurrency, seconds };
  } finally {
    child.kill('SIGTERM');
  }
}
