// Event sockets in cluster mode for a queue another process holds: the process the client reached serves the socket
// and relays it from the holder through forwarded long-polls (Cluster.pollElsewhere, as GET /events for such a queue
// is served), so a client behind any balancer needs no route to the holder. Each forwarded poll names the last event
// sent on the socket: through a relay an event counts as acknowledged once sent (as with GET /events), the client's
// acknowledgement frames are accepted and need not be sent. The holder's refusals end the socket as a direct socket's
// do (BAD_EVENT_QUEUE_ID: close 4404; BAD_REQUEST: 4400); a queue deleted or expired while a poll is held is 4404 too;
// a relay of the same queue elsewhere, a poll or a direct socket replaces this one (close 4409) as on the holder; the
// holder shutting down or not answering is close 1001.
import { ApiError, errors } from '../errors.js';
import type { QueuedEvent } from '../events/event-queue.js';
import { FrameWriter, frameTail } from '../events/socket-frames.js';
import type { QueueSocket } from '../events/queue-sockets.js';
import type { PollAnswer } from './wire.js';

interface Relayed {
  queueId: string;
  socket: QueueSocket;
  open: boolean;
  /** Lets the forwarded poll under way go on the holder (the socket ended). */
  abort?: () => void;
}

/** What the relay needs of the cluster: a blocking long-poll of the queue on its holder; `onAbort` is the hook for a
 *  socket that ends while the poll is held. */
export type PollHolder = (queueId: string, userId: number, lastEventId: number, onAbort: (cb: () => void) => void) => Promise<PollAnswer>;

export class SocketRelays {
  private readonly open = new Map<string, Relayed>();
  private nextHandle = 1;
  private closed = false;
  private readonly frames = new FrameWriter();

  constructor(private readonly poll: PollHolder) {}

  get count(): number {
    return this.open.size;
  }

  /** As QueueSockets.attach, for a queue held elsewhere. */
  attach(queueId: string, userId: number, lastEventId: number, socket: QueueSocket): string | null {
    if (this.closed) {
      socket.close('shutdown');
      return null;
    }
    const handle = `r${this.nextHandle++}`;
    const r: Relayed = { queueId, socket, open: true };
    this.open.set(handle, r);
    void this.run(handle, r, userId, lastEventId);
    return handle;
  }

  /** Acknowledgements: the forwarded polls acknowledged what was sent already. */
  ack(): void {}

  protocolError(handle: string, msg: string): void {
    this.end(handle, (r) => r.socket.fail(new ApiError('BAD_REQUEST', msg, 400)));
  }

  gone(handle: string): void {
    this.end(handle, () => undefined);
  }

  closeAll(): void {
    this.closed = true;
    for (const handle of [...this.open.keys()]) this.end(handle, (r) => r.socket.close('shutdown'));
  }

  private async run(handle: string, r: Relayed, userId: number, lastEventId: number): Promise<void> {
    let last = lastEventId;
    while (r.open) {
      let answer: PollAnswer;
      try {
        answer = await this.poll(r.queueId, userId, last, (cb) => (r.abort = cb));
      } catch (err) {
        if (!r.open) return;
        // The holder's refusal (BAD_EVENT_QUEUE_ID, BAD_REQUEST: both 400) ends the socket as a direct one's would.
        if (err instanceof ApiError && err.status === 400) this.end(handle, (x) => x.socket.fail(err));
        // The holder is shutting down or did not answer: the client reconnects (and registers again if it is gone).
        else this.end(handle, (x) => x.socket.close('shutdown'));
        return;
      }
      if (!r.open) return;
      // A blocking poll answered empty: the queue ended, its holder is stopping, or a newer poll or socket of this
      // queue took it over on the holder.
      if (answer.events.length === 0) {
        const ended = answer.ended;
        if (ended === 'gone') this.end(handle, (x) => x.socket.fail(errors.badEventQueueId(x.queueId)));
        else this.end(handle, (x) => x.socket.close(ended ?? 'replaced'));
        return;
      }
      const fresh: QueuedEvent[] = answer.events.filter((e) => e.id > last);
      if (fresh.length === 0) continue;
      const revoked = r.socket.revoked();
      if (revoked) {
        this.end(handle, (x) => x.socket.fail(revoked));
        return;
      }
      // In frames of bounded size, as QueueSockets sends them.
      const tail = frameTail(r.queueId);
      for (let next = 0; next < fresh.length; ) {
        next = this.frames.write(fresh, next, tail);
        if (!r.socket.send(this.frames.frame)) {
          this.end(handle, (x) => x.socket.close('slow'));
          return;
        }
      }
      last = fresh.at(-1)!.id;
    }
  }

  private end(handle: string, f: (r: Relayed) => void): void {
    const r = this.open.get(handle);
    if (!r) return;
    r.open = false;
    this.open.delete(handle);
    r.abort?.();
    f(r);
  }
}
