// Load generation on worker threads: a job (bench/lib/jobs.ts) runs on each of N workers with its own input,
// so the client side is not one event loop. Jobs may post messages on the way (receipts, progress) and
// receive control messages (stop); their results come back in input order.
import { Worker } from 'node:worker_threads';
import type { JobName } from './jobs.js';

export interface WorkerPool<O> {
  /** Sends a control message to every worker. */
  broadcast(message: unknown): void;
  /** The jobs' results, in input order. */
  done: Promise<O[]>;
}

/** Absolute time in ms, comparable across the threads of this process. */
export function nowAbs(): number {
  return performance.timeOrigin + performance.now();
}

export function runJobs<I, O>(job: JobName, inputs: I[], onMessage: (message: any) => void = () => {}): WorkerPool<O> {
  return startJobs<I, O>(job, inputs, onMessage, null);
}

/** A load window: absolute start and end times (ms, nowAbs()). */
export interface LoadWindow {
  startAt: number;
  endAt: number;
}

/**
 * runJobs for jobs whose load runs in a window of `seconds` (their inputs' startAt and endAt): the window is set once
 * every worker has loaded, and starts `leadMs` later, so that no worker misses part of it (on a loaded machine a
 * worker thread may take more than a second to start); `window` tells it.
 */
export function runWindowJobs<I extends LoadWindow, O>(
  job: JobName,
  inputs: Omit<I, keyof LoadWindow>[],
  seconds: number,
  onMessage: (message: any) => void = () => {},
  leadMs = 50,
): WorkerPool<O> & { window: Promise<LoadWindow> } {
  let set!: (w: LoadWindow) => void;
  const window = new Promise<LoadWindow>((r) => (set = r));
  const pool = startJobs<Omit<I, keyof LoadWindow>, O>(job, inputs, onMessage, () => {
    const startAt = nowAbs() + leadMs;
    const w = { startAt, endAt: startAt + seconds * 1000 };
    set(w);
    return w;
  });
  return { ...pool, window };
}

function startJobs<I, O>(job: JobName, inputs: I[], onMessage: (message: any) => void, windowWhenReady: (() => LoadWindow) | null): WorkerPool<O> {
  const windowed = windowWhenReady !== null;
  const workers = inputs.map((input) => new Worker(new URL('./worker-main.js', import.meta.url), { workerData: { job, input, windowed } }));
  let ready = 0;
  const done = Promise.all(
    workers.map(
      (w) =>
        new Promise<O>((resolve, reject) => {
          w.on('message', (m: { type: string; out?: O; message?: unknown }) => {
            if (m.type === 'done') resolve(m.out as O);
            else if (m.type === 'ready') {
              if (++ready === workers.length) {
                const window = windowWhenReady!();
                for (const x of workers) x.postMessage({ type: 'window', window });
              }
            } else onMessage(m.message);
          });
          w.once('error', reject);
          w.once('exit', (code) => reject(new Error(`bench worker exited (${code}) before finishing`)));
        }),
    ),
  ).finally(() => Promise.all(workers.map((w) => w.terminate())));
  return { broadcast: (message) => workers.forEach((w) => w.postMessage(message)), done };
}

/** Splits items into at most n nearly equal slices, each remembering its items' global indexes. */
export function slices<T>(items: T[], n: number): { index: number; item: T }[][] {
  const count = Math.max(1, Math.min(n, items.length));
  const out: { index: number; item: T }[][] = Array.from({ length: count }, () => []);
  items.forEach((item, index) => out[index % count]!.push({ index, item }));
  return out;
}
