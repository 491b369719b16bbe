// Messages larger than the NATS server lets one message be (its max_payload, 1 MiB by default): a realm's committed
// batch can pass it (a channel created with a thousand subscribers carries an event for each), so the owner publishes
// such a batch in parts and every other process puts them together again. NATS delivers the messages of one
// publisher on one subject in the order they were published, so a batch's parts arrive in order, one after another;
// another publisher's (a former or new owner's) may come in between, so parts are put together per publisher.
// A part that does not follow the one before (lost: NATS core delivers at most once) ends that batch here; the
// receiver then sees the gap at the publisher's next batch, as for any batch lost.
import { decodeBatch, encodeBatch } from './wire.js';

/** One part of a message too large for one NATS message; `seq` names the message among its publisher's. */
export interface Part {
  part: { from: string; seq: number; i: number; n: number };
  bytes: Uint8Array;
}

export function isPart(value: unknown): value is Part {
  return typeof value === 'object' && value !== null && 'part' in value && 'bytes' in value;
}

/** Room in one NATS message for what is not the part's bytes (the envelope, its keys and numbers); generous. */
const ENVELOPE_BYTES = 256;

/**
 * `data` as it is to be published: itself when it fits `maxPayload`, else its parts, each an encoded Part that fits.
 * `from` (at most 100 characters: a node's name) and `seq` name the message for the receiver.
 */
export function partsOf(data: Uint8Array, maxPayload: number, from: string, seq: number): Uint8Array[] {
  if (data.length <= maxPayload) return [data];
  const room = maxPayload - ENVELOPE_BYTES - Buffer.byteLength(from);
  if (room < 1024) throw new Error(`NATS max_payload ${maxPayload} leaves no room for a part`);
  const n = Math.ceil(data.length / room);
  const out: Uint8Array[] = [];
  for (let i = 0; i < n; i++) {
    const part: Part = { part: { from, seq, i, n }, bytes: data.subarray(i * room, Math.min(data.length, (i + 1) * room)) };
    out.push(encodeBatch(part));
  }
  return out;
}

interface Assembly {
  seq: number;
  n: number;
  chunks: Uint8Array[];
  /** When its first part arrived (the sweep's clock). */
  at: number;
}

/** Puts parts together, per publisher; at most one message under way per publisher and key (a realm). */
export class Assembler {
  private readonly open = new Map<string, Assembly>();

  constructor(private readonly now: () => number = () => performance.now()) {}

  /**
   * A part received under `key` (the realm): the whole message's bytes when this was its last part, else null. A part
   * that does not follow the one before drops the message under way (and is dropped itself unless it is a first part).
   */
  add(key: string | number, p: Part): Uint8Array | null {
    const { from, seq, i, n } = p.part;
    const id = `${key}\u0000${from}`;
    let a = this.open.get(id);
    if (i === 0) {
      a = { seq, n, chunks: [], at: this.now() };
      this.open.set(id, a);
    } else if (!a || a.seq !== seq || a.n !== n || a.chunks.length !== i) {
      this.open.delete(id);
      return null;
    }
    a.chunks.push(p.bytes);
    if (a.chunks.length < n) return null;
    this.open.delete(id);
    return Buffer.concat(a.chunks);
  }

  /** Drops messages whose parts stopped coming more than `ms` ago. */
  sweep(ms: number): void {
    const now = this.now();
    for (const [id, a] of this.open) if (now - a.at > ms) this.open.delete(id);
  }

  /** Messages under way (operators, tests). */
  get pending(): number {
    return this.open.size;
  }
}

/** A received message: the decoded value, once whole (null while its parts are still coming or when they failed). */
export function decodeWhole<T>(assembler: Assembler, key: string | number, data: Uint8Array): T | null {
  const value = decodeBatch<T | Part>(data);
  if (!isPart(value)) return value;
  const whole = assembler.add(key, value);
  return whole === null ? null : decodeBatch<T>(whole);
}
