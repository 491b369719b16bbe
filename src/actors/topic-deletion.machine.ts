// The topic-deletion actor, a batch loop: deletes a topic's messages newest first, one batch per realm-actor command,
// until none are left (complete) or its time budget is spent (incomplete: the client repeats); a refused batch ends it
// with the error in the output.
import type { DeletedBatch, DeleteTopicBatchInput } from '../realm/channels/topics.commands.js';
import { batchLoopMachine, type BatchLoopInput } from './batch-loop.machine.js';

export const topicDeletionMachine = batchLoopMachine('topicDeletion');

export interface TopicDeletion {
  /** Sends a command to the realm actor (RealmHandle.dispatch). */
  dispatch: (kind: 'topics.deleteBatch', input: DeleteTopicBatchInput) => Promise<DeletedBatch>;
  realmId?: number;
  actorId: number;
  channelId: number;
  topic: string;
  batchSize: number;
  timeBudgetMs: number;
  /** Milliseconds clock; injected so tests control time. */
  now: () => number;
}

/** The batch loop's input for one deletion: a short batch means nothing of the topic is left. */
export function topicDeletion(d: TopicDeletion): BatchLoopInput {
  const batch = { actorId: d.actorId, channelId: d.channelId, topic: d.topic, batchSize: d.batchSize };
  return {
    realmId: d.realmId,
    about: { channelId: d.channelId, topic: d.topic, batchSize: d.batchSize },
    timeBudgetMs: d.timeBudgetMs,
    now: d.now,
    step: async () => {
      const { messageIds } = await d.dispatch('topics.deleteBatch', batch);
      return { count: messageIds.length, more: messageIds.length >= d.batchSize };
    },
  };
}
