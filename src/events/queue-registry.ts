// This process's live event queues: creates them (plain records, event-queue.ts), hands routed events to a user's
// queues, sweeps them for heartbeats and expiry from one interval, forgets expired ones, dumps/restores them across a
// restart, and shows them to operators as actors of kind `eventQueue` (state changes reported only while watched).
import { randomUUID } from 'node:crypto';
import {
  EventQueue,
  type ClientEvent,
  type DeliverEmitted,
  type EventQueueEmitted,
  type EventQueueInput,
  type ExpiredEmitted,
  type PollHandle,
  type QueueCause,
  type QueueFilter,
  type QueueHost,
  type QueueState,
  type RejectedEmitted,
  type ReleasedEmitted,
} from './event-queue.js';
import { dumpQueue, restoreQueue, type RestoredQueueInput } from './queue-dump.js';

export type QueueOptions = Pick<
  EventQueueInput,
  'maxEvents' | 'heartbeatMs' | 'idleTimeoutMs' | 'filter' | 'registration' | 'lastEventId'
>;

/** What the registry announces: the queues' emissions (an expiry with reason 'error' when a queue's filter threw). */
export type RegistryExpired = ExpiredEmitted;
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
  /** Where a throwing listener's error goes (listeners run inside a queue's step and must not break it). */
  onListenerError?: (error: unknown) => void;
}

/** A queue's state change as operators' watchers see it (`from` null: the queue was just made). */
export type QueueWatcher = (queue: EventQueue, from: QueueState | null, cause: QueueCause | '') => void;

export const SWEEP_INTERVAL_MS = 5_000;

type Listeners = { [K in keyof RegistryEvents]: Set<(e: RegistryEvents[K]) => void> };

export class QueueRegistry implements QueueHost {
  private readonly queues = new Map<string, EventQueue>();
  private readonly users = new Map<number, Set<EventQueue>>();
  private readonly listeners: Listeners = { deliver: new Set(), rejected: new Set(), expired: new Set(), released: new Set() };
  private readonly watchers = new Set<QueueWatcher>();
  private readonly clock: () => number;
  private readonly tag: string;
  private readonly options: RegistryOptions;
  private timer: NodeJS.Timeout | null = null;
  /** Read by every queue on each state change (QueueHost). */
  watched = false;

  constructor(options: RegistryOptions = {}) {
    this.options = options;
    this.clock = options.now ?? Date.now;
    this.tag = options.processTag ?? '0';
  }

  get size(): number {
    return this.queues.size;
  }

  /** Registers a new queue for a user and returns its id. */
  create(userId: number, realmId: number, opts: QueueOptions = {}): string {
    const queueId = `${this.tag}:${randomUUID()}`;
    this.add({ ...this.options.defaults, ...opts, queueId, userId, realmId });
    return queueId;
  }

  /** The queue; with `userId`, only if that user owns it (anything else is BAD_EVENT_QUEUE_ID to a client). */
  get(queueId: string, userId?: number): EventQueue | undefined {
    const queue = this.queues.get(queueId);
    if (!queue || (userId !== undefined && queue.userId !== userId)) return undefined;
    return queue;
  }

  byUser(userId: number): EventQueue[] {
    return [...(this.users.get(userId) ?? [])];
  }

  /** Hands events to every queue of these users, all in one call per queue; returns how many queues got them. */
  enqueue(userIds: Iterable<number>, events: ClientEvent | readonly ClientEvent[]): number {
    const batch = Array.isArray(events) ? (events as readonly ClientEvent[]) : [events as ClientEvent];
    if (batch.length === 0) return 0;
    let sent = 0;
    for (const userId of new Set(userIds)) {
      const queues = this.users.get(userId);
      if (!queues) continue;
      // A copy: a queue that overflows leaves the set while we walk it.
      for (const queue of [...queues]) {
        queue.enqueue(batch);
        sent++;
      }
    }
    return sent;
  }

  /** GET /events: false when the user has no such queue. The answer arrives as 'deliver' or 'rejected'. */
  poll(queueId: string, userId: number, poll: { handle: PollHandle; lastEventId: number; dontBlock: boolean }): boolean {
    const queue = this.get(queueId, userId);
    queue?.poll(poll.handle, poll.lastEventId, poll.dontBlock);
    return queue !== undefined;
  }

  /** The client behind a parked poll went away. */
  abort(queueId: string, handle: PollHandle): void {
    this.queues.get(queueId)?.abort(handle);
  }

  /** A WebSocket opens on the queue (see queue-sockets.ts): false when the user has no such queue. The events after
   *  lastEventId arrive as 'deliver' to `handle`, or a refused lastEventId as 'rejected'. */
  attach(queueId: string, userId: number, handle: PollHandle, lastEventId: number): boolean {
    const queue = this.get(queueId, userId);
    queue?.attach(handle, lastEventId);
    return queue !== undefined;
  }

  /** The socket's client acknowledged events up to lastEventId. */
  ack(queueId: string, handle: PollHandle, lastEventId: number): void {
    this.queues.get(queueId)?.ack(handle, lastEventId);
  }

  /** The socket closed. */
  detach(queueId: string, handle: PollHandle): void {
    this.queues.get(queueId)?.detach(handle);
  }

  /** DELETE /events: false when the user has no such queue. */
  delete(queueId: string, userId?: number): boolean {
    const queue = this.get(queueId, userId);
    queue?.delete();
    return queue !== undefined;
  }

  /** Sweeps the queues it would change (heartbeat due, or idle too long); returns how many. */
  sweep(now: number = this.clock()): number {
    let swept = 0;
    for (const queue of [...this.queues.values()]) {
      if (!queue.sweepDue(now)) continue;
      queue.sweep(now);
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

  /** Stops the sweep and every queue without expiring them (dump first to keep them). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const queues = [...this.queues.values()];
    this.queues.clear();
    this.users.clear();
    for (const queue of queues) {
      const from = queue.state;
      queue.stop();
      if (this.watched) this.changed(queue, from, '');
    }
  }

  on<K extends keyof RegistryEvents>(type: K, listener: (e: RegistryEvents[K]) => void): () => void {
    const set = this.listeners[type] as Set<(e: RegistryEvents[K]) => void>;
    set.add(listener);
    return () => set.delete(listener);
  }

  /** Every live queue, one buffer each (see queue-dump.ts). */
  dump(): Buffer[] {
    return [...this.queues.values()].map((queue) => dumpQueue(queue));
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
      this.add({ ...input, ...(filter ? { filter } : {}) });
      restored++;
    }
    return { restored, failed };
  }

  // Operators (src/operators/actor-directory.ts sees the registry as a source of plain actors).

  /** Every live queue. */
  all(): IterableIterator<EventQueue> {
    return this.queues.values();
  }

  /** The events every live queue holds unacknowledged (handed out in an answer not yet acknowledged, or waiting for a poll). */
  heldEvents(): number {
    let n = 0;
    for (const queue of this.queues.values()) n += queue.size;
    return n;
  }

  /** A live queue by its operators' id, `queue:<queue id>`. */
  find(id: string): EventQueue | undefined {
    return id.startsWith('queue:') ? this.queues.get(id.slice('queue:'.length)) : undefined;
  }

  /** A queue's persisted form: what its dump restores. */
  persisted(queue: EventQueue): unknown {
    return restoreQueue(dumpQueue(queue));
  }

  /** Reports every state change (creation, transitions, the end) to `watcher` until the returned function is called. */
  watch(watcher: QueueWatcher): () => void {
    this.watchers.add(watcher);
    this.watched = true;
    return () => {
      this.watchers.delete(watcher);
      this.watched = this.watchers.size > 0;
    };
  }

  /** QueueHost: the registry's clock. */
  now(): number {
    return this.clock();
  }

  /** QueueHost: a queue changed state while watched. */
  changed(queue: EventQueue, from: QueueState | null, cause: QueueCause | ''): void {
    for (const w of this.watchers) {
      try {
        w(queue, from, cause);
      } catch (error) {
        (this.options.onListenerError ?? console.error)(error);
      }
    }
  }

  /** QueueHost: what a queue emits; an expired queue is forgotten first. */
  emit(e: EventQueueEmitted): void {
    if (e.type === 'expired') this.forget(e.queueId);
    for (const listener of this.listeners[e.type] as Set<(e: EventQueueEmitted) => void>) {
      try {
        listener(e);
      } catch (error) {
        (this.options.onListenerError ?? console.error)(error);
      }
    }
  }

  private add(input: EventQueueInput): void {
    const queue = new EventQueue(this, input);
    this.queues.set(input.queueId, queue);
    let set = this.users.get(input.userId);
    if (!set) this.users.set(input.userId, (set = new Set()));
    set.add(queue);
  }

  private forget(queueId: string): void {
    const queue = this.queues.get(queueId);
    if (!queue) return;
    this.queues.delete(queueId);
    const set = this.users.get(queue.userId);
    set?.delete(queue);
    if (set?.size === 0) this.users.delete(queue.userId);
  }
}
