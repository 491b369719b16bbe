// Parked polls and open sockets are found by their queue (src/events/by-queue.ts): a queue's expiry ends only what is
// on it, and nothing is left in the index once polls are answered or aborted and sockets end.
import test from 'ava';
import type { ApiError } from '../../src/errors.js';
import { HandlesByQueue } from '../../src/events/by-queue.js';
import { LongPolls } from '../../src/events/long-polls.js';
import { QueueRegistry } from '../../src/events/queue-registry.js';
import { QueueSockets, type QueueSocket } from '../../src/events/queue-sockets.js';

/** A socket as QueueSockets sees one: what it was sent and how it ended. */
class RecordingSocket implements QueueSocket {
  frames: string[] = [];
  ended: string | null = null;
  send(frame: Uint8Array): boolean {
    this.frames.push(Buffer.from(frame).toString('utf8'));
    return true;
  }
  fail(err: ApiError): void {
    this.ended = err.code;
  }
  close(reason: string): void {
    this.ended = reason;
  }
  revoked(): null {
    return null;
  }
}

function setup() {
  const queues = new QueueRegistry();
  return { queues, polls: new LongPolls(queues), sockets: new QueueSockets(queues) };
}

test('a deleted queue ends the socket on it and no other; the index empties as sockets end', (t) => {
  const { queues, sockets } = setup();
  const [a, b] = [queues.create(1, 1), queues.create(2, 1)];
  const onA = new RecordingSocket();
  const onB = new RecordingSocket();
  const handleA = sockets.attach(a, 1, -1, onA);
  const handleB = sockets.attach(b, 2, -1, onB)!;
  t.truthy(handleA);
  t.is(sockets.byQueue.size, 2);
  t.true(queues.delete(a));
  t.is(onA.ended, 'BAD_EVENT_QUEUE_ID');
  t.is(onB.ended, null);
  t.is(sockets.byQueue.size, 1);
  queues.enqueue([2], { type: 'test' });
  t.is(onB.frames.length, 1);
  sockets.gone(handleB);
  t.is(sockets.byQueue.size, 0);
  t.is(sockets.count, 0);
  queues.stop();
});

test('parked polls leave the index when answered, aborted, or refused; a deleted queue answers only its own', async (t) => {
  const { queues, polls } = setup();
  const [a, b] = [queues.create(1, 1), queues.create(2, 1)];
  let abort!: () => void;
  const onA = polls.poll(a, 1, -1, false, (cb) => (abort = cb));
  const onB = polls.poll(b, 2, -1, false, () => undefined);
  t.is(polls.byQueue.size, 2);
  abort();
  t.is(polls.byQueue.size, 1);
  queues.delete(b);
  t.is((await onB).length, 0);
  t.is(polls.byQueue.size, 0);
  await t.throwsAsync(polls.poll('no:such', 1, -1, false, () => undefined), { message: /Bad event queue ID/ });
  t.is(polls.byQueue.size, 0);
  t.is(polls.count, 0);
  // The aborted poll is never answered; its queue lives on.
  t.truthy(queues.get(a));
  void onA;
  queues.stop();
});

test('the index keeps a lone handle, several on one queue, and empties in any order', (t) => {
  const index = new HandlesByQueue<number>();
  index.add('q', 1);
  index.add('q', 1);
  t.deepEqual(index.of('q'), [1]);
  index.add('q', 2);
  index.add('q', 3);
  index.add('r', 4);
  t.deepEqual(index.of('q'), [1, 2, 3]);
  index.delete('q', 2);
  index.delete('q', 9);
  index.delete('r', 1);
  t.deepEqual(index.of('q'), [1, 3]);
  index.delete('q', 1);
  t.deepEqual(index.of('q'), [3]);
  index.add('q', 5);
  t.deepEqual(index.of('q'), [3, 5]);
  index.delete('q', 5);
  index.delete('q', 3);
  t.deepEqual(index.of('q'), []);
  t.is(index.size, 1);
  index.delete('r', 4);
  t.is(index.size, 0);
  t.deepEqual(index.of('r'), []);
});
