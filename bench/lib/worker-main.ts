// A bench worker thread: runs one job from bench/lib/jobs.ts and posts its result.
import { parentPort, workerData } from 'node:worker_threads';
import { JOBS, type JobName } from './jobs.js';

const { job, input } = workerData as { job: JobName; input: unknown };
const handlers: ((m: unknown) => void)[] = [];
parentPort!.on('message', (m) => handlers.forEach((h) => h(m)));
const out = await JOBS[job](input as never, {
  post: (message) => parentPort!.postMessage({ type: 'message', message }),
  onMessage: (h) => handlers.push(h),
});
parentPort!.postMessage({ type: 'done', out });
