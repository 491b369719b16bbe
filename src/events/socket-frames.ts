// An event socket's frames as UTF-8 bytes: each the text of a GET /events answer
// (`{"result":"success","msg":"","events":[…],"queue_id":"Q"}`), assembled in one reused buffer. An event shared by
// many queues (reply-json.ts) is encoded to UTF-8 once and copied into each queue's frame with the queue's own
// `"id":N`; a socket's frame ending (its queue id) is encoded once when it opens. Sending bytes spares the transport
// converting a string of each frame to UTF-8, and the bytes counted are the bytes sent.
import { EventBatch, type ReplyEvents } from './event-batch.js';
import { eventHeadBytes } from './reply-json.js';

/** The most bytes of one frame, unless a single event is longer (it then goes alone). */
export const MAX_FRAME_BYTES = 64 * 1024;

const HEAD = Buffer.from('{"result":"success","msg":"","events":[');
const ID = Buffer.from(',"id":');
const BARE_ID = ID.subarray(1);
const COMMA = 0x2c;
const CLOSE_BRACE = 0x7d;
/** `,"id":` (or `"id":` for an empty event), the id's digits and `}`: the most an id adds to an event's head. */
const ID_ROOM = ID.length + 16 + 1;

/** A socket's frame ending: `],"queue_id":"Q"}`. */
export function frameTail(queueId: string): Buffer {
  return Buffer.from('],"queue_id":' + JSON.stringify(queueId) + '}');
}

/**
 * Writes frames into one buffer, reused from frame to frame: a frame's bytes are valid until the next write (the
 * transport copies them when it sends). Frames are made one at a time as the caller asks, so a sender that stops at a
 * full socket encodes no more of a backlog.
 */
export class FrameWriter {
  private buf = Buffer.allocUnsafeSlow(MAX_FRAME_BYTES);
  private length = 0;

  constructor(private readonly maxBytes = MAX_FRAME_BYTES) {
    this.buf.set(HEAD, 0);
  }

  /**
   * Writes the frame of `events` from index `from` on, as many as fit in maxBytes (at least one, and none for an empty
   * batch); returns the index after its last event. A batch's events get their ids spliced in; numbered events (a
   * relayed poll's answer) are written as they are.
   */
  write(events: ReplyEvents, from: number, tail: Uint8Array): number {
    const batch = events instanceof EventBatch ? events : null;
    const list = batch ? batch.events : (events as readonly Record<string, unknown>[]);
    let pos = HEAD.length;
    let i = from;
    for (; i < list.length; i++) {
      const event = list[i]!;
      const head = batch ? eventHeadBytes(event) : Buffer.from(JSON.stringify(event));
      const need = 1 + head.length + (batch ? ID_ROOM : 0) + tail.length;
      if (i > from && pos + need > this.maxBytes) break;
      this.reserve(pos, need);
      const buf = this.buf;
      if (i > from) buf[pos++] = COMMA;
      // TypedArray set: a plain copy, cheaper than Buffer's copy for these sizes.
      buf.set(head, pos);
      pos += head.length;
      if (batch) {
        // An empty event's head is `{`: no comma before its id.
        const id = head.length > 1 ? ID : BARE_ID;
        buf.set(id, pos);
        pos += id.length;
        pos = writeDigits(buf, pos, batch.firstId + i);
        buf[pos++] = CLOSE_BRACE;
      }
    }
    this.reserve(pos, tail.length);
    this.buf.set(tail, pos);
    this.length = pos + tail.length;
    return i;
  }

  /** The frame written last: a view of the buffer, valid until the next write. */
  get frame(): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset, this.length);
  }

  /** Makes room for `need` more bytes after `pos` (a single event larger than the buffer). */
  private reserve(pos: number, need: number): void {
    if (pos + need <= this.buf.length) return;
    const grown = Buffer.allocUnsafeSlow(Math.max(2 * this.buf.length, pos + need));
    grown.set(this.buf.subarray(0, pos), 0);
    this.buf = grown;
  }
}

/** Writes a non-negative integer's decimal digits at `pos`; returns the position after them. */
function writeDigits(buf: Buffer, pos: number, n: number): number {
  let digits = 1;
  for (let x = n; x >= 10; x = Math.floor(x / 10)) digits++;
  for (let at = pos + digits - 1; at >= pos; at--) {
    buf[at] = 0x30 + (n % 10);
    n = Math.floor(n / 10);
  }
  return pos + digits;
}
