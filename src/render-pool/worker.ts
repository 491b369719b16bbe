// The render pool's worker thread: renders one job with the lookups its tables answer (see lookups.ts), after
// stamping its start in the pool's shared table (deadlines.ts, the shared buffer is the worker's workerData).
import { workerData } from 'node:worker_threads';
import { renderMarkdown } from '../markdown/index.js';
import { stampDone, stampStart } from './deadlines.js';
import { LinkifierCache } from './linkifier-keys.js';
import { tableContext, type MissedKeys, type RenderJob, type RenderReply } from './lookups.js';

const starts = new BigInt64Array((workerData as { starts: SharedArrayBuffer }).starts);
const linkifierLists = new LinkifierCache();

export default function render(job: RenderJob): RenderReply {
  stampStart(starts, job.slot);
  const linkifiers = linkifierLists.resolve(job.linkifiers);
  if (!linkifiers) {
    stampDone(starts, job.slot);
    return { stale: true, ms: 0 };
  }
  const began = performance.now();
  const missed: MissedKeys = {};
  const result = renderMarkdown(job.content, tableContext(job, linkifiers, missed));
  const ms = performance.now() - began;
  stampDone(starts, job.slot); // past its limit or not, `ms` says (the pool checks it)
  return Object.keys(missed).length > 0 ? { missed, ms } : { result, ms };
}
