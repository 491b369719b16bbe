// A process's copy of the realms it does not own: the owners' committed batches applied once each, in commit order.
// A batch is applied unless this process already has it: the same batch delivered twice (its number under the
// owner's epoch says so), or a batch whose transaction committed before the snapshot the working set was loaded in
// (RealmState.loadedAt). A working set loaded while batches arrived gets those its snapshot misses.
import type { RealmEvent } from '../bus/events.js';
import type { Logger } from '../log.js';
import { committedBefore } from '../persistence/snapshots.js';
import type { CommandRegistry } from '../realm/commands.js';
import type { RealmState } from '../realm/state.js';
import type { PublishedBatch } from './owners.js';

/**
 * The batches kept per realm for a working set being loaded (see Replica.loaded): those of the last RECENT_MS (a
 * load started earlier would have read the older ones), at most RECENT_BATCHES.
 */
export const RECENT_BATCHES = 512;
export const RECENT_MS = 30_000;

/** Where a realm's batches are in this process: the owner's epoch and the last batch number taken. */
export interface Position {
  epoch: number;
  seq: number;
}

export interface ReplicaDeps {
  commands: CommandRegistry;
  log: Logger;
  /** The realm's working set here, if loaded. */
  stateIfLoaded(realmId: number): RealmState | undefined;
  /** Loads the realm again from the database (its copy here is not to be trusted). */
  reload(realmId: number): Promise<void>;
  /** Events for this process's queues; `readBy`: their commit, when the realm's working set here was loaded after it
   *  (a queue registered on that working set shows them already). */
  deliver(realmId: number, events: RealmEvent[], readBy?: string): void;
  /** Events were missed: the realm's queues here end. */
  dropRealm(realmId: number): void;
  /** The clock batches are kept by (ms); performance.now by default. */
  now?: () => number;
}

/** What became of a batch. */
export type Outcome = 'applied' | 'held' | 'duplicate' | 'former-owner' | 'reload';

interface Recent {
  batches: { b: PublishedBatch; at: number }[];
  /** The commit of the newest batch pushed out of `batches`: a load whose snapshot misses it must load again. */
  evicted: string | null;
}

export class Replica {
  private readonly seen = new Map<number, Position>();
  private readonly recent = new Map<number, Recent>();

  private readonly now: () => number;

  constructor(private readonly deps: ReplicaDeps) {
    this.now = deps.now ?? (() => performance.now());
  }

  /** Drops the kept batches older than the window, also of realms no batch arrived for since (called on a timer). */
  sweep(): void {
    const now = this.now();
    for (const recent of this.recent.values()) prune(recent, now);
  }

  /** Batches kept for loads under way, over every realm. */
  kept(): number {
    let n = 0;
    for (const recent of this.recent.values()) n += recent.batches.length;
    return n;
  }

  position(realmId: number): Position | undefined {
    return this.seen.get(realmId);
  }

  /** Whether this process took the realm's batches at least up to `at`. */
  reached(realmId: number, at: Position): boolean {
    const seen = this.seen.get(realmId);
    return seen !== undefined && (seen.epoch > at.epoch || (seen.epoch === at.epoch && seen.seq >= at.seq));
  }

  /**
   * A batch the realm's owner committed. Its events go to the queues here unless it was taken before; `ready`
   * settles once the working set here holds it (after a reload, when one was needed).
   */
  receive(realmId: number, b: PublishedBatch): { outcome: Outcome; ready: Promise<void> } {
    const ready = Promise.resolve();
    const last = this.seen.get(realmId);
    if (last && b.epoch === last.epoch && b.seq <= last.seq) return { outcome: 'duplicate', ready };
    if (last && b.epoch < last.epoch) {
      // A former owner's batch arriving after its successor's: committed before the takeover, which reloaded.
      this.deps.deliver(realmId, b.events, this.readBy(realmId, b));
      return { outcome: 'former-owner', ready };
    }
    let reload = last !== undefined && b.epoch > last.epoch;
    if (last && b.epoch === last.epoch && b.seq !== last.seq + 1) {
      this.deps.log.warn({ realmId, epoch: b.epoch, expected: last.seq + 1, got: b.seq }, 'realm batches missed: reloading, ending its queues here');
      reload = true;
      this.deps.dropRealm(realmId);
    }
    this.seen.set(realmId, { epoch: b.epoch, seq: b.seq });
    this.remember(realmId, b);
    const state = this.deps.stateIfLoaded(realmId);
    if (state && !reload && !this.apply(realmId, state, b)) reload = true;
    this.deps.deliver(realmId, b.events, this.readBy(realmId, b));
    if (!state) return { outcome: 'held', ready };
    if (!reload) return { outcome: 'applied', ready };
    return { outcome: 'reload', ready: this.deps.reload(realmId).catch(() => undefined) };
  }

  /**
   * A working set of the realm just loaded, before anything reads it: the batches received meanwhile that its
   * snapshot does not hold are applied to it. False when it cannot be brought up to date (load it again).
   */
  loaded(realmId: number, state: RealmState): boolean {
    const recent = this.recent.get(realmId);
    if (!recent || state.loadedAt === null) return true;
    prune(recent, this.now());
    if (recent.evicted !== null && !committedBefore(recent.evicted, state.loadedAt)) return false;
    for (const { b } of recent.batches) if (!this.apply(realmId, state, b)) return false;
    return true;
  }

  /** The batch's commit when the working set here was loaded after it, else undefined. */
  private readBy(realmId: number, b: PublishedBatch): string | undefined {
    const loadedAt = this.deps.stateIfLoaded(realmId)?.loadedAt ?? null;
    return b.commitId != null && loadedAt !== null && committedBefore(b.commitId, loadedAt) ? b.commitId : undefined;
  }

  /** Applies a batch's results unless the working set's snapshot already holds them; false when one cannot be. */
  private apply(realmId: number, state: RealmState, b: PublishedBatch): boolean {
    if (b.commitId != null && state.loadedAt !== null && committedBefore(b.commitId, state.loadedAt)) return true;
    for (const [kind, value] of b.applied) {
      const def = this.deps.commands[kind];
      if (value === null || !def?.apply) return false;
      try {
        def.apply(state, value);
      } catch (err) {
        this.deps.log.warn({ realmId, kind, err }, 'replicated result not applicable: reloading');
        return false;
      }
    }
    return true;
  }

  /** Keeps the latest batches of the realm for a load under way (only those with a commit to tell them by). */
  private remember(realmId: number, b: PublishedBatch): void {
    let recent = this.recent.get(realmId);
    if (!recent) this.recent.set(realmId, (recent = { batches: [], evicted: null }));
    if (b.commitId == null) return;
    const now = this.now();
    recent.batches.push({ b, at: now });
    prune(recent, now);
  }
}

/** Drops the batches past RECENT_BATCHES or older than RECENT_MS, remembering the newest dropped commit. */
function prune(recent: Recent, now: number): void {
  const { batches } = recent;
  while (batches.length > RECENT_BATCHES || (batches.length > 0 && now - batches[0]!.at > RECENT_MS)) recent.evicted = batches.shift()!.b.commitId;
}
