// Admission for requests that build large replies (GET /messages of many messages) or run heavy narrows: a few are
// built at once per server, a bounded number wait their turn, and one user cannot take them all; the rest are shed
// with a 503 the client may retry. Building a 1,000-message reply takes several times its size in heap, so without a
// bound many at once exhaust memory; heavy narrows, without one, take every connection of the database pool.
import type { Config } from '../config.js';
import type { ResolvedTerm } from '../narrow/index.js';
import { errors } from '../errors.js';
import type { Connection } from './respond.js';

/** A fetch asking for more messages than this is a large fetch. */
export const LARGE_FETCH_MESSAGES = 100;
/** A narrow of more terms than this, or with a full-text search, is heavy: its query holds a connection for long. */
export const HEAVY_NARROW_TERMS = 10;
/** Seconds a shed client is told to wait (Retry-After). */
const RETRY_AFTER_S = 2;

export interface SlotLimits {
  /** Held at once. */
  slots: number;
  /** Waiting for one, beyond those held. */
  queue: number;
  /** Held or waiting by one key (a user, or a spectator's address). */
  perUser: number;
}

interface Waiter {
  grant: () => void;
  refuse: () => void;
}

/** A counting semaphore with a bounded wait queue and a per-key cap; `acquire` resolves to the release function. */
export class Slots {
  held = 0;
  private waiting: Waiter[] = [];
  private byKey = new Map<string, number>();
  private closed = false;
  constructor(readonly limits: SlotLimits) {}

  get queued(): number {
    return this.waiting.length;
  }

  /** Shutdown: fetches waiting for a slot are refused, and so is every later one. */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.refuse();
  }

  async acquire(key: string, conn: Connection): Promise<() => void> {
    if (this.closed) throw errors.shuttingDown();
    const mine = this.byKey.get(key) ?? 0;
    if (mine >= this.limits.perUser) {
      throw errors.busy(`Too many large message fetches of yours at once (limit ${this.limits.perUser}); try again shortly`, RETRY_AFTER_S);
    }
    if (this.held >= this.limits.slots && this.waiting.length >= this.limits.queue) {
      throw errors.busy('The server is busy with large message fetches; try again shortly', RETRY_AFTER_S);
    }
    this.byKey.set(key, mine + 1);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      this.leave(key);
      const next = this.waiting.shift();
      if (next) next.grant();
      else this.held--;
    };
    if (this.held < this.limits.slots) {
      this.held++;
      return release;
    }
    // Wait for a slot handed over by a release (held stays the same); a client that goes away leaves the queue.
    await new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        grant: resolve,
        refuse: () => {
          released = true;
          this.leave(key);
          reject(errors.shuttingDown());
        },
      };
      this.waiting.push(waiter);
      conn.onAbort(() => {
        const i = this.waiting.indexOf(waiter);
        if (i < 0) return;
        this.waiting.splice(i, 1);
        released = true;
        this.leave(key);
        reject(errors.clientClosedRequest());
      });
    });
    // Granted after the client went away (the abort came after the hand-over): pass the slot on.
    if (conn.aborted) {
      release();
      throw errors.clientClosedRequest();
    }
    return release;
  }

  /** One fewer held or waiting by `key`. */
  private leave(key: string): void {
    const n = (this.byKey.get(key) ?? 1) - 1;
    if (n === 0) this.byKey.delete(key);
    else this.byKey.set(key, n);
  }
}

const perServer = new WeakMap<Config, Slots>();

/** The large-fetch slots of the server with this configuration. */
function largeFetchSlots(config: Config): Slots {
  let s = perServer.get(config);
  if (!s) perServer.set(config, (s = new Slots(config.largeFetches)));
  return s;
}

/** Shutdown: large fetches and heavy narrows waiting for a slot are refused, and so is every later one (their
 *  queries would otherwise keep the database busy past the shutdown deadline). */
export function closeFetchSlots(config: Config): void {
  largeFetchSlots(config).close();
}

/** Whether a history read needs a slot: many messages, or a heavy narrow. */
export function isLargeFetch(messages: number, narrow: readonly ResolvedTerm[]): boolean {
  return messages > LARGE_FETCH_MESSAGES || narrow.length > HEAVY_NARROW_TERMS || narrow.some((t) => t.op === 'search');
}

/** Runs `build` holding a large-fetch slot when `messages` or `narrow` make it a large fetch. */
export async function withFetchSlot<T>(
  config: Config,
  key: string,
  conn: Connection,
  fetch: { messages: number; narrow: readonly ResolvedTerm[] },
  build: () => Promise<T>,
): Promise<T> {
  if (!isLargeFetch(fetch.messages, fetch.narrow)) return build();
  const release = await largeFetchSlots(config).acquire(key, conn);
  try {
    return await build();
  } finally {
    release();
  }
}
