// The topic-deletion actor (a batch loop) on its own, with a fake realm and a controlled clock: batches until a short
// one (complete), stops when the budget is spent (incomplete), and reports a refused batch.
import test from 'ava';
import { createActor, toPromise } from 'xstate';
import { topicDeletion, topicDeletionMachine, type TopicDeletion } from '../../src/actors/topic-deletion.machine.js';
import { errors } from '../../src/errors.js';
import type { DeletedBatch, DeleteTopicBatchInput } from '../../src/realm/channels/topics.commands.js';

/** A topic of `count` messages; each batch advances the clock by `msPerBatch`. */
function fakeRealm(count: number, msPerBatch: number) {
  let remaining = count;
  let clock = 0;
  const batches: DeleteTopicBatchInput[] = [];
  const dispatch: TopicDeletion['dispatch'] = async (_kind, input) => {
    batches.push(input);
    clock += msPerBatch;
    const n = Math.min(input.batchSize, remaining);
    const messageIds = Array.from({ length: n }, (_, i) => remaining - i);
    remaining -= n;
    const out: DeletedBatch = { channelId: input.channelId, topic: input.topic, messageIds, firstMessageIdBefore: 1, firstMessageId: remaining ? 1 : null };
    return out;
  };
  return { dispatch, now: () => clock, batches, left: () => remaining };
}

const deletion = (realm: ReturnType<typeof fakeRealm>, batchSize: number, timeBudgetMs: number): TopicDeletion => ({
  dispatch: realm.dispatch,
  actorId: 1,
  channelId: 7,
  topic: 'old',
  batchSize,
  timeBudgetMs,
  now: realm.now,
});
const input = (realm: ReturnType<typeof fakeRealm>, batchSize: number, timeBudgetMs: number) => topicDeletion(deletion(realm, batchSize, timeBudgetMs));

test('deletes batch after batch until a short batch shows the topic is empty', async (t) => {
  const realm = fakeRealm(7, 1);
  const out = await toPromise(createActor(topicDeletionMachine, { input: input(realm, 3, 1000) }).start());
  t.deepEqual(out, { complete: true, count: 7, error: null });
  t.is(realm.batches.length, 3);
  t.deepEqual(realm.batches[0], { actorId: 1, channelId: 7, topic: 'old', batchSize: 3 });
  t.is(realm.left(), 0);
});

test('an exact multiple of the batch size needs one more, empty, batch to know it is done', async (t) => {
  const realm = fakeRealm(6, 1);
  t.deepEqual(await toPromise(createActor(topicDeletionMachine, { input: input(realm, 3, 1000) }).start()), { complete: true, count: 6, error: null });
  t.is(realm.batches.length, 3);
});

test('stops with complete=false once the time budget is spent; the next run continues', async (t) => {
  const realm = fakeRealm(10, 40);
  const first = await toPromise(createActor(topicDeletionMachine, { input: input(realm, 2, 100) }).start());
  // Batches end at 40, 80, 120 ms: the budget of 100 ms is spent after the third.
  t.deepEqual(first, { complete: false, count: 6, error: null });
  t.is(realm.left(), 4);
  const second = await toPromise(createActor(topicDeletionMachine, { input: input(realm, 2, 1000) }).start());
  t.deepEqual(second, { complete: true, count: 4, error: null });
});

test('a refused batch ends the run with its error', async (t) => {
  const refused = errors.invalidChannelId();
  const out = await toPromise(
    createActor(topicDeletionMachine, {
      input: topicDeletion({ ...deletion(fakeRealm(1, 0), 5, 100), dispatch: () => Promise.reject(refused) }),
    }).start(),
  );
  t.is(out.error, refused);
  t.false(out.complete);
});
