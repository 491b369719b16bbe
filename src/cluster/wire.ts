// What processes of a cluster say to each other over NATS, and the subjects. Commands (kind and input, as dispatch
// takes them), their answers, events and queue requests are plain data, sent with msgpack's default settings: those
// PALAVER_CHECK_COMMANDS proves every command's input and answer survives (src/realm/command-check.ts). A committed
// batch's write results are the realm's own values (applied to memory, never shown to a caller): they travel with
// structured cloning (Maps, Sets, Dates and shared references survive). Answers are { ok, value } or the ApiError a
// client is to get.
import type { QueuedEvent } from '../events/event-queue.js';
import { ApiError, errors } from '../errors.js';
import type { Logger } from '../log.js';
import { Packr, pack, unpack } from '../msgpack.js';
import type { CommandInput, CommandKind } from '../realm/registry.js';

export const encode = (value: unknown): Uint8Array => pack(value);
export const decode = <T>(data: Uint8Array): T => unpack(data) as T;

const batchPackr = new Packr({ structuredClone: true, moreTypes: true });

/** A committed batch (owners.ts PublishedBatch). */
export const encodeBatch = (value: unknown): Uint8Array => batchPackr.pack(value);
export const decodeBatch = <T>(data: Uint8Array): T => batchPackr.unpack(data) as T;

/** The most one NATS message may carry on this connection (the server's max_payload; NATS's default until known). */
export function maxPayloadOf(nc: { info?: { max_payload: number } }): number {
  return nc.info?.max_payload ?? 1024 * 1024;
}

/** A realm command on its way to the realm's owner: as dispatch was given it. */
export interface CommandMessage<K extends CommandKind = CommandKind> {
  kind: K;
  input: CommandInput<K>;
}

/** An answer to a request: the value, or the error as the client is to see it; `moved` when the addressee no longer
 *  holds what was asked for and nothing was done (the caller may ask again elsewhere). */
export type Answer =
  | { ok: true; value: unknown }
  | { ok: false; moved?: boolean; error?: { code: string; msg: string; status: number; extra: Record<string, unknown>; headers: Record<string, string> }; message?: string };

/** A request about an event queue, to the process holding it (Subjects.queues). A poll's `pollId` (unique in the
 *  cluster) names it in an `abort`, published without a reply when the client behind the poll went away. */
export type QueueRequest =
  | { op: 'poll'; pollId: string; queueId: string; userId: number; lastEventId: number; dontBlock: boolean }
  | { op: 'delete'; queueId: string; userId: number }
  | { op: 'holds'; queueId: string; userId: number }
  | { op: 'abort'; pollId: string };

/** A forwarded poll's answer. A blocking poll answered empty says why when it was not for a newer poll or socket of
 *  the queue: `gone` (the queue was deleted or expired: BAD_EVENT_QUEUE_ID from now on) or `shutdown` (its holder is
 *  stopping). A relayed socket closes as a direct one would: 4404, 1001, else 4409. */
export interface PollAnswer {
  events: QueuedEvent[];
  ended?: 'gone' | 'shutdown';
}

/** Room in a poll's answer for what is not its events (the answer's keys, the array's header). */
const POLL_ENVELOPE_BYTES = 64;

/**
 * A forwarded poll's answer as one NATS message of at most `maxPayload` bytes: its first events that fit (at least
 * one). The client acknowledges what it got with its next poll's last_event_id, which brings the rest.
 */
export function encodePollAnswer(answer: PollAnswer, maxPayload: number): Uint8Array {
  const whole = encode({ ok: true, value: answer } satisfies Answer);
  if (whole.length <= maxPayload || answer.events.length <= 1) return whole;
  // The events one by one until they pass the room (each encoded alone is at least as large as within the answer):
  // the work is bounded by max_payload, not by the queue's length.
  let room = maxPayload - POLL_ENVELOPE_BYTES;
  let k = 0;
  while (k < answer.events.length && (room -= encode(answer.events[k]).length) >= 0) k++;
  return encode({ ok: true, value: { events: answer.events.slice(0, Math.max(1, k)) } } satisfies Answer);
}

/**
 * Answers a request with `data`, or, when NATS refuses it (larger than max_payload, or the connection closing), with a
 * failure the caller sees as a 500: a refused answer never throws out of a subscription's callback.
 */
export function respondSafely(msg: { respond(data: Uint8Array): boolean }, data: Uint8Array, log: Logger): void {
  try {
    msg.respond(data);
  } catch (err) {
    log.error({ err, bytes: data.length }, 'answer not sent over NATS');
    try {
      msg.respond(encode({ ok: false, message: 'the answer could not be sent between processes' } satisfies Answer));
    } catch {
      // NATS closed: the caller times out.
    }
  }
}

export function answerOf(err: unknown): Answer {
  if (err instanceof ApiError) return { ok: false, error: { code: err.code, msg: err.message, status: err.status, extra: err.extra, headers: err.headers } };
  return { ok: false, message: err instanceof Error ? err.message : String(err) };
}

/** The value of an answer, or its error thrown (an ApiError as the owner raised it; anything else as a 500). */
export function valueOf(answer: Answer): unknown {
  if (answer.ok) return answer.value;
  if (answer.error) {
    const e = answer.error;
    throw new ApiError(e.code, e.msg, e.status, e.extra, e.headers);
  }
  throw new Error(`remote failure: ${answer.message ?? 'unknown'}`);
}

/** Whether a NATS request failed because nobody subscribes to its subject (so nothing was acted on). */
export function isNoResponders(err: unknown): boolean {
  return typeof (err as { isNoResponders?: unknown })?.isNoResponders === 'function' && (err as { isNoResponders(): boolean }).isNoResponders();
}

export function noOwnerInTime(): ApiError {
  return errors.unavailable('No server owning this realm answered in time; try again');
}

/** NATS subjects of one cluster (CLUSTER_NAME keeps clusters sharing a NATS server apart). */
export class Subjects {
  constructor(private readonly cluster: string) {}
  /** A realm's commands, answered by its owner. */
  commands(realmId: number): string {
    return `palaver.${this.cluster}.realm.${realmId}.commands`;
  }
  /** The owner's position in a realm's batches (epoch, seq), for read barriers. */
  position(realmId: number): string {
    return `palaver.${this.cluster}.realm.${realmId}.position`;
  }
  /** A realm's committed batches, published by its owner; `*` for every realm. */
  batches(realmId: number | '*'): string {
    return `palaver.${this.cluster}.realm.${realmId}.batches`;
  }
  realmOfBatch(subject: string): number {
    return Number(subject.split('.')[3]);
  }
  /** Rate-limit tokens each process took. */
  rateLimits(): string {
    return `palaver.${this.cluster}.rate-limits`;
  }
  /** Operators' questions every process answers (its actors). */
  operators(): string {
    return `palaver.${this.cluster}.operators.actors`;
  }
  /** Requests for the event queues a process holds. */
  queues(node: string): string {
    return `palaver.${this.cluster}.node.${node}.queues`;
  }
}
