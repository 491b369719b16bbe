// Markdown rendering on a pool of worker threads (piscina), each render with a time limit: one that runs past it is
// abandoned, its worker terminated and replaced, and the caller gets Zulip's "Unable to render message".
import { Piscina } from 'piscina';
import { errors } from '../errors.js';
import type { RenderContext, RenderResult } from '../markdown/index.js';
import { answerMissed, emptyTables, splitContext, type BatchedLookups, type RenderJob, type RenderReply } from './lookups.js';

export interface RenderPoolOptions {
  /** Worker threads at most (RENDER_THREADS). */
  threads: number;
  /** How long one render may run once a worker has started it (RENDER_TIME_LIMIT_MS; Zulip's is 5 s). */
  timeLimitMs: number;
  /** Renders that may wait for a worker; beyond this a render is refused (503). */
  maxQueue: number;
}

/** The pool a process has until the server configures its own (tests rendering directly). */
export const DEFAULT_RENDER_POOL: RenderPoolOptions = { threads: 2, timeLimitMs: 5_000, maxQueue: 1_000 };

/**
 * Rounds of one render: the first learns which lookups the content needs, the second has their answers. A third
 * (the last) is only for lookups that depend on earlier answers; what it still lacks counts as not found.
 */
const MAX_ROUNDS = 3;

// Node 20 has Atomics.waitAsync; the ES2022 typings do not.
type WaitAsync = (a: Int32Array, index: number, value: number) => { async: true; value: Promise<string> } | { async: false; value: string };
const waitAsync: WaitAsync = (Atomics as unknown as { waitAsync: WaitAsync }).waitAsync;

/** The heap a worker may use; a render that needs more fails like one past its time limit. */
const WORKER_HEAP_MB = 256;

export class RenderPool {
  private readonly pool: Piscina<RenderJob, RenderReply>;
  /** Rounds submitted and not yet settled (running or waiting). */
  private inFlight = 0;

  constructor(private readonly options: RenderPoolOptions = DEFAULT_RENDER_POOL) {
    this.pool = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: 1,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
  }

  /** Renders on a worker, answering its lookups from `ctx` and `batched` between rounds (see lookups.ts). */
  async render(content: string, ctx: RenderContext, batched: BatchedLookups = {}): Promise<RenderResult> {
    const { lookups, data } = splitContext(ctx);
    const tables = emptyTables(lookups, batched);
    for (let round = 1; ; round++) {
      const reply = await this.run({ content, data, tables, final: round === MAX_ROUNDS, started: new SharedArrayBuffer(4) });
      if ('result' in reply) return reply.result;
      await answerMissed(lookups, batched, tables, reply.missed);
    }
  }

  close(): Promise<void> {
    return this.pool.close({ force: true });
  }

  /** One round on a worker; its time limit starts when the worker starts it, not while it waits in the queue. */
  private async run(job: RenderJob): Promise<RenderReply> {
    // Counted here: piscina does not apply its own queue limit to tasks that carry an abort signal.
    if (this.inFlight >= this.options.threads + this.options.maxQueue) throw errors.renderQueueFull();
    this.inFlight++;
    const started = new Int32Array(job.started);
    const abort = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    let settled = false;
    const waiting = waitAsync(started, 0, 0);
    const startClock = () => {
      if (!settled) timer = setTimeout(() => abort.abort(), this.options.timeLimitMs);
    };
    if (waiting.async) void waiting.value.then(startClock);
    else startClock();
    let reply: RenderReply;
    try {
      reply = await this.pool.run(job, { signal: abort.signal });
    } catch {
      // Past the time limit, out of memory, or a bug in the renderer: Zulip answers all of these alike.
      throw errors.renderFailed();
    } finally {
      settled = true;
      this.inFlight--;
      clearTimeout(timer);
      Atomics.notify(started, 0); // wakes the waiter of a job that never started
    }
    // Finished just as its time ran out, before the timer could stop it: past the limit all the same.
    if (reply.ms > this.options.timeLimitMs) throw errors.renderFailed();
    return reply;
  }
}
