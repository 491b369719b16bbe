// The retention actor: every interval (or on SWEEP), removes messages older than their channel's (or their
// realm's) retention period, in batches through each realm actor. waiting ⇄ sweeping.
import { assign, emit, fromPromise, setup } from 'xstate';
import type { Db } from '../persistence/db.js';
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

/** One pass over every realm with expiring messages; returns how many messages went. */
export async function sweepRetention(db: Db, realms: Pick<Realms, 'get'>, batchSize: number): Promise<number> {
  let deleted = 0;
  for (const realmId of await db.channels.realmsWithRetention()) {
    const realm = await realms.get(realmId);
    for (;;) {
      const r = await realm.dispatch('messages.expireBatch', { batchSize });
      deleted += r.deleted;
      if (r.deleted < batchSize) break;
    }
  }
  return deleted;
}

export const retentionMachine = setup({
  types: {
    context: {} as RetentionContext,
    input: {} as RetentionInput,
    events: {} as RetentionEvent,
    emitted: {} as RetentionEmitted,
  },
  actors: {
    sweep: fromPromise<number, RetentionInput>(({ input }) => sweepRetention(input.db, input.realms, input.batchSize)),
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
        src: 'sweep',
        input: ({ context }) => context,
        onDone: {
          target: 'waiting',
          actions: [
            assign(({ context, event }) => ({ sweeps: context.sweeps + 1, lastDeleted: event.output })),
            emit(({ event }) => ({ type: 'swept' as const, deleted: event.output })),
          ],
        },
        // A realm that cannot be reached now (shutting down, database away) is tried again next time.
        onError: {
          target: 'waiting',
          actions: [assign(({ context }) => ({ sweeps: context.sweeps + 1, lastDeleted: 0 })), emit({ type: 'swept' as const, deleted: 0 })],
        },
      },
    },
  },
});
