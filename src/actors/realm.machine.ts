// The realm actor: the single writer of one realm. loading → ready (idle ⇄ writing) → stopping → stopped.
import { assign, fromPromise, setup } from 'xstate';
import type { EventHub, RealmEvent } from '../events/hub.js';
import { errors } from '../errors.js';
import type { Db } from '../persistence/db.js';
import { failure, runBatch, type BatchResult } from '../realm/batch.js';
import type { CommandRegistry, PendingCommand, RealmBatchObserver } from '../realm/commands.js';
import { RealmState } from '../realm/state.js';

/** Most commands one transaction carries. */
export const MAX_BATCH = 256;

export interface RealmInput {
  realmId: number;
  db: Db;
  hub: EventHub;
  commands: CommandRegistry;
  /** Mailbox waits and batch durations (operators' metrics). */
  observer?: RealmBatchObserver;
  /** ROOT_DOMAIN, handed to the working set (RealmState.rootDomain). */
  rootDomain?: string;
}

export interface RealmContext extends RealmInput {
  state: RealmState | null;
  /** The mailbox: commands waiting for the next transaction. Mutated in place; the reference never changes. */
  pending: PendingCommand[];
  batch: PendingCommand[];
  /** When the current batch was taken from the mailbox (performance.now(), ms). */
  batchStartedAt: number;
  loadError: unknown;
  batches: number;
  stopRequested: boolean;
  /**
   * The connection failed under the last batch: its commit may have happened although its callers were answered
   * 503, so memory may lag the database. The next batch first reloads the working set.
   */
  stale: boolean;
}

export type RealmMachineEvent = { type: 'COMMAND'; command: PendingCommand } | { type: 'STOP' };

function takeBatch(pending: PendingCommand[], registry: CommandRegistry): PendingCommand[] {
  const first = pending[0]!;
  if (!registry[first.kind]?.batchable) return pending.splice(0, 1);
  let n = 1;
  while (n < pending.length && n < MAX_BATCH && registry[pending[n]!.kind]?.batchable) n++;
  return pending.splice(0, n);
}

function observeSettled(context: RealmContext): void {
  const observer = context.observer;
  if (!observer || context.batch.length === 0) return;
  const kind = context.batch[0]!.kind;
  const same = context.batch.every((c) => c.kind === kind);
  observer.settled(same ? kind : 'mixed', (performance.now() - context.batchStartedAt) / 1000);
}

export const realmMachine = setup({
  types: {
    context: {} as RealmContext,
    input: {} as RealmInput,
    events: {} as RealmMachineEvent,
  },
  actors: {
    load: fromPromise<RealmState, { db: Db; realmId: number; rootDomain?: string }>(async ({ input }) => {
      const state = await RealmState.load(input.db, input.realmId);
      if (input.rootDomain !== undefined) state.rootDomain = input.rootDomain;
      state.reads = input.db;
      return state;
    }),
    commit: fromPromise<BatchResult, { db: Db; realmId: number; state: RealmState; commands: CommandRegistry; batch: PendingCommand[]; stale: boolean }>(
      async ({ input }) => {
        if (input.stale) {
          try {
            input.state.replaceFrom(await RealmState.load(input.db, input.realmId));
          } catch (err) {
            return { outcomes: input.batch.map(() => failure(err)), uncertain: true };
          }
        }
        return runBatch(input.db, input.state, input.commands, input.batch);
      },
    ),
  },
  guards: {
    hasPending: ({ context }) => context.pending.length > 0,
  },
  actions: {
    enqueue: ({ context, event }) => {
      if (event.type !== 'COMMAND') return;
      if (context.observer) event.command.queuedAt = performance.now();
      context.pending.push(event.command);
    },
    refuse: ({ event }) => {
      if (event.type === 'COMMAND') event.command.reject(errors.unavailable('The server is shutting down'));
    },
    refuseLoadFailed: ({ event }) => {
      if (event.type === 'COMMAND') event.command.reject(errors.unavailable('Realm could not be loaded'));
    },
    rejectPending: ({ context }) => {
      for (const c of context.pending.splice(0)) c.reject(errors.unavailable('The server is shutting down'));
    },
    rejectPendingLoadFailed: ({ context }) => {
      for (const c of context.pending.splice(0)) c.reject(errors.unavailable('Realm could not be loaded'));
    },
    takeBatch: assign(({ context }) => {
      const batch = takeBatch(context.pending, context.commands);
      const now = performance.now();
      const observer = context.observer;
      if (observer) for (const cmd of batch) observer.waited(cmd.kind, (now - (cmd.queuedAt ?? now)) / 1000);
      return { batch, batchStartedAt: now };
    }),
    failBatch: assign(({ context }, error: unknown) => {
      for (const cmd of context.batch) cmd.reject(error);
      observeSettled(context);
      return { batch: [], stale: true };
    }),
    /** After the commit: update memory, answer the callers, publish the events. */
    settleBatch: assign(({ context }, { outcomes, uncertain }: BatchResult) => {
      const state = context.state!;
      const events: RealmEvent[] = [];
      context.batch.forEach((cmd, i) => {
        const outcome = outcomes[i]!;
        if (!outcome.ok) {
          cmd.reject(outcome.error);
          return;
        }
        const def = context.commands[cmd.kind]!;
        def.apply?.(state, outcome.value);
        if (def.events) events.push(...def.events(state, outcome.value));
        cmd.resolve(def.answer ? def.answer(outcome.value) : outcome.value);
      });
      context.hub.publishEvents(context.realmId, events);
      observeSettled(context);
      return { batch: [], batches: context.batches + 1, stale: uncertain };
    }),
  },
}).createMachine({
  id: 'realm',
  context: ({ input }) => ({ ...input, state: null, pending: [], batch: [], batchStartedAt: 0, loadError: null, batches: 0, stopRequested: false, stale: false }),
  initial: 'loading',
  states: {
    loading: {
      on: { COMMAND: { actions: 'enqueue' }, STOP: 'stopping' },
      invoke: {
        src: 'load',
        input: ({ context }) => ({ db: context.db, realmId: context.realmId, rootDomain: context.rootDomain }),
        onDone: { target: 'ready', actions: assign({ state: ({ event }) => event.output }) },
        onError: { target: 'failed', actions: assign({ loadError: ({ event }) => event.error }) },
      },
    },
    ready: {
      initial: 'idle',
      on: { COMMAND: { actions: 'enqueue' } },
      states: {
        idle: {
          always: [
            { guard: 'hasPending', target: 'writing' },
            { guard: ({ context }) => context.stopRequested, target: '#realm.stopping' },
          ],
          on: { STOP: '#realm.stopping' },
        },
        writing: {
          entry: 'takeBatch',
          invoke: {
            src: 'commit',
            input: ({ context }) => ({
              db: context.db,
              realmId: context.realmId,
              state: context.state!,
              commands: context.commands,
              batch: context.batch,
              stale: context.stale,
            }),
            onDone: { target: 'idle', actions: { type: 'settleBatch', params: ({ event }) => event.output } },
            onError: { target: 'idle', actions: { type: 'failBatch', params: ({ event }: { event: { error: unknown } }) => event.error } },
          },
          // A stop during a write lets the write finish and drains the mailbox first.
          on: { STOP: { actions: assign({ stopRequested: true }) } },
        },
      },
    },
    stopping: {
      entry: 'rejectPending',
      always: 'stopped',
    },
    failed: {
      entry: 'rejectPendingLoadFailed',
      on: { COMMAND: { actions: 'refuseLoadFailed' }, STOP: 'stopped' },
    },
    stopped: {
      type: 'final',
      on: { COMMAND: { actions: 'refuse' } },
    },
  },
});
