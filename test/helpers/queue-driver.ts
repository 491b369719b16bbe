// Drives an event queue (src/events/event-queue.ts) in tests: its calls written as the messages the former queue
// actor took, a host with a controlled clock, and what it emitted with deliveries numbered (as a client sees them).
import {
  EventQueue,
  type ClientEvent,
  type EventQueueInput,
  type PollHandle,
  type QueuedEvent,
  type QueueHost,
} from '../../src/events/event-queue.js';

export type Command =
  | { type: 'ENQUEUE'; events: readonly ClientEvent[] }
  | { type: 'POLL'; handle: PollHandle; lastEventId: number; dontBlock: boolean }
  | { type: 'ABORT'; handle: PollHandle }
  | { type: 'SWEEP'; now: number }
  | { type: 'DELETE' }
  | { type: 'ATTACH'; handle: PollHandle; lastEventId: number }
  | { type: 'ACK'; handle: PollHandle; lastEventId: number }
  | { type: 'DETACH'; handle: PollHandle };

export function dispatch(queue: EventQueue, c: Command): void {
  switch (c.type) {
    case 'ENQUEUE': return queue.enqueue(c.events);
    case 'POLL': return queue.poll(c.handle, c.lastEventId, c.dontBlock);
    case 'ABORT': return queue.abort(c.handle);
    case 'SWEEP': return queue.sweep(c.now);
    case 'DELETE': return queue.delete();
    case 'ATTACH': return queue.attach(c.handle, c.lastEventId);
    case 'ACK': return queue.ack(c.handle, c.lastEventId);
    case 'DETACH': return queue.detach(c.handle);
  }
}

/** An emission; a delivery's `events` numbered. */
export type Emitted = { type: string; events?: QueuedEvent[]; [k: string]: unknown };

export function drive(now: () => number, input: EventQueueInput) {
  const emitted: Emitted[] = [];
  const host: QueueHost = {
    now,
    emit: (e) => emitted.push(e.type === 'deliver' ? { type: e.type, queueId: e.queueId, handle: e.handle, events: e.batch.toJSON() } : e),
    changed: () => undefined,
    watched: false,
  };
  const queue = new EventQueue(host, input);
  return { queue, emitted, send: (c: Command) => dispatch(queue, c) };
}
