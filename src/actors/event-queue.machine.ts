// The event-queue actor: one client's queue of undelivered events and its single client: a parked long-poll or an
// open WebSocket (see src/events/queue-sockets.ts). waiting ⇄ polling, waiting ⇄ streaming → expired.
import { assign, emit, enqueueActions, raise, setup, type SnapshotFrom } from 'xstate';

/** A parked poll answers with a heartbeat after this long (the spec: heartbeat events every minute). */
export const HEARTBEAT_MS = 60_000;
/** A queue with no client for this long is garbage-collected (the spec: 10 minutes without activity). */
export const IDLE_TIMEOUT_MS = 10 * 60_000;
/** Unacknowledged events a queue may hold; one more expires it instead of growing. */
export const MAX_EVENTS = 10_000;

/** An event as the router hands it over, before the queue numbers it. */
export type ClientEvent = Record<string, unknown> & { type: string };
/** An event in the queue: a shallow copy of the routed event with this queue's `id`. */
export type QueuedEvent = ClientEvent & { id: number };
/** Names the HTTP side's parked response or open WebSocket; the socket itself never enters the actor. */
export type PollHandle = number | string;
/** The router's per-queue predicate (event_types, narrow, …); applied on ENQUEUE before ids are assigned. */
export type QueueFilter = (event: ClientEvent) => boolean;
export type ExpiryReason = 'idle' | 'overflow' | 'deleted';

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
  /** Milliseconds clock; injected so tests control time. */
  now: () => number;
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

export interface EventQueueContext {
  queueId: string;
  userId: number;
  realmId: number;
  now: () => number;
  maxEvents: number;
  heartbeatMs: number;
  idleTimeoutMs: number;
  filter: QueueFilter | null;
  registration: Record<string, unknown> | undefined;
  /** Unacknowledged events, ids firstUnacked..lastEventId without gaps. Mutated in place; the reference never changes. */
  events: QueuedEvent[];
  lastEventId: number;
  firstUnacked: number;
  lastActivity: number;
  /** The parked poll, if any (only in `polling`). */
  handle: PollHandle | null;
  /** The open WebSocket, if any (only in `streaming`): every event accepted meanwhile is pushed to it at once. */
  socket: PollHandle | null;
  parkedAt: number;
  expireReason: ExpiryReason | null;
}

export type EventQueueEvent =
  | { type: 'ENQUEUE'; events: readonly ClientEvent[] }
  | { type: 'POLL'; handle: PollHandle; lastEventId: number; dontBlock: boolean }
  | { type: 'ABORT'; handle: PollHandle }
  | { type: 'SWEEP'; now: number }
  | { type: 'DELETE' }
  /** A WebSocket opened on the queue; it receives every event after `lastEventId` at once, then each new one. */
  | { type: 'ATTACH'; handle: PollHandle; lastEventId: number }
  /** The socket's client acknowledges events up to `lastEventId` (pruned as a POLL's last_event_id prunes). */
  | { type: 'ACK'; handle: PollHandle; lastEventId: number }
  /** The socket closed; the queue idles from now. */
  | { type: 'DETACH'; handle: PollHandle };

export type DeliverEmitted = { type: 'deliver'; queueId: string; handle: PollHandle; events: QueuedEvent[] };
/** A POLL whose `last_event_id` this queue cannot honour; the HTTP side answers it with a BAD_REQUEST error carrying `msg`. */
export type RejectedEmitted = { type: 'rejected'; queueId: string; handle: PollHandle; msg: string };
export type ExpiredEmitted = { type: 'expired'; queueId: string; userId: number; realmId: number; reason: ExpiryReason };
/** A socket that a newer socket or a poll replaced; the HTTP side closes it. */
export type ReleasedEmitted = { type: 'released'; queueId: string; handle: PollHandle };
export type EventQueueEmitted = DeliverEmitted | RejectedEmitted | ExpiredEmitted | ReleasedEmitted;

type HandleEvent = Extract<EventQueueEvent, { type: 'POLL' | 'ATTACH' | 'ACK' }>;

export function idleExpired(context: EventQueueContext, now: number): boolean {
  return now - context.lastActivity >= context.idleTimeoutMs;
}

export function heartbeatDue(context: EventQueueContext, now: number): boolean {
  return now - context.parkedAt >= context.heartbeatMs;
}

/** Why a POLL's acknowledgement is refused (Zulip's wording), or null when it is fine. */
export function ackError(context: EventQueueContext, lastEventId: number): string | null {
  if (lastEventId < context.firstUnacked - 1) return `An event newer than ${lastEventId} has already been pruned!`;
  if (lastEventId > context.lastEventId) return `Event ${lastEventId} was not in this queue`;
  return null;
}

/** How many of an ENQUEUE's events the queue's filter lets in. */
function acceptedCount(context: EventQueueContext, events: readonly ClientEvent[]): number {
  const filter = context.filter;
  if (!filter) return events.length;
  let n = 0;
  for (const e of events) if (filter(e)) n++;
  return n;
}

/** Drops the events a POLL acknowledges (ids <= lastEventId); the context update that goes with it. */
function dropAcked(context: EventQueueContext, lastEventId: number): { firstUnacked?: number } {
  const n = lastEventId - context.firstUnacked + 1;
  if (n <= 0) return {};
  context.events.splice(0, n);
  return { firstUnacked: lastEventId + 1 };
}

/** The moment an event happened: a SWEEP carries its own clock reading. */
function clock(context: EventQueueContext, event: EventQueueEvent): number {
  return event.type === 'SWEEP' ? event.now : context.now();
}

export const eventQueueMachine = setup({
  types: {
    context: {} as EventQueueContext,
    input: {} as EventQueueInput,
    events: {} as EventQueueEvent,
    emitted: {} as EventQueueEmitted,
  },
  guards: {
    badAck: ({ context, event }) =>
      (event.type === 'POLL' || event.type === 'ATTACH' || event.type === 'ACK') && ackError(context, event.lastEventId) !== null,
    ownsSocket: ({ context, event }) => (event.type === 'ACK' || event.type === 'DETACH') && event.handle === context.socket,
    hasNewer: ({ context, event }) => event.type === 'POLL' && event.lastEventId < context.lastEventId,
    dontBlock: ({ event }) => event.type === 'POLL' && event.dontBlock,
    ownsPoll: ({ context, event }) => event.type === 'ABORT' && event.handle === context.handle,
    idle: ({ context, event }) => event.type === 'SWEEP' && idleExpired(context, event.now),
    heartbeatDue: ({ context, event }) => event.type === 'SWEEP' && heartbeatDue(context, event.now),
    /** An ENQUEUE whose accepted events would pass maxEvents (the queue expires instead of growing). */
    overflows: ({ context, event }) => {
      if (event.type !== 'ENQUEUE') return false;
      const n = acceptedCount(context, event.events);
      return n > 0 && context.events.length + n > context.maxEvents;
    },
    acceptsAny: ({ context, event }) => event.type === 'ENQUEUE' && acceptedCount(context, event.events) > 0,
  },
  actions: {
    touch: assign({ lastActivity: ({ context }) => context.now() }),
    markOverflow: assign({ expireReason: 'overflow' as const }),
    /** Filters and numbers a batch (one that would pass maxEvents takes the `overflows` transition instead). */
    accept: assign(({ context, event }) => {
      if (event.type !== 'ENQUEUE') return {};
      const filter = context.filter;
      const accepted = filter ? event.events.filter((e) => filter(e)) : event.events;
      if (accepted.length === 0) return {};
      let id = context.lastEventId;
      for (const e of accepted) context.events.push({ ...e, id: ++id });
      return { lastEventId: id };
    }),
    heartbeat: assign(({ context }) => {
      const id = context.lastEventId + 1;
      context.events.push({ type: 'heartbeat', id });
      return { lastEventId: id };
    }),
    /** Drops the events a POLL, ATTACH or ACK acknowledges (ids <= its lastEventId). */
    prune: assign(({ context, event }) =>
      event.type === 'POLL' || event.type === 'ATTACH' || event.type === 'ACK' ? dropAcked(context, event.lastEventId) : {},
    ),
    reject: emit(({ context, event }) => {
      const e = event as HandleEvent;
      return { type: 'rejected' as const, queueId: context.queueId, handle: e.handle, msg: ackError(context, e.lastEventId)! };
    }),
    /** Takes the socket of an ATTACH and pushes it everything unacknowledged (nothing when the buffer is empty). */
    attach: enqueueActions(({ context, event, enqueue }) => {
      const e = event as Extract<EventQueueEvent, { type: 'ATTACH' }>;
      const now = context.now();
      enqueue.assign({ socket: e.handle, lastActivity: now, ...dropAcked(context, e.lastEventId) });
      if (context.events.length > 0) {
        enqueue.emit({ type: 'deliver', queueId: context.queueId, handle: e.handle, events: context.events.slice() });
      }
    }),
    /** Filters and numbers a batch and pushes the accepted events to the socket. */
    acceptAndPush: enqueueActions(({ context, event, enqueue }) => {
      if (event.type !== 'ENQUEUE') return;
      const filter = context.filter;
      const accepted = filter ? event.events.filter((e) => filter(e)) : event.events;
      if (accepted.length === 0) return;
      let id = context.lastEventId;
      const pushed: QueuedEvent[] = [];
      for (const e of accepted) {
        const queued = { ...e, id: ++id };
        context.events.push(queued);
        pushed.push(queued);
      }
      enqueue.assign({ lastEventId: id });
      enqueue.emit({ type: 'deliver', queueId: context.queueId, handle: context.socket!, events: pushed });
    }),
    /** The socket is replaced (by a newer one or a poll): the HTTP side closes it. */
    release: enqueueActions(({ context, enqueue }) => {
      if (context.socket === null) return;
      enqueue.emit({ type: 'released', queueId: context.queueId, handle: context.socket });
      enqueue.assign({ socket: null });
    }),
    /** The socket closed: the client was active until now. */
    detach: assign(({ context }) => ({ socket: null, lastActivity: context.now() })),
    /** Answers the POLL being handled with everything unacknowledged (possibly nothing, for dont_block). */
    answerPoll: emit(({ context, event }) => ({
      type: 'deliver' as const,
      queueId: context.queueId,
      handle: (event as Extract<EventQueueEvent, { type: 'POLL' }>).handle,
      events: context.events.slice(),
    })),
    /** Answers the parked poll with everything unacknowledged. A newer POLL answers the one it replaces this way too,
     *  as Zulip's finish_current_handler does (the buffer is empty then, so it gets []). */
    deliverParked: emit(({ context }) => ({
      type: 'deliver' as const,
      queueId: context.queueId,
      handle: context.handle!,
      events: context.events.slice(),
    })),
    /** Touch, prune and park in one context update (a parking POLL is the per-message hot path of a fan-out). */
    ackAndPark: assign(({ context, event }) => {
      const poll = event as Extract<EventQueueEvent, { type: 'POLL' }>;
      const now = context.now();
      return { lastActivity: now, handle: poll.handle, parkedAt: now, ...dropAcked(context, poll.lastEventId) };
    }),
    /** The parked poll is gone (answered or disconnected); the client was active until now. */
    unpark: assign(({ context, event }) => ({ handle: null, lastActivity: clock(context, event) })),
    /** On the way out: answer a parked poll with what is buffered (Zulip's cleanup), then announce the expiry. */
    finish: enqueueActions(({ context, enqueue }) => {
      // An open socket learns of the expiry from the 'expired' emission (it gets an error frame, then a close).
      if (context.handle !== null) {
        enqueue.emit({ type: 'deliver', queueId: context.queueId, handle: context.handle, events: context.events.slice() });
      }
      enqueue.emit({
        type: 'expired',
        queueId: context.queueId,
        userId: context.userId,
        realmId: context.realmId,
        reason: context.expireReason ?? 'deleted',
      });
    }),
  },
}).createMachine({
  id: 'eventQueue',
  context: ({ input }) => {
    const lastEventId = input.lastEventId ?? -1;
    const now = input.now();
    return {
      queueId: input.queueId,
      userId: input.userId,
      realmId: input.realmId,
      now: input.now,
      maxEvents: input.maxEvents ?? MAX_EVENTS,
      heartbeatMs: input.heartbeatMs ?? HEARTBEAT_MS,
      idleTimeoutMs: input.idleTimeoutMs ?? IDLE_TIMEOUT_MS,
      filter: input.filter ?? null,
      registration: input.registration,
      events: input.restored?.events ?? [],
      lastEventId,
      firstUnacked: input.restored?.firstUnacked ?? lastEventId + 1,
      lastActivity: input.restored?.lastActivity ?? now,
      handle: null,
      socket: null,
      parkedAt: 0,
      expireReason: null,
    };
  },
  initial: 'waiting',
  // No eventless transitions: they are evaluated after every step of every queue, so each transition that fills the
  // buffer of a parked queue (ENQUEUE, the heartbeat) answers the poll itself, and an overflow expires explicitly.
  on: {
    DELETE: { target: '.expired', actions: assign({ expireReason: 'deleted' as const }) },
  },
  states: {
    waiting: {
      on: {
        ENQUEUE: [{ guard: 'overflows', target: 'expired', actions: 'markOverflow' }, { actions: 'accept' }],
        POLL: [
          { guard: 'badAck', actions: ['touch', 'reject'] },
          { guard: 'hasNewer', actions: ['touch', 'prune', 'answerPoll'] },
          { guard: 'dontBlock', actions: ['touch', 'prune', 'answerPoll'] },
          { target: 'polling', actions: 'ackAndPark' },
        ],
        SWEEP: { guard: 'idle', target: 'expired', actions: assign({ expireReason: 'idle' as const }) },
        ATTACH: [{ guard: 'badAck', actions: ['touch', 'reject'] }, { target: 'streaming', actions: 'attach' }],
      },
    },
    // Invariant: the buffer is empty here (a POLL parks only when nothing is newer than its ack, and anything
    // accepted while parked is delivered at once, in the same transition).
    polling: {
      on: {
        ENQUEUE: [
          { guard: 'overflows', target: 'expired', actions: 'markOverflow' },
          { guard: 'acceptsAny', target: 'waiting', actions: ['accept', 'deliverParked', 'unpark'] },
        ],
        POLL: [
          // Like Zulip, a refused POLL leaves the parked one alone.
          { guard: 'badAck', actions: ['touch', 'reject'] },
          { guard: 'dontBlock', target: 'waiting', actions: ['touch', 'deliverParked', 'unpark', 'prune', 'answerPoll'] },
          { actions: ['deliverParked', 'ackAndPark'] },
        ],
        ABORT: { guard: 'ownsPoll', target: 'waiting', actions: 'unpark' },
        // A parked poll is a connected client: never idle here; the sweep only brings the heartbeat.
        SWEEP: { guard: 'heartbeatDue', target: 'waiting', actions: ['heartbeat', 'deliverParked', 'unpark'] },
        // A socket replaces the parked poll, which is answered (with nothing: the buffer is empty here).
        ATTACH: [{ guard: 'badAck', actions: ['touch', 'reject'] }, { target: 'streaming', actions: ['deliverParked', 'unpark', 'attach'] }],
      },
    },
    // A socket is open: accepted events are pushed at once and stay until acknowledged. Never idle, no heartbeat
    // events (the socket has WebSocket pings). A POLL or a newer ATTACH replaces the socket.
    streaming: {
      on: {
        ENQUEUE: [{ guard: 'overflows', target: 'expired', actions: 'markOverflow' }, { actions: 'acceptAndPush' }],
        ACK: [
          { guard: 'badAck', actions: ['touch', 'reject'] },
          { guard: 'ownsSocket', actions: ['touch', 'prune'] },
        ],
        DETACH: { guard: 'ownsSocket', target: 'waiting', actions: 'detach' },
        ATTACH: [{ guard: 'badAck', actions: ['touch', 'reject'] }, { actions: ['release', 'attach'] }],
        // The poll is then handled as in `waiting`.
        POLL: [{ guard: 'badAck', actions: ['touch', 'reject'] }, { target: 'waiting', actions: ['release', raise(({ event }) => event)] }],
      },
    },
    expired: {
      type: 'final',
      entry: 'finish',
    },
  },
});

export type EventQueueSnapshot = SnapshotFrom<typeof eventQueueMachine>;

/** Whether a SWEEP at `now` would change this queue; lets the sweeper skip the send for the many that are not due. */
export function sweepDue(snapshot: EventQueueSnapshot, now: number): boolean {
  if (snapshot.status !== 'active') return false;
  if (snapshot.value === 'streaming') return false;
  return snapshot.value === 'polling' ? heartbeatDue(snapshot.context, now) : idleExpired(snapshot.context, now);
}
