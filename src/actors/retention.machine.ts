// The retention actor: every interval (or on SWEEP), removes messages older than their channel's (or their realm's)
// retention period. waiting ⇄ sweeping; a sweep is a batch loop (its child) whose step sends one batch to one realm
// actor, realm after realm, each until a short batch shows nothing of it has expired.
import { assign, emit, setup } from 'xstate';
import type { Db } from '../persistence/db.js';
import { batchLoopMachine, type BatchLoopInput } from './batch-loop.machine.js';
import type { Realms } from './realms.js';

export interface RetentionInput {
  db: Db;
  realms: Pick<Realms, 'get'>;
  intervalMs: number;
  batchSize: number;
}

export interface RetentionContext extends RetentionInput {
  sweeps: number;
  lastDeleted: number;
}

export type RetentionEvent = { type: 'SWEEP' };
export type RetentionEmitted = { type: 'swept'; deleted: number };

/** One pass over every realm with expiring messages, as a batch loop's input. */
export function retentionSweep(db: Db, realms: Pick<Realms, 'get'>, batchSize: number): BatchLoopInput {
  let left: number[] | null = null;
  return {
    about: { batchSize },
    step: async () => {
      left ??= await db.channels.realmsWithRetention();
      const realmId = left[0];
      if (realmId === undefined) return { count: 0, more: false };
      const r = await (await realms.get(realmId)).dispatch('messages.expireBatch', { batchSize });
      if (r.deleted < batchSize) left.shift();
      return { count: r.deleted, more: left.length > 0 };
    },
  };
}

export const retentionMachine = setup({
  types: {
    context: {} as RetentionContext,
    input: {} as RetentionInput,
    events: {} as RetentionEvent,
    emitted: {} as RetentionEmitted,
  },
  actors: {
    sweep: batchLoopMachine('retentionSweep'),
  },
  delays: {
    interval: ({ context }) => context.intervalMs,
  },
}).createMachine({
  id: 'retention',
  context: ({ input }) => ({ ...input, sweeps: 0, lastDeleted: 0 }),
  initial: 'waiting',
  states: {
    waiting: {
      after: { interval: 'sweeping' },
      on: { SWEEP: 'sweeping' },
    },
    sweeping: {
      invoke: {
        id: 'retentionSweep',
        src: 'sweep',
        input: ({ context }) => retentionSweep(context.db, context.realms, context.batchSize),
        // A realm that cannot be reached now (shutting down, database away) is tried again next time; such a sweep
        // counts as having deleted nothing.
        onDone: {
          target: 'waiting',
          actions: [
            assign(({ context, event }) => ({ sweeps: context.sweeps + 1, lastDeleted: event.output.error ? 0 : event.output.count })),
            emit(({ event }) => ({ type: 'swept' as const, deleted: event.output.error ? 0 : event.output.count })),
          ],
        },
      },
    },
  },
});
