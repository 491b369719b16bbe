// The event-queue actor: one client's queue of undelivered events and its single parked long-poll. waiting ⇄ polling → expired.
import { assign, emit, enqueueActions, setup, type SnapshotFrom } from 'xstate';

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
/** Names the HTTP side's parked response; the socket itself never enters the actor. */
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
  parkedAt: number;
  expireReason: ExpiryReason | null;
}

export type EventQueueEvent =
  | { type: 'ENQUEUE'; events: readonly ClientEvent[] }
  | { type: 'POLL'; handle: PollHandle; lastEventId: number; dontBlock: boolean }
  | { type: 'ABORT'; handle: PollHandle }
  | { type: 'SWEEP'; now: number }
  | { type: 'DELETE' };

export type DeliverEmitted = { type: 'deliver'; queueId: string; handle: PollHandle; events: QueuedEvent[] };
/** A POLL whose `last_event_id` this queue cannot honour; the HTTP side answers it with a BAD_REQUEST error carrying `msg`. */
export type RejectedEmitted = { type: 'rejected'; queueId: string; handle: PollHandle; msg: string };
export type ExpiredEmitted = { type: 'expired'; queueId: string; userId: number; realmId: number; reason: ExpiryReason };
export type EventQueueEmitted = DeliverEmitted | RejectedEmitted | ExpiredEmitted;

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
    badAck: ({ context, event }) => event.type === 'POLL' && ackError(context, event.lastEventId) !== null,
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
    /** Drops the events the POLL acknowledges (ids <= its lastEventId). */
    prune: assign(({ context, event }) => (event.type === 'POLL' ? dropAcked(context, event.lastEventId) : {})),
    reject: emit(({ context, event }) => {
      const e = event as Extract<EventQueueEvent, { type: 'POLL' }>;
      return { type: 'rejected' as const, queueId: context.queueId, handle: e.handle, msg: ackError(context, e.lastEventId)! };
    }),
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
  return snapshot.value === 'polling' ? heartbeatDue(snapshot.context, now) : idleExpired(snapshot.context, now);
}
