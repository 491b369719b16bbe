// The topic-deletion actor: deletes a topic's messages newest first, one batch per realm-actor command,
// until none are left (complete) or its time budget is spent (incomplete: the client repeats).
// deleting → deciding → (deleting | done); a refused batch → failed, with the error in the output.
import { assign, fromPromise, setup } from 'xstate';
import type { DeletedBatch, DeleteTopicBatchInput } from '../realm/channels/topics.commands.js';

export interface TopicDeletionInput {
  /** Sends a command to the realm actor (RealmHandle.dispatch). */
  dispatch: (kind: 'topics.deleteBatch', input: DeleteTopicBatchInput) => Promise<DeletedBatch>;
  actorId: number;
  channelId: number;
  topic: string;
  batchSize: number;
  timeBudgetMs: number;
  /** Milliseconds clock; injected so tests control time. */
  now: () => number;
}

export interface TopicDeletionContext extends TopicDeletionInput {
  startedAt: number;
  deleted: number;
  lastBatch: number;
  complete: boolean;
  /** Why a batch failed (the realm refused it or the database was unavailable). */
  error: unknown;
}

export interface TopicDeletionOutput {
  complete: boolean;
  deleted: number;
  error: unknown;
}

export const topicDeletionMachine = setup({
  types: {
    context: {} as TopicDeletionContext,
    input: {} as TopicDeletionInput,
    output: {} as TopicDeletionOutput,
  },
  actors: {
    deleteBatch: fromPromise<DeletedBatch, TopicDeletionContext>(({ input }) =>
      input.dispatch('topics.deleteBatch', {
        actorId: input.actorId,
        channelId: input.channelId,
        topic: input.topic,
        batchSize: input.batchSize,
      }),
    ),
  },
  guards: {
    /** A short batch means nothing of the topic is left. */
    topicEmpty: ({ context }) => context.lastBatch < context.batchSize,
    outOfTime: ({ context }) => context.now() - context.startedAt >= context.timeBudgetMs,
  },
}).createMachine({
  id: 'topicDeletion',
  context: ({ input }) => ({ ...input, startedAt: input.now(), deleted: 0, lastBatch: 0, complete: false, error: null }),
  initial: 'deleting',
  states: {
    deleting: {
      invoke: {
        src: 'deleteBatch',
        input: ({ context }) => context,
        onDone: {
          target: 'deciding',
          actions: assign(({ context, event }) => ({
            deleted: context.deleted + event.output.messageIds.length,
            lastBatch: event.output.messageIds.length,
          })),
        },
        onError: { target: 'failed', actions: assign({ error: ({ event }) => event.error }) },
      },
    },
    deciding: {
      always: [
        { guard: 'topicEmpty', target: 'done', actions: assign({ complete: true }) },
        { guard: 'outOfTime', target: 'done' },
        { target: 'deleting' },
      ],
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
  output: ({ context }) => ({ complete: context.complete, deleted: context.deleted, error: context.error }),
});
