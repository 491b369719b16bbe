// The scheduled-delivery actor: owns the due times of scheduled messages and delivers each when due.
// syncing (load pending from the database) → waiting (timer until the next due time) ⇄ delivering → stopped.
import { assign, fromPromise, setup } from 'xstate';

/** A message waiting for its time. `seq` changes whenever it is (re)scheduled, so a stale result is ignored. */
export interface DueMessage {
  id: number;
  realmId: number;
  /** Milliseconds. */
  at: number;
  seq: number;
}

/** `done`: delivered, failed for good, or no longer pending; `retry`: a transient error, try again later. */
export type DeliveryOutcome = 'done' | 'retry';

export interface PendingEntry {
  id: number;
  realmId: number;
  /** Milliseconds. */
  at: number;
}

export interface ScheduledDeliveryInput {
  /** Milliseconds clock; injected so tests control time (together with the actor's clock for timers). */
  now: () => number;
  /** Every pending message in the database. */
  loadPending: () => Promise<PendingEntry[]>;
  /** Delivers one message; never throws. On the last attempt a transient failure marks the message failed. */
  deliver: (m: DueMessage, opts: { finalAttempt: boolean }) => Promise<DeliveryOutcome>;
  /** The database is read again this often, for messages other processes scheduled; also the longest timer. */
  resyncMs?: number;
  /** Wait after a transient failure, times the number of failures so far. */
  retryMs?: number;
  /** Transient failures before a message is marked failed. */
  maxAttempts?: number;
  /** Messages delivered concurrently in one round. */
  concurrency?: number;
}

export interface ScheduledDeliveryContext {
  now: () => number;
  loadPending: ScheduledDeliveryInput['loadPending'];
  deliver: ScheduledDeliveryInput['deliver'];
  resyncMs: number;
  retryMs: number;
  maxAttempts: number;
  concurrency: number;
  /** Mutated in place; the reference never changes. */
  due: Map<number, DueMessage>;
  attempts: Map<number, number>;
  seq: number;
  lastSync: number;
  delivered: number;
}

export type ScheduledDeliveryEvent =
  | { type: 'SCHEDULE'; id: number; realmId: number; at: number }
  | { type: 'UNSCHEDULE'; id: number }
  | { type: 'STOP' };

type RoundResult = { id: number; seq: number; outcome: DeliveryOutcome }[];

/** Whether any message is due (the `waiting` state's eventless guard: no list built or sorted). */
function anyDue(context: ScheduledDeliveryContext): boolean {
  const now = context.now();
  for (const m of context.due.values()) if (m.at <= now) return true;
  return false;
}

function dueNow(context: ScheduledDeliveryContext): DueMessage[] {
  const now = context.now();
  const out: DueMessage[] = [];
  for (const m of context.due.values()) if (m.at <= now) out.push(m);
  return out.sort((a, b) => a.at - b.at || a.id - b.id).slice(0, context.concurrency);
}

export const scheduledDeliveryMachine = setup({
  types: {
    context: {} as ScheduledDeliveryContext,
    input: {} as ScheduledDeliveryInput,
    events: {} as ScheduledDeliveryEvent,
  },
  actors: {
    load: fromPromise<PendingEntry[], { loadPending: ScheduledDeliveryInput['loadPending'] }>(({ input }) => input.loadPending()),
    deliverRound: fromPromise<RoundResult, { batch: DueMessage[]; context: ScheduledDeliveryContext }>(async ({ input }) => {
      const { context } = input;
      return Promise.all(
        input.batch.map(async (m) => {
          const finalAttempt = (context.attempts.get(m.id) ?? 0) + 1 >= context.maxAttempts;
          const outcome = await context.deliver(m, { finalAttempt }).catch((): DeliveryOutcome => 'retry');
          return { id: m.id, seq: m.seq, outcome };
        }),
      );
    }),
  },
  guards: {
    hasDue: ({ context }) => anyDue(context),
    syncDue: ({ context }) => context.now() - context.lastSync >= context.resyncMs,
  },
  delays: {
    /** Until the next due time, at most resyncMs. */
    untilNext: ({ context }) => {
      let next = Infinity;
      for (const m of context.due.values()) next = Math.min(next, m.at);
      return Math.max(0, Math.min(next - context.now(), context.resyncMs - (context.now() - context.lastSync)));
    },
  },
  actions: {
    schedule: assign(({ context, event }) => {
      if (event.type !== 'SCHEDULE') return {};
      const seq = context.seq + 1;
      context.due.set(event.id, { id: event.id, realmId: event.realmId, at: event.at, seq });
      context.attempts.delete(event.id);
      return { seq };
    }),
    unschedule: ({ context, event }) => {
      if (event.type !== 'UNSCHEDULE') return;
      context.due.delete(event.id);
      context.attempts.delete(event.id);
    },
    /** Adds what the database has and memory lacks; never replaces an entry a newer event set. */
    merge: assign(({ context }, entries: PendingEntry[]) => {
      let seq = context.seq;
      for (const e of entries) if (!context.due.has(e.id)) context.due.set(e.id, { ...e, seq: ++seq });
      return { seq, lastSync: context.now() };
    }),
    syncFailed: assign({ lastSync: ({ context }) => context.now() }),
    settleRound: assign(({ context }, results: RoundResult) => {
      let delivered = context.delivered;
      for (const r of results) {
        const current = context.due.get(r.id);
        const unchanged = current !== undefined && current.seq === r.seq;
        if (r.outcome === 'done') {
          delivered++;
          if (unchanged) context.due.delete(r.id);
          context.attempts.delete(r.id);
          continue;
        }
        const n = (context.attempts.get(r.id) ?? 0) + 1;
        context.attempts.set(r.id, n);
        if (unchanged) current.at = context.now() + context.retryMs * n;
      }
      return { delivered };
    }),
  },
}).createMachine({
  id: 'scheduled-delivery',
  context: ({ input }) => ({
    now: input.now,
    loadPending: input.loadPending,
    deliver: input.deliver,
    resyncMs: input.resyncMs ?? 60_000,
    retryMs: input.retryMs ?? 5_000,
    maxAttempts: input.maxAttempts ?? 5,
    concurrency: input.concurrency ?? 32,
    due: new Map(),
    attempts: new Map(),
    seq: 0,
    lastSync: input.now(),
    delivered: 0,
  }),
  initial: 'syncing',
  on: {
    SCHEDULE: { actions: 'schedule' },
    UNSCHEDULE: { actions: 'unschedule' },
    STOP: '.stopped',
  },
  states: {
    syncing: {
      invoke: {
        src: 'load',
        input: ({ context }) => ({ loadPending: context.loadPending }),
        onDone: { target: 'waiting', actions: { type: 'merge', params: ({ event }) => event.output } },
        onError: { target: 'waiting', actions: 'syncFailed' },
      },
    },
    waiting: {
      always: [{ guard: 'hasDue', target: 'delivering' }],
      after: { untilNext: 'tick' },
      on: {
        // A new due time may be sooner than the running timer: start it again.
        SCHEDULE: { target: 'waiting', reenter: true, actions: 'schedule' },
        UNSCHEDULE: { target: 'waiting', reenter: true, actions: 'unschedule' },
      },
    },
    tick: {
      always: [{ guard: 'syncDue', target: 'syncing' }, { guard: 'hasDue', target: 'delivering' }, { target: 'waiting' }],
    },
    delivering: {
      invoke: {
        src: 'deliverRound',
        input: ({ context }) => ({ batch: dueNow(context), context }),
        onDone: { target: 'tick', actions: { type: 'settleRound', params: ({ event }) => event.output } },
        onError: { target: 'waiting' },
      },
    },
    stopped: { type: 'final' },
  },
});
