// The render pool's worker thread: renders one job with the lookups its tables answer (see lookups.ts).
import { renderMarkdown } from '../markdown/index.js';
import { tableContext, type MissedKeys, type RenderJob, type RenderReply } from './lookups.js';

export default function render(job: RenderJob): RenderReply {
  const started = new Int32Array(job.started);
  Atomics.store(started, 0, 1);
  Atomics.notify(started, 0);
  const began = performance.now();
  const missed: MissedKeys = {};
  const result = renderMarkdown(job.content, tableContext(job, missed));
  const ms = performance.now() - began;
  return Object.keys(missed).length > 0 ? { missed, ms } : { result, ms };
}
