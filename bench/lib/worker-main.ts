// A bench worker thread: runs one job from bench/lib/jobs.ts and posts its result.
import { parentPort, workerData } from 'node:worker_threads';
import { JOBS, type JobName } from './jobs.js';

const { job, input, windowed } = workerData as { job: JobName; input: Record<string, unknown>; windowed: boolean };
const handlers: ((m: unknown) => void)[] = [];
parentPort!.on('message', (m) => handlers.forEach((h) => h(m)));
// A job in a load window (runWindowJobs): the window comes once every worker is as far as here.
if (windowed) {
  const window = new Promise<object>((resolve) => handlers.push((m) => (m as { type?: string }).type === 'window' && resolve((m as { window: object }).window)));
  parentPort!.postMessage({ type: 'ready' });
  Object.assign(input, await window);
}
const out = await JOBS[job](input as never, {
  post: (message) => parentPort!.postMessage({ type: 'message', message }),
  onMessage: (h) => handlers.push(h),
});
parentPort!.postMessage({ type: 'done', out });
