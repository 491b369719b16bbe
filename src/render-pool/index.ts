// The process's render pool: one per process (worker threads are a process-wide resource, like libuv's pool),
// started on first use with the options the server configured.
import type { RenderContext, RenderResult } from '../markdown/index.js';
import type { BatchedLookups } from './lookups.js';
import { DEFAULT_RENDER_POOL, RenderPool, type RenderPoolOptions } from './pool.js';

export { RenderPool, type RenderPoolOptions } from './pool.js';
export type { BatchedLookups } from './lookups.js';

let options: RenderPoolOptions = DEFAULT_RENDER_POOL;
let pool: RenderPool | null = null;

/** Sets the options of the pool (a pool started with other options is replaced). */
export function configureRenderPool(next: RenderPoolOptions): void {
  if (pool && JSON.stringify(next) !== JSON.stringify(options)) {
    void pool.close();
    pool = null;
  }
  options = next;
}

/**
 * Renders Markdown off the event loop, within the time limit (the promise rejects with ApiError "Unable to render
 * message"); lookups in `batched` are answered asynchronously, once per round (see lookups.ts). Short plain text
 * needs no worker: a caller answers it first with markdown/plain.ts, before it builds the context.
 */
export function renderOffLoop(content: string, ctx: RenderContext, batched?: BatchedLookups): Promise<RenderResult> {
  pool ??= new RenderPool(options);
  return pool.render(content, ctx, batched);
}
