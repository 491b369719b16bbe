// Open WebSockets on event queues, by handle: the socket-side twin of long-polls.ts. The queues hold only a
// handle; this map turns their emissions into frames (each the JSON of a GET /events answer) and error closes, and
// counts what went out. The transport (src/http/events-socket.ts) implements QueueSocket.
import type { EventBatch } from './event-batch.js';
import type { PollHandle } from './event-queue.js';
import { ApiError, errors } from '../errors.js';
import { HandlesByQueue } from './by-queue.js';
import type { QueueRegistry } from './queue-registry.js';
import { FrameWriter, frameTail } from './socket-frames.js';

/** Why a socket ended, as /metrics counts it. */
export type SocketEnd = 'client' | 'replaced' | 'expired' | 'refused' | 'slow' | 'shutdown' | 'protocol';

/** One open socket as the transport exposes it. */
export interface QueueSocket {
  /** Sends one text frame (its UTF-8 bytes, copied before it returns); false when the client lets too much wait
   *  already (the frame is not sent; close it 'slow'). */
  send(frame: Uint8Array): boolean;
  /** Sends an error frame (the envelope of `err`) and closes with the close code that goes with its error code. */
  fail(err: ApiError): void;
  /** Closes with the code that goes with `reason`, without an error frame. */
  close(reason: Extract<SocketEnd, 'replaced' | 'shutdown' | 'slow'>): void;
  /** The error the credentials it opened with would get now (a regenerated key, a deactivation), or null. */
  revoked(): ApiError | null;
}

interface Open {
  queueId: string;
  socket: QueueSocket;
  /** Its frames' ending, `],"queue_id":"Q"}`, encoded once. */
  tail: Buffer;
}

export interface SocketCounters {
  frames: number;
  bytes: number;
  /** Sockets ended, by reason. */
  ended: Record<SocketEnd, number>;
}

export class QueueSockets {
  private readonly open = new Map<string, Open>();
  readonly byQueue = new HandlesByQueue<string>();
  private nextHandle = 1;
  private closed = false;
  private readonly frames = new FrameWriter();
  readonly counters: SocketCounters = {
    frames: 0,
    bytes: 0,
    ended: { client: 0, replaced: 0, expired: 0, refused: 0, slow: 0, shutdown: 0, protocol: 0 },
  };

  constructor(private readonly queues: QueueRegistry) {
    queues.on('deliver', (e) => {
      const o = this.find(e.handle);
      if (o) this.push(e.handle as string, o, e.batch);
    });
    queues.on('rejected', (e) => this.end(e.handle, 'refused', (o) => o.socket.fail(errors.badRequest(e.msg))));
    queues.on('released', (e) => this.end(e.handle, 'replaced', (o) => o.socket.close('replaced')));
    queues.on('expired', (e) => {
      for (const handle of this.byQueue.of(e.queueId)) this.end(handle, 'expired', (x) => x.socket.fail(errors.badEventQueueId(e.queueId)));
    });
  }

  /** Open sockets. */
  get count(): number {
    return this.open.size;
  }

  /**
   * A socket opened on a user's queue: it receives what is newer than lastEventId, then every new event. Returns the
   * handle to pass to ack() and closed(), or null when the socket was refused (it has had its error frame then).
   */
  attach(queueId: string, userId: number, lastEventId: number, socket: QueueSocket): string | null {
    if (this.closed) {
      socket.close('shutdown');
      this.counters.ended.shutdown++;
      return null;
    }
    const handle = `s${this.nextHandle++}`;
    // Registered first: the backlog (or a refusal) is emitted inside attach().
    this.open.set(handle, { queueId, socket, tail: frameTail(queueId) });
    this.byQueue.add(queueId, handle);
    if (!this.queues.attach(queueId, userId, handle, lastEventId)) {
      this.end(handle, 'refused', (o) => o.socket.fail(errors.badEventQueueId(queueId)));
      return null;
    }
    return this.open.has(handle) ? handle : null;
  }

  /** The client's acknowledgement frame `{"last_event_id": N}`. */
  ack(handle: string, lastEventId: number): void {
    const o = this.open.get(handle);
    if (o) this.queues.ack(o.queueId, handle, lastEventId);
  }

  /** A frame the client should not have sent: an error frame, then the close. */
  protocolError(handle: string, msg: string): void {
    this.end(handle, 'protocol', (o) => o.socket.fail(errors.badRequest(msg)));
  }

  /** The socket closed (by the client, the network, or after one of our own closes); its queue starts idling. */
  gone(handle: string): void {
    const o = this.open.get(handle);
    if (!o) return;
    this.open.delete(handle);
    this.byQueue.delete(o.queueId, handle);
    this.counters.ended.client++;
    this.queues.detach(o.queueId, handle);
  }

  /** Shutdown: closes every socket (clients reconnect with last_event_id after the restart) and refuses new ones. */
  closeAll(): void {
    this.closed = true;
    for (const handle of [...this.open.keys()]) this.end(handle, 'shutdown', (o) => o.socket.close('shutdown'));
  }

  private find(handle: PollHandle): Open | undefined {
    return typeof handle === 'string' ? this.open.get(handle) : undefined;
  }

  /** Sends a delivery in frames of bounded size, so that a reconnect's backlog gets through a bounded socket. */
  private push(handle: string, o: Open, events: EventBatch): void {
    // As a poll authenticates each time: nothing more for credentials that no longer hold (the queue keeps it).
    const revoked = o.socket.revoked();
    if (revoked) {
      this.end(handle, 'refused', (x) => x.socket.fail(revoked));
      return;
    }
    let next = 0;
    do {
      next = this.frames.write(events, next, o.tail);
      const frame = this.frames.frame;
      if (!o.socket.send(frame)) {
        // Too slow: closed. The queue keeps the events until the client reconnects and acknowledges them; the
        // frames sent before bring it further each time.
        this.end(handle, 'slow', (x) => x.socket.close('slow'));
        return;
      }
      this.counters.frames++;
      this.counters.bytes += frame.length;
    } while (next < events.length);
  }

  /** Forgets the socket before calling `f`, which closes it: the transport reports that close (gone()) at once, and it
   *  must find nothing left to count. */
  private end(handle: PollHandle, reason: SocketEnd, f: (o: Open) => void): void {
    const o = this.find(handle);
    if (!o) return;
    this.open.delete(handle as string);
    this.byQueue.delete(o.queueId, handle as string);
    this.queues.detach(o.queueId, handle);
    this.counters.ended[reason]++;
    f(o);
  }
}
