// This process's live event queues: creates queue actors, hands routed events to a user's queues, sweeps them for
// heartbeats and expiry from one interval, forgets expired ones, and dumps/restores them across a restart.
import { randomUUID } from 'node:crypto';
import { createActor, type Actor } from 'xstate';
import {
  eventQueueMachine,
  sweepDue,
  type ClientEvent,
  type DeliverEmitted,
  type EventQueueEmitted,
  type EventQueueInput,
  type ExpiredEmitted,
  type PollHandle,
  type QueueFilter,
  type RejectedEmitted,
  type ReleasedEmitted,
} from '../actors/event-queue.machine.js';
import { dumpQueue, restoreQueue, type RestoredQueueInput } from './queue-dump.js';

export type QueueActor = Actor<typeof eventQueueMachine>;

export type QueueOptions = Pick<
  EventQueueInput,
  'maxEvents' | 'heartbeatMs' | 'idleTimeoutMs' | 'filter' | 'registration' | 'lastEventId'
>;

/** What the registry announces: the machine's emissions, plus an expiry with reason 'error' when a queue actor crashed. */
export type RegistryExpired = Omit<ExpiredEmitted, 'reason'> & { reason: ExpiredEmitted['reason'] | 'error' };
export interface RegistryEvents {
  deliver: DeliverEmitted;
  rejected: RejectedEmitted;
  expired: RegistryExpired;
  released: ReleasedEmitted;
}

export interface RegistryOptions {
  /** Milliseconds clock handed to every queue. */
  now?: () => number;
  /** Names this process in queue ids (`<tag>:<uuid>`), so a proxy or the bus can route GET /events. */
  processTag?: string;
  /** How often start()'s interval sweeps; heartbeats arrive up to this much after heartbeatMs. */
  sweepIntervalMs?: number;
  /** Defaults for every queue this registry creates. */
  defaults?: Pick<QueueOptions, 'maxEvents' | 'heartbeatMs' | 'idleTimeoutMs'>;
  /** Where a throwing listener's error goes (listeners run inside the actor's step and must not break it). */
  onListenerError?: (error: unknown) => void;
}

export const SWEEP_INTERVAL_MS = 5_000;

type Listeners = { [K in keyof RegistryEvents]: Set<(e: RegistryEvents[K]) => void> };

export class QueueRegistry {
  private readonly queues = new Map<string, QueueActor>();
  private readonly users = new Map<number, Set<QueueActor>>();
  private readonly listeners: Listeners = { deliver: new Set(), rejected: new Set(), expired: new Set(), released: new Set() };
  private readonly now: () => number;
  private readonly tag: string;
  private readonly options: RegistryOptions;
  private timer: NodeJS.Timeout | null = null;

  constructor(options: RegistryOptions = {}) {
    this.options = options;
    this.now = options.now ?? Date.now;
    this.tag = options.processTag ?? '0';
  }

  get size(): number {
    return this.queues.size;
  }

  /** Registers a new queue for a user and returns its id. */
  create(userId: number, realmId: number, opts: QueueOptions = {}): string {
    const queueId = `${this.tag}:${randomUUID()}`;
    this.spawn({ ...this.options.defaults, ...opts, queueId, userId, realmId, now: this.now });
    return queueId;
  }

  /** The queue's actor; with `userId`, only if that user owns it (anything else is BAD_EVENT_QUEUE_ID to a client). */
  get(queueId: string, userId?: number): QueueActor | undefined {
    const actor = this.queues.get(queueId);
    if (!actor || (userId !== undefined && actor.getSnapshot().context.userId !== userId)) return undefined;
    return actor;
  }

  /** Every live queue actor (operators' inspection). */
  actors(): IterableIterator<QueueActor> {
    return this.queues.values();
  }

  byUser(userId: number): QueueActor[] {
    return [...(this.users.get(userId) ?? [])];
  }

  /** Hands events to every queue of these users, all in one send per queue; returns how many queues got them. */
  enqueue(userIds: Iterable<number>, events: ClientEvent | readonly ClientEvent[]): number {
    const batch = Array.isArray(events) ? (events as readonly ClientEvent[]) : [events as ClientEvent];
    if (batch.length === 0) return 0;
    const message = { type: 'ENQUEUE' as const, events: batch };
    let sent = 0;
    for (const userId of new Set(userIds)) {
      const queues = this.users.get(userId);
      if (!queues) continue;
      // A copy: a queue that overflows leaves the set while we walk it.
      for (const actor of [...queues]) {
        actor.send(message);
        sent++;
      }
    }
    return sent;
  }

  /** GET /events: false when the user has no such queue. The answer arrives as 'deliver' or 'rejected'. */
  poll(queueId: string, userId: number, poll: { handle: PollHandle; lastEventId: number; dontBlock: boolean }): boolean {
    const actor = this.get(queueId, userId);
    actor?.send({ type: 'POLL', ...poll });
    return actor !== undefined;
  }

  /** The client behind a parked poll went away. */
  abort(queueId: string, handle: PollHandle): void {
    this.queues.get(queueId)?.send({ type: 'ABORT', handle });
  }

  /** A WebSocket opens on the queue (see queue-sockets.ts): false when the user has no such queue. The events after
   *  lastEventId arrive as 'deliver' to `handle`, or a refused lastEventId as 'rejected'. */
  attach(queueId: string, userId: number, handle: PollHandle, lastEventId: number): boolean {
    const actor = this.get(queueId, userId);
    actor?.send({ type: 'ATTACH', handle, lastEventId });
    return actor !== undefined;
  }

  /** The socket's client acknowledged events up to lastEventId. */
  ack(queueId: string, handle: PollHandle, lastEventId: number): void {
    this.queues.get(queueId)?.send({ type: 'ACK', handle, lastEventId });
  }

  /** The socket closed. */
  detach(queueId: string, handle: PollHandle): void {
    this.queues.get(queueId)?.send({ type: 'DETACH', handle });
  }

  /** DELETE /events: false when the user has no such queue. */
  delete(queueId: string, userId?: number): boolean {
    const actor = this.get(queueId, userId);
    actor?.send({ type: 'DELETE' });
    return actor !== undefined;
  }

  /** Sends SWEEP to the queues it would change (heartbeat due, or idle too long); returns how many. */
  sweep(now: number = this.now()): number {
    let swept = 0;
    for (const actor of [...this.queues.values()]) {
      if (!sweepDue(actor.getSnapshot(), now)) continue;
      actor.send({ type: 'SWEEP', now });
      swept++;
    }
    return swept;
  }

  /** Starts the periodic sweep (one interval for all queues; it does not keep the process alive). */
  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => this.sweep(), this.options.sweepIntervalMs ?? SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  /** Stops the sweep and every queue actor without expiring them (dump first to keep them). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const actors = [...this.queues.values()];
    this.queues.clear();
    this.users.clear();
    for (const actor of actors) actor.stop();
  }

  on<K extends keyof RegistryEvents>(type: K, listener: (e: RegistryEvents[K]) => void): () => void {
    const set = this.listeners[type] as Set<(e: RegistryEvents[K]) => void>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Every live queue, one buffer each (see queue-dump.ts). */
  dump(): Buffer[] {
    return [...this.queues.values()].map((actor) => dumpQueue(actor.getSnapshot()));
  }

  /**
   * Recreates dumped queues under their old ids. `filterFor` rebuilds a queue's filter from its registration.
   * A buffer that does not decode, or names a queue already live, is skipped and counted as failed.
   */
  restore(
    buffers: Iterable<Uint8Array>,
    filterFor?: (queue: RestoredQueueInput) => QueueFilter | undefined,
  ): { restored: number; failed: number } {
    let restored = 0;
    let failed = 0;
    for (const buf of buffers) {
      let input: RestoredQueueInput;
      try {
        input = restoreQueue(buf);
      } catch {
        failed++;
        continue;
      }
      if (this.queues.has(input.queueId)) {
        failed++;
        continue;
      }
      const filter = filterFor?.(input);
      this.spawn({ ...input, now: this.now, ...(filter ? { filter } : {}) });
      restored++;
    }
    return { restored, failed };
  }

  private spawn(input: EventQueueInput): void {
    const actor = createActor(eventQueueMachine, { id: `queue:${input.queueId}`, input });
    actor.on('*', this.relay);
    // A crashed queue (a throwing filter, say) must not hang its client or stay in the maps.
    actor.subscribe({ error: () => this.crashed(input) });
    this.queues.set(input.queueId, actor);
    let set = this.users.get(input.userId);
    if (!set) this.users.set(input.userId, (set = new Set()));
    set.add(actor);
    actor.start();
  }

  private forget(queueId: string, userId: number): void {
    const actor = this.queues.get(queueId);
    if (!actor) return;
    this.queues.delete(queueId);
    const set = this.users.get(userId);
    set?.delete(actor);
    if (set?.size === 0) this.users.delete(userId);
  }

  private crashed(input: EventQueueInput): void {
    if (!this.queues.has(input.queueId)) return;
    this.forget(input.queueId, input.userId);
    this.publish({ type: 'expired', queueId: input.queueId, userId: input.userId, realmId: input.realmId, reason: 'error' });
  }

  /** One function shared by every queue actor, so a queue costs no closure. */
  private readonly relay = (e: EventQueueEmitted): void => {
    if (e.type === 'expired') this.forget(e.queueId, e.userId);
    this.publish(e);
  };

  private publish(e: EventQueueEmitted | RegistryExpired): void {
    for (const listener of this.listeners[e.type] as Set<(e: EventQueueEmitted | RegistryExpired) => void>) {
      try {
        listener(e);
      } catch (error) {
        (this.options.onListenerError ?? console.error)(error);
      }
    }
  }
}
