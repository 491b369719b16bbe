// The realm's linkifier list crosses to a worker once per worker and version, then only its key. The realm replaces
// its list when its linkifiers change and never edits one in place (realm/messages/linkifiers.ts), so a list's
// identity is its version: a new list gets a new key, and a worker that lacks a key asks for the list again.
import type { RenderContext } from '../markdown/index.js';

type Linkifiers = RenderContext['linkifiers'];

/** How a job names its linkifiers: the key, and the list itself when the worker may lack it (key 0: none). */
export interface LinkifiersRef {
  key: number;
  list?: Linkifiers;
}

const keys = new WeakMap<Linkifiers, number>();
let nextKey = 1;

/** The main thread's key of a list (0 for an empty one, which always travels as it is). */
export function linkifiersKey(list: Linkifiers): number {
  if (list.length === 0) return 0;
  let key = keys.get(list);
  if (key === undefined) {
    key = nextKey++;
    keys.set(list, key);
  }
  return key;
}

/** Lists a worker keeps, the most recently received first to stay. */
export const WORKER_LINKIFIER_LISTS = 64;

/** The worker's side: the lists it was sent, by key, at most WORKER_LINKIFIER_LISTS of them. */
export class LinkifierCache {
  private readonly lists = new Map<number, Linkifiers>();

  /** The job's list (remembered when it came with the job), or undefined when the worker lacks it. */
  resolve(ref: LinkifiersRef): Linkifiers | undefined {
    if (ref.list) {
      if (ref.key !== 0) this.remember(ref.key, ref.list);
      return ref.list;
    }
    return this.lists.get(ref.key);
  }

  private remember(key: number, list: Linkifiers): void {
    this.lists.delete(key);
    this.lists.set(key, list);
    if (this.lists.size > WORKER_LINKIFIER_LISTS) this.lists.delete(this.lists.keys().next().value!);
  }
}
