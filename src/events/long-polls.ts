// Parked GET /events requests, by handle: the queues never hold sockets; this map does, and answers
// each parked request when its queue delivers, rejects, or expires.
import { EventBatch } from './event-batch.js';
import { ApiError, errors } from '../errors.js';
import { HandlesByQueue } from './by-queue.js';
import type { QueueRegistry } from './queue-registry.js';

/** The answer to a poll released at shutdown. */
const NO_EVENTS = new EventBatch(0, []);

interface Parked {
  queueId: string;
  resolve(events: EventBatch): void;
  reject(err: ApiError): void;
}

export class LongPolls {
  private readonly parked = new Map<number, Parked>();
  readonly byQueue = new HandlesByQueue<number>();
  private nextHandle = 1;
  /** Set at shutdown: polls arriving on open connections are refused rather than parked again. */
  private closed = false;

  constructor(private readonly queues: QueueRegistry) {
    queues.on('deliver', (e) => this.settle(e.handle as number, (p) => p.resolve(e.batch)));
    queues.on('rejected', (e) => this.settle(e.handle as number, (p) => p.reject(errors.badRequest(e.msg))));
    queues.on('expired', (e) => {
      for (const handle of this.byQueue.of(e.queueId)) this.settle(handle, (x) => x.reject(errors.badEventQueueId(e.queueId)));
    });
  }

  get count(): number {
    return this.parked.size;
  }

  /**
   * Polls a queue: resolves with its events (serialized with reply-json.ts; toJSON() numbers them) (at once when some are waiting or dontBlock is set, else when one
   * arrives or a heartbeat is due). `onAbort` is the connection's hook for a client that goes away.
   */
  poll(
    queueId: string,
    userId: number,
    lastEventId: number,
    dontBlock: boolean,
    onAbort: (cb: () => void) => void,
  ): Promise<EventBatch> {
    return new Promise((resolve, reject) => {
      if (this.closed) {
        reject(errors.shuttingDown());
        return;
      }
      const handle = this.nextHandle++;
      // Registered before the poll: an immediate answer is emitted inside queues.poll().
      this.parked.set(handle, { queueId, resolve, reject });
      this.byQueue.add(queueId, handle);
      if (!this.queues.poll(queueId, userId, { handle, lastEventId, dontBlock })) {
        this.forget(handle, queueId);
        reject(errors.badEventQueueId(queueId));
        return;
      }
      onAbort(() => {
        if (this.forget(handle, queueId)) this.queues.abort(queueId, handle);
      });
    });
  }

  /** Shutdown: answers every parked poll with no events and refuses new ones; clients poll the same queue after the restart. */
  releaseAll(): void {
    this.closed = true;
    for (const [handle, p] of [...this.parked]) {
      this.forget(handle, p.queueId);
      this.queues.abort(p.queueId, handle);
      p.resolve(NO_EVENTS);
    }
  }

  private settle(handle: number, f: (p: Parked) => void): void {
    const p = this.parked.get(handle);
    if (!p) return;
    this.forget(handle, p.queueId);
    f(p);
  }

  /** Drops a parked poll from both maps; false when it was not parked. */
  private forget(handle: number, queueId: string): boolean {
    this.byQueue.delete(queueId, handle);
    return this.parked.delete(handle);
  }
}
