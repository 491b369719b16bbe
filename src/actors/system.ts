// The actor system: every long-lived actor of this process is started, found and stopped here. Keepers (the realm
// directory, presence sessions, scheduled delivery) start their actors through it and register how they stop; the
// event-queue registry, whose queues are plain records, registers its stop too. One-off jobs (a topic deletion) run
// through it. Operators list its actors; shutdown stops them phase by phase.
import { createActor, type Actor, type ActorOptions, type AnyActorLogic, type AnyActorRef, type OutputFrom } from 'xstate';
import { errors } from '../errors.js';

/** Shutdown's phases, earliest first: a phase starts once every keeper of the one before it has stopped. */
export const STOP_PHASE = {
  /** Whatever sends commands to the realm actors (presence flush, deliveries, retention, jobs, mail, webhooks). */
  feeders: 1,
  /** The realm actors, after their in-flight writes. */
  realms: 2,
  /** Cluster mode (src/cluster/): once the realms' last writes were replicated, leases given up and NATS drained. */
  cluster: 3,
  /** Event queues, saved once the realms' last events reached them. */
  queues: 4,
} as const;

export type StopPhase = (typeof STOP_PHASE)[keyof typeof STOP_PHASE];

export type CreateOptions<L extends AnyActorLogic> = ActorOptions<L> & {
  /** Unique among this system's actors: `<kind>:<key>` (`queue:<queue id>`, `session:<realm>:<user>`). */
  id: string;
  /** When shutdown stops the actor if its keeper has not (after its phase's keepers); last when omitted. */
  stopPhase?: StopPhase;
};

/** What creates long-lived actors: handed to the keepers. */
export interface ActorHost {
  /** `createActor`, with the actor registered: the keeper attaches its listeners, then starts it. */
  create<L extends AnyActorLogic>(logic: L, options: CreateOptions<L>): Actor<L>;
}

/** What routes and services may ask of the system: run a one-off job to its end. */
export interface ActorJobs {
  /**
   * Starts a job actor (its id is `options.id` with a sequence number appended), resolves with its output once it
   * reaches a final state; rejects with its error, or as unavailable when shutdown stopped it first.
   */
  run<L extends AnyActorLogic>(logic: L, options: CreateOptions<L>): Promise<OutputFrom<L>>;
}

/** A keeper's part in shutdown. */
export interface Keeper {
  /** For the log: `presence sessions`. */
  name: string;
  phase: StopPhase;
  /** Stops what it keeps; `timeoutMs` bounds any wait for actors to finish their work. */
  stop(timeoutMs: number): Promise<void> | void;
}

interface Entry {
  actor: AnyActorRef;
  phase: number;
}

export interface ActorSystemOptions {
  /** An actor failed (its keeper may report it too); XState would otherwise throw it out of the event loop. */
  onActorError?: (id: string, error: unknown) => void;
  /** A keeper's stop threw; shutdown carries on with the others. */
  onStopError?: (keeper: string, error: unknown) => void;
}

export class ActorSystem implements ActorHost, ActorJobs {
  private readonly running = new Map<string, Entry>();
  private readonly keepers: Keeper[] = [];
  private readonly creationListeners = new Set<(actor: AnyActorRef) => void>();
  private jobs = 0;
  private stopping = false;

  constructor(private readonly options: ActorSystemOptions = {}) {}

  create<L extends AnyActorLogic>(logic: L, options: CreateOptions<L>): Actor<L> {
    const { stopPhase, ...actorOptions } = options;
    if (this.stopping) throw errors.shuttingDown();
    // An actor that ended is still listed until the end of the step that ended it (see `forget`); its id is free.
    if (this.running.get(options.id)?.actor.getSnapshot().status === 'active') throw new Error(`actor ${options.id} is already running`);
    const actor = createActor(logic, actorOptions as ActorOptions<L>) as Actor<L>;
    const entry: Entry = { actor, phase: stopPhase ?? Number.POSITIVE_INFINITY };
    this.running.set(options.id, entry);
    // XState tells `complete` and `error` observers before its inspection observers get the final snapshot: the
    // actor is forgotten once that step is over, so whoever sees it end (operators) can still look it up.
    const forget = () =>
      queueMicrotask(() => {
        if (this.running.get(options.id) === entry) this.running.delete(options.id);
      });
    actor.subscribe({
      complete: forget,
      error: (err) => {
        forget();
        this.options.onActorError?.(options.id, err);
      },
    });
    for (const listener of this.creationListeners) listener(actor);
    return actor;
  }

  run<L extends AnyActorLogic>(logic: L, options: CreateOptions<L>): Promise<OutputFrom<L>> {
    const id = `${options.id}:${++this.jobs}`;
    return new Promise((resolve, reject) => {
      const actor = this.create(logic, { stopPhase: STOP_PHASE.feeders, ...options, id });
      const settle = () => {
        const snap = actor.getSnapshot() as { status: string; output?: unknown };
        if (snap.status === 'done') resolve(snap.output as OutputFrom<L>);
        else reject(errors.shuttingDown());
      };
      actor.subscribe({ complete: settle, error: reject });
      actor.start();
    });
  }

  /** Calls `listener` with each actor created from now on, before it starts (operators watching); returns the unsubscribe. */
  onCreate(listener: (actor: AnyActorRef) => void): () => void {
    this.creationListeners.add(listener);
    return () => this.creationListeners.delete(listener);
  }

  /** Registers a keeper's stop; shutdown calls it in its phase. */
  keep(keeper: Keeper): void {
    this.keepers.push(keeper);
  }

  /** The running top-level actors (children are found through their parents' snapshots). */
  *actors(): IterableIterator<AnyActorRef> {
    for (const e of this.running.values()) yield e.actor;
  }

  /** A running top-level actor by id. */
  get(id: string): AnyActorRef | undefined {
    return this.running.get(id)?.actor;
  }

  get size(): number {
    return this.running.size;
  }

  /**
   * Shutdown: phase by phase, earliest first, the phase's keepers stop (together), then its actors that are still
   * running; what is left (actors without a phase) stops last. No actor can be started meanwhile.
   */
  async stop(timeoutMs: number): Promise<void> {
    this.stopping = true;
    const phases = [...new Set(this.keepers.map((k) => k.phase))].sort((a, b) => a - b);
    for (const phase of phases) {
      await Promise.all(
        this.keepers
          .filter((k) => k.phase === phase)
          .map(async (k) => {
            try {
              await k.stop(timeoutMs);
            } catch (err) {
              this.options.onStopError?.(k.name, err);
            }
          }),
      );
      this.stopRunning((e) => e.phase <= phase);
    }
    this.stopRunning(() => true);
  }

  private stopRunning(which: (e: Entry) => boolean): void {
    for (const [id, e] of [...this.running]) {
      if (!which(e)) continue;
      e.actor.stop();
      this.running.delete(id); // one never started is not completed by stop()
    }
  }
}
