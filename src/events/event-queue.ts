// One client's event queue: a record of its undelivered events and its single client, a parked long-poll or an open
// WebSocket (queue-sockets.ts). Plain methods called by the registry and the router; no mailbox, no timers, no
// closures of its own. What it has to say (deliver, rejected, released, expired) goes to its host, synchronously,
// after its own state is updated, so a listener that calls back into the queue finds it consistent.
//
//             POLL (nothing newer than its last_event_id)
//   waiting ───────────────────────────────────────────────► polling
//     │ ▲ ◄──── ENQUEUE (answers it), heartbeat, ABORT, ──────┘  │
//     │ │       dont_block POLL                                  │ ATTACH (answers the poll)
//     │ │ ATTACH                                                 ▼
//     │ └┬───────────────────────────────────────────────────► streaming ─┐ ATTACH: a newer
//     │  └◄────────── DETACH, POLL (releases the socket) ────────┘   ◄────┘ socket replaces it
//     ▼
//   expired (final), from any state: DELETE, overflow; from waiting: the idle sweep
//
// - waiting: no client. ENQUEUE buffers; a POLL with something newer than its last_event_id (or dont_block) is
//   answered at once, otherwise parked (→ polling); an ATTACH opens a socket (→ streaming); the sweep expires the
//   queue after idleTimeoutMs without a client.
// - polling: one parked poll, and an empty buffer (anything accepted is delivered at once, → waiting). A newer POLL
//   answers the parked one with nothing and parks itself (Zulip's finish_current_handler); a dont_block POLL answers
//   both (→ waiting); the sweep answers with a heartbeat event after heartbeatMs (→ waiting); never idle.
// - streaming: an open socket; accepted events are pushed at once and stay until an ACK; never idle, no heartbeat
//   events (WebSocket pings). A newer ATTACH or a POLL releases the socket; DETACH (it closed) → waiting.
// - expired: a parked poll is answered with what is buffered, then 'expired' is announced; every call is ignored.
// Refusals: a POLL, ATTACH or ACK whose last_event_id is pruned or was never handed out is 'rejected' (Zulip's texts)
// and changes nothing else but the activity time. Overflow: an ENQUEUE whose accepted events would pass maxEvents
// expires the queue instead of growing it.
import { EventBatch, type ClientEvent, type QueuedEvent } from './event-batch.js';

export type { ClientEvent, QueuedEvent } from './event-batch.js';

/** A parked poll answers with a heartbeat after this long (the spec: heartbeat events every minute). */
export const HEARTBEAT_MS = 60_000;
/** A queue with no client for this long is garbage-collected (the spec: 10 minutes without activity). */
export const IDLE_TIMEOUT_MS = 10 * 60_000;
/** Unacknowledged events a queue may hold; one more expires it instead of growing. */
export const MAX_EVENTS = 10_000;

/** Names the HTTP side's parked response or open WebSocket; the socket itself never enters the queue. */
export type PollHandle = number | string;
/** A per-queue predicate (tests, restored queues); applied on enqueue before ids are assigned. */
export type QueueFilter = (event: ClientEvent) => boolean;
/** 'error': the filter threw; the queue ends rather than hang its client. */
export type ExpiryReason = 'idle' | 'overflow' | 'deleted' | 'error';
export type QueueState = 'waiting' | 'polling' | 'streaming' | 'expired';
/** What changed a queue's state, as operators see it (the names of the former machine's events). */
export type QueueCause = 'POLL' | 'ABORT' | 'ENQUEUE' | 'SWEEP' | 'DELETE' | 'ATTACH' | 'ACK' | 'DETACH';

/** The part of a queue's state that survives a restart (see queue-dump.ts). */
export interface RestoredState {
  events: QueuedEvent[];
  firstUnacked: number;
  lastActivity: number;
}

export interface EventQueueInput {
  queueId: string;
  userId: number;
  realmId: number;
  maxEvents?: number;
  /** The id of the newest event already handed out (register answers it as `last_event_id`); -1 for a new queue. */
  lastEventId?: number;
  heartbeatMs?: number;
  idleTimeoutMs?: number;
  filter?: QueueFilter;
  /** The register parameters the filter was built from; opaque here, persisted so a restart can rebuild the filter. */
  registration?: Record<string, unknown>;
  restored?: RestoredState;
}

export type DeliverEmitted = { type: 'deliver'; queueId: string; handle: PollHandle; batch: EventBatch };
/** A POLL whose `last_event_id` this queue cannot honour; the HTTP side answers it with a BAD_REQUEST error carrying `msg`. */
export type RejectedEmitted = { type: 'rejected'; queueId: string; handle: PollHandle; msg: string };
export type ExpiredEmitted = { type: 'expired'; queueId: string; userId: number; realmId: number; reason: ExpiryReason };
/** A socket that a newer socket or a poll replaced; the HTTP side closes it. */
export type ReleasedEmitted = { type: 'released'; queueId: string; handle: PollHandle };
export type EventQueueEmitted = DeliverEmitted | RejectedEmitted | ExpiredEmitted | ReleasedEmitted;

/** What every queue shares (the registry): the clock, where emissions go, and who watches state changes. */
export interface QueueHost {
  /** Milliseconds clock; injected so tests control time. */
  now(): number;
  emit(e: EventQueueEmitted): void;
  /** A queue changed state (`from` null: it was just made); called only when `watched` is set. */
  changed(queue: EventQueue, from: QueueState | null, cause: QueueCause | ''): void;
  /** Whether anybody watches state changes (operators); read on every change, so it is a plain field. */
  readonly watched: boolean;
}

const HEARTBEAT: ClientEvent = Object.freeze({ type: 'heartbeat' });
const NOTHING: readonly ClientEvent[] = Object.freeze([]);

export class EventQueue {
  readonly queueId: string;
  readonly userId: number;
  readonly realmId: number;
  readonly maxEvents: number;
  readonly heartbeatMs: number;
  readonly idleTimeoutMs: number;
  readonly registration: Record<string, unknown> | undefined;
  state: QueueState = 'waiting';
  /** Stopped without expiring (shutdown, after the dump): every call is ignored. */
  stopped = false;
  /** The id of the newest event accepted (buffered or not). */
  lastEventId: number;
  /** The id of buffer[0]: buffered events are ids firstUnacked..lastEventId without gaps. */
  firstUnacked: number;
  lastActivity: number;
  /** The parked poll, if any (only in `polling`). */
  handle: PollHandle | null = null;
  /** The open WebSocket, if any (only in `streaming`). */
  socket: PollHandle | null = null;
  parkedAt = 0;
  /** The unacknowledged events, un-numbered: the router's objects, shared with every queue that got the same form. */
  private buffer: ClientEvent[];
  private readonly filter: QueueFilter | null;

  constructor(private readonly host: QueueHost, input: EventQueueInput) {
    this.queueId = input.queueId;
    this.userId = input.userId;
    this.realmId = input.realmId;
    this.maxEvents = input.maxEvents ?? MAX_EVENTS;
    this.heartbeatMs = input.heartbeatMs ?? HEARTBEAT_MS;
    this.idleTimeoutMs = input.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
    this.registration = input.registration;
    this.filter = input.filter ?? null;
    this.lastEventId = input.lastEventId ?? -1;
    const r = input.restored;
    // A restored event carries its old id; the id is the position's now.
    this.buffer = r ? r.events.map(({ id: _, ...e }) => e as ClientEvent) : [];
    this.firstUnacked = r?.firstUnacked ?? this.lastEventId + 1;
    this.lastActivity = r?.lastActivity ?? host.now();
    if (host.watched) host.changed(this, null, '');
  }

  /** The operators' id (the actor id queues had): `queue:<queue id>`. */
  get id(): string {
    return `queue:${this.queueId}`;
  }

  get kind(): 'eventQueue' {
    return 'eventQueue';
  }

  get status(): 'active' | 'done' | 'stopped' {
    return this.stopped ? 'stopped' : this.state === 'expired' ? 'done' : 'active';
  }

  /** Unacknowledged events held. */
  get size(): number {
    return this.buffer.length;
  }

  /** The unacknowledged events with their ids (a copy each: for dumps, operators and tests, not the hot path). */
  queued(): QueuedEvent[] {
    return new EventBatch(this.firstUnacked, this.buffer).toJSON();
  }

  /** Until when the client was active: now while one is connected. */
  activeUntil(): number {
    return this.state === 'waiting' ? this.lastActivity : this.host.now();
  }

  /** Why a last_event_id is refused (Zulip's wording), or null when it is fine. */
  ackError(lastEventId: number): string | null {
    if (lastEventId < this.firstUnacked - 1) return `An event newer than ${lastEventId} has already been pruned!`;
    if (lastEventId > this.lastEventId) return `Event ${lastEventId} was not in this queue`;
    return null;
  }

  /** Whether sweep(now) would change this queue; lets the sweeper skip the many that are not due. */
  sweepDue(now: number): boolean {
    if (this.status !== 'active') return false;
    if (this.state === 'polling') return now - this.parkedAt >= this.heartbeatMs;
    return this.state === 'waiting' && now - this.lastActivity >= this.idleTimeoutMs;
  }

  /** New events for this queue (filtered, then numbered). `events` itself is never kept. */
  enqueue(events: readonly ClientEvent[]): void {
    if (this.status !== 'active') return;
    let accepted: readonly ClientEvent[] = events;
    if (this.filter) {
      try {
        accepted = events.filter(this.filter);
      } catch {
        this.crash();
        return;
      }
    }
    const n = accepted.length;
    if (n === 0) return;
    if (this.buffer.length + n > this.maxEvents) {
      this.expire('overflow', 'ENQUEUE');
      return;
    }
    const firstId = this.lastEventId + 1;
    for (let i = 0; i < n; i++) this.buffer.push(accepted[i]!);
    this.lastEventId += n;
    if (this.state === 'polling') {
      // The buffer was empty (polling's invariant): everything in it is what just came.
      const handle = this.handle!;
      this.unpark(this.host.now());
      this.to('waiting', 'ENQUEUE');
      this.deliver(handle, this.snapshotFrom(firstId));
    } else if (this.state === 'streaming') {
      this.deliver(this.socket!, this.snapshotFrom(firstId));
    }
  }

  /** GET /events. The answer arrives as 'deliver' or 'rejected' to `handle` (at once, or when events arrive). */
  poll(handle: PollHandle, lastEventId: number, dontBlock: boolean): void {
    if (this.status !== 'active') return;
    if (this.refused(handle, lastEventId)) return;
    if (this.state === 'streaming') {
      // The socket is replaced; the poll is then handled as in `waiting`.
      const socket = this.socket!;
      this.socket = null;
      this.to('waiting', 'POLL');
      this.emit({ type: 'released', queueId: this.queueId, handle: socket });
      // A listener may have acted on the queue meanwhile.
      if ((this.state as QueueState) !== 'waiting') return;
    }
    const now = this.host.now();
    if (this.state === 'polling') {
      const parked = this.handle!;
      if (dontBlock) {
        this.unpark(now);
        this.prune(lastEventId);
        this.to('waiting', 'POLL');
        this.deliver(parked, this.snapshotFrom(this.firstUnacked));
        this.deliver(handle, this.snapshotFrom(this.firstUnacked));
      } else {
        this.park(handle, lastEventId, now);
        // Zulip's finish_current_handler: the replaced poll is answered (with nothing: the buffer is empty here).
        this.deliver(parked, this.snapshotFrom(this.firstUnacked));
      }
      return;
    }
    // waiting
    if (lastEventId < this.lastEventId || dontBlock) {
      this.lastActivity = now;
      this.prune(lastEventId);
      this.deliver(handle, this.snapshotFrom(this.firstUnacked));
    } else {
      this.park(handle, lastEventId, now);
      this.to('polling', 'POLL');
    }
  }

  /** The client behind a parked poll went away. */
  abort(handle: PollHandle): void {
    if (this.status !== 'active' || this.state !== 'polling' || handle !== this.handle) return;
    this.unpark(this.host.now());
    this.to('waiting', 'ABORT');
  }

  /** A WebSocket opened on the queue: it receives every event after lastEventId at once, then each new one. */
  attach(handle: PollHandle, lastEventId: number): void {
    if (this.status !== 'active') return;
    if (this.refused(handle, lastEventId)) return;
    const now = this.host.now();
    const parked = this.state === 'polling' ? this.handle : null;
    const released = this.state === 'streaming' ? this.socket : null;
    this.handle = null;
    this.socket = handle;
    this.lastActivity = now;
    this.prune(lastEventId);
    this.to('streaming', 'ATTACH');
    // A socket replaces the parked poll, which is answered (with nothing: the buffer is empty in polling).
    if (parked !== null) this.deliver(parked, new EventBatch(this.firstUnacked, NOTHING));
    if (released !== null) this.emit({ type: 'released', queueId: this.queueId, handle: released });
    if (this.socket === handle && this.buffer.length > 0) this.deliver(handle, this.snapshotFrom(this.firstUnacked));
  }

  /** The socket's client acknowledges events up to lastEventId (pruned as a poll's last_event_id prunes). */
  ack(handle: PollHandle, lastEventId: number): void {
    if (this.status !== 'active' || this.state !== 'streaming') return;
    if (this.refused(handle, lastEventId)) return;
    if (handle !== this.socket) return;
    this.lastActivity = this.host.now();
    this.prune(lastEventId);
  }

  /** The socket closed; the queue idles from now. */
  detach(handle: PollHandle): void {
    if (this.status !== 'active' || this.state !== 'streaming' || handle !== this.socket) return;
    this.socket = null;
    this.lastActivity = this.host.now();
    this.to('waiting', 'DETACH');
  }

  /** The periodic sweep: a parked poll's heartbeat, or an idle queue's expiry. */
  sweep(now: number): void {
    if (!this.sweepDue(now)) return;
    if (this.state === 'waiting') {
      this.expire('idle', 'SWEEP');
      return;
    }
    const handle = this.handle!;
    const firstId = ++this.lastEventId;
    this.buffer.push(HEARTBEAT);
    this.unpark(now);
    this.to('waiting', 'SWEEP');
    this.deliver(handle, this.snapshotFrom(firstId));
  }

  /** DELETE /events, or the server ending the queue. */
  delete(): void {
    if (this.status === 'active') this.expire('deleted', 'DELETE');
  }

  /** Shutdown: stops without expiring (dump first to keep it). */
  stop(): void {
    this.stopped = true;
  }

  /** A refused last_event_id: the activity is touched and the refusal sent; true when so. */
  private refused(handle: PollHandle, lastEventId: number): boolean {
    const msg = this.ackError(lastEventId);
    if (msg === null) return false;
    this.lastActivity = this.host.now();
    this.emit({ type: 'rejected', queueId: this.queueId, handle, msg });
    return true;
  }

  /** Drops the events a last_event_id acknowledges (ids <= lastEventId). */
  private prune(lastEventId: number): void {
    const n = lastEventId - this.firstUnacked + 1;
    if (n <= 0) return;
    this.buffer.splice(0, n);
    this.firstUnacked = lastEventId + 1;
  }

  private park(handle: PollHandle, lastEventId: number, now: number): void {
    this.lastActivity = now;
    this.handle = handle;
    this.parkedAt = now;
    this.prune(lastEventId);
  }

  /** The parked poll is gone (answered or disconnected); the client was active until now. */
  private unpark(now: number): void {
    this.handle = null;
    this.lastActivity = now;
  }

  /** The buffered events from id `firstId` on, as a batch of their own (the buffer changes after this). */
  private snapshotFrom(firstId: number): EventBatch {
    const from = firstId - this.firstUnacked;
    return new EventBatch(firstId, from === 0 && this.buffer.length === 0 ? NOTHING : this.buffer.slice(from));
  }

  /** On the way out: a parked poll is answered with what is buffered (Zulip's cleanup), then the expiry announced.
   *  An open socket learns of it from 'expired' (an error frame, then a close). */
  private expire(reason: ExpiryReason, cause: QueueCause): void {
    const parked = this.state === 'polling' ? this.handle : null;
    this.to('expired', cause);
    if (parked !== null) this.deliver(parked, this.snapshotFrom(this.firstUnacked));
    this.emit({ type: 'expired', queueId: this.queueId, userId: this.userId, realmId: this.realmId, reason });
  }

  /** The filter threw: the queue ends at once, announced as expired with reason 'error' (its client is told so). */
  private crash(): void {
    this.to('expired', 'ENQUEUE');
    this.emit({ type: 'expired', queueId: this.queueId, userId: this.userId, realmId: this.realmId, reason: 'error' });
  }

  private to(state: QueueState, cause: QueueCause): void {
    const from = this.state;
    this.state = state;
    if (from !== state && this.host.watched) this.host.changed(this, from, cause);
  }

  private deliver(handle: PollHandle, batch: EventBatch): void {
    this.emit({ type: 'deliver', queueId: this.queueId, handle, batch });
  }

  private emit(e: EventQueueEmitted): void {
    this.host.emit(e);
  }
}
