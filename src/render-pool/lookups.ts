// Render jobs for worker threads. A RenderContext's synchronous lookups (users, groups, channels, emoji, and any the
// renderer gains) cannot cross into a worker, so each becomes a table of answers sent with the job: the worker
// records the keys its tables lack, the main thread answers them from the realm's memory (or, for a batched lookup,
// with one asynchronous call per round, e.g. a database query), and the job runs again. A job carries only what
// changes per render: the content, the lookups' names and the answers known so far (no empty tables), the small
// plain values, and the linkifiers by key (linkifier-keys.ts).
import type { RenderContext, RenderResult } from '../markdown/index.js';
import type { LinkifiersRef } from './linkifier-keys.js';

type Lookup = (key: unknown) => unknown;

/** Answers per lookup name, key → value (`undefined`: known to have none); a lookup with no answers yet has none. */
export type LookupTables = Record<string, Map<unknown, unknown>>;

/** Keys per lookup name that a render asked for and its tables lacked. */
export type MissedKeys = Record<string, unknown[]>;

/**
 * Lookups answered asynchronously, all of a round's keys in one call (`undefined` or absent: none). The renderer
 * sees them as synchronous lookups of the same name, like the context's own.
 */
export type BatchedLookups = Record<string, (keys: unknown[]) => Promise<Map<unknown, unknown>>>;

export interface RenderJob {
  content: string;
  /** The context's plain values but the linkifiers (realmUrl, …): sent as they are. */
  data: Record<string, unknown>;
  linkifiers: LinkifiersRef;
  /** The names of the context's lookups (and the batched ones). */
  lookups: string[];
  tables: LookupTables;
  /** The last round: keys still lacking are answered "none" instead of being recorded. */
  final: boolean;
  /** The job's slot in the pool's shared table of start times (deadlines.ts); set when it is submitted. */
  slot: number;
}

/** A round's outcome (`stale`: the worker lacks the job's linkifiers), and how long the worker spent rendering (ms). */
export type RenderReply = ({ result: RenderResult } | { missed: MissedKeys } | { stale: true }) & { ms: number };

/** Splits a context into its lookups (every function), its linkifiers and its other plain values. */
export function splitContext(ctx: RenderContext): {
  lookups: Record<string, Lookup>;
  linkifiers: RenderContext['linkifiers'];
  data: Record<string, unknown>;
} {
  const lookups: Record<string, Lookup> = {};
  const data: Record<string, unknown> = {};
  for (const name in ctx) {
    const value = (ctx as unknown as Record<string, unknown>)[name];
    if (typeof value === 'function') lookups[name] = value as Lookup;
    else if (name !== 'linkifiers') data[name] = value;
  }
  return { lookups, linkifiers: ctx.linkifiers, data };
}

/**
 * Answers the keys a round lacked: from the real lookups (on the main thread, where the realm's memory is), and
 * from each batched lookup in one call, awaited together.
 */
export async function answerMissed(lookups: Record<string, Lookup>, batched: BatchedLookups, tables: LookupTables, missed: MissedKeys): Promise<void> {
  const pending: Promise<void>[] = [];
  for (const [name, keys] of Object.entries(missed)) {
    const lookup = lookups[name];
    const batch = batched[name];
    if (!lookup && !batch) continue;
    const table = (tables[name] ??= new Map());
    if (lookup) for (const key of keys) table.set(key, lookup(key));
    else if (batch) pending.push(batch(keys).then((answers) => keys.forEach((key) => table.set(key, answers.get(key)))));
  }
  await Promise.all(pending);
}

/** The worker's side: a context whose lookups read the job's tables and note what they lack into `missed`. */
export function tableContext(job: RenderJob, linkifiers: RenderContext['linkifiers'], missed: MissedKeys): RenderContext {
  const ctx: Record<string, unknown> = { ...job.data, linkifiers };
  for (const name of job.lookups) {
    const table = (job.tables[name] ??= new Map());
    ctx[name] = (key: unknown) => {
      if (table.has(key)) return table.get(key);
      if (!job.final) {
        const keys = (missed[name] ??= []);
        keys.push(key);
      }
      table.set(key, undefined); // asked once per round
      return undefined;
    };
  }
  return ctx as unknown as RenderContext;
}
