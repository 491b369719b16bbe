// Markdown rendering on a pool of worker threads (piscina), each render with a time limit: one that runs past it is
// abandoned, its worker terminated and replaced, and the caller gets Zulip's "Unable to render message".
import { Piscina } from 'piscina';
import { errors } from '../errors.js';
import type { RenderContext, RenderResult } from '../markdown/index.js';
import { Deadlines } from './deadlines.js';
import { linkifiersKey } from './linkifier-keys.js';
import { answerMissed, splitContext, type BatchedLookups, type LookupTables, type RenderJob, type RenderReply } from './lookups.js';

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

/** The heap a worker may use; a render that needs more fails like one past its time limit. */
const WORKER_HEAP_MB = 256;

export class RenderPool {
  private readonly pool: Piscina<RenderJob, RenderReply>;
  /** One slot per round in flight (running or waiting): the queue limit, and each round's time limit. */
  private readonly deadlines: Deadlines;

  constructor(private readonly options: RenderPoolOptions = DEFAULT_RENDER_POOL) {
    this.deadlines = new Deadlines(options.threads + options.maxQueue, options.timeLimitMs);
    this.pool = new Piscina({
      filename: new URL('./worker.js', import.meta.url).href,
      minThreads: 1,
      maxThreads: options.threads,
      idleTimeout: 60_000,
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
      workerData: { starts: this.deadlines.starts.buffer },
    });
  }

  /** Renders on a worker, answering its lookups from `ctx` and `batched` between rounds (see lookups.ts). */
  async render(content: string, ctx: RenderContext, batched: BatchedLookups = {}): Promise<RenderResult> {
    const { lookups, linkifiers, data } = splitContext(ctx);
    const names = [...Object.keys(lookups), ...Object.keys(batched)];
    const tables: LookupTables = {};
    const key = linkifiersKey(linkifiers);
    let sendList = key === 0;
    for (let round = 1; ; ) {
      const job: RenderJob = { content, data, linkifiers: sendList ? { key, list: linkifiers } : { key }, lookups: names, tables, final: round === MAX_ROUNDS, slot: -1 };
      const reply = await this.run(job);
      if ('result' in reply) return reply.result;
      if ('stale' in reply) {
        if (sendList) throw new Error('a render worker refused the linkifiers sent with its job');
        sendList = true; // the same round again, with the list
        continue;
      }
      await answerMissed(lookups, batched, tables, reply.missed);
      round++;
    }
  }

  close(): Promise<void> {
    this.deadlines.close();
    return this.pool.close({ force: true });
  }

  /** One round on a worker; its time limit starts when the worker starts it, not while it waits in the queue. */
  private async run(job: RenderJob): Promise<RenderReply> {
    // Counted here: piscina does not apply its own queue limit to tasks that carry an abort signal.
    const deadline = this.deadlines.take();
    if (!deadline) throw errors.renderQueueFull();
    job.slot = deadline.slot;
    let reply: RenderReply;
    try {
      reply = await this.pool.run(job, { signal: deadline });
    } catch {
      // Past the time limit, out of memory, or a bug in the renderer: Zulip answers all of these alike.
      throw errors.renderFailed();
    } finally {
      this.deadlines.release(deadline);
    }
    // Finished past its time, before a sweep could stop it: past the limit all the same.
    if (reply.ms > this.options.timeLimitMs) throw errors.renderFailed();
    return reply;
  }
}
