// The JSON of a GET /events answer (and of each WebSocket frame). A message event reaches every queue of a channel
// with the same message form (queue-form.ts builds at most eight per message), and the router hands one event object
// to every queue with the same form and flags; each such object is serialized once, on its first answer, and its
// text spliced into every queue's reply with the queue's own `"id":N` (a queue stores no numbered copies:
// event-batch.ts). The text equals JSON.stringify of the same reply in content; a spliced id comes last. An answer
// with such an event is made as UTF-8 bytes, the event's encoded once (as event sockets' frames are): the transport
// would otherwise flatten and encode every answer's string.
import { EventBatch } from './event-batch.js';

/** Objects shared by many queues' events whose JSON is kept once made (null until the first reply needs it). */
const sharedJson = new WeakMap<object, string | null>();

/** Marks an object (a message form) as shared between queues: its JSON is made once and reused. */
export function shareJson(value: object): void {
  if (!sharedJson.has(value)) sharedJson.set(value, null);
}

function valueJson(value: unknown): string | undefined {
  if (value !== null && typeof value === 'object') {
    const known = sharedJson.get(value);
    if (known !== undefined) {
      if (known !== null) return known;
      const text = JSON.stringify(value);
      sharedJson.set(value, text);
      return text;
    }
  }
  return JSON.stringify(value);
}

/** The JSON of member names, remembered: replies and events are written with few names, each on every answer (a
 *  JSON.stringify call each showed in profiles). Bounded: past the bound a new name is written, not remembered. */
const nameTexts = new Map<string, string>();
export const NAMES_KEPT = 4096;

function nameJson(name: string): string {
  let text = nameTexts.get(name);
  if (text === undefined) {
    text = JSON.stringify(name);
    if (nameTexts.size < NAMES_KEPT) nameTexts.set(name, text);
  }
  return text;
}

/** A string JSON.stringify writes as it is, between quotes: nothing to escape, no surrogates. */
const PLAIN = /^[\w .,:/@+=-]*$/;

/** JSON.stringify of a string member of a reply (a queue id, `result`, `msg`), without the call when it is plain. */
function stringJson(s: string): string {
  return s.length <= 200 && PLAIN.test(s) ? '"' + s + '"' : JSON.stringify(s);
}

/** An object's JSON less its closing brace, with its shared members spliced in; keys JSON.stringify would leave out
 *  are left out, and so is `skip`. */
function objectHead(obj: Record<string, unknown>, splice: (value: unknown) => string | undefined, skip?: string): string {
  let out = '{';
  let first = true;
  for (const key in obj) {
    if (!Object.prototype.hasOwnProperty.call(obj, key) || key === skip) continue;
    const text = splice(obj[key]);
    if (text === undefined) continue;
    out += (first ? '' : ',') + nameJson(key) + ':' + text;
    first = false;
  }
  return out;
}

function objectJson(obj: Record<string, unknown>, splice: (value: unknown) => string | undefined): string {
  return objectHead(obj, splice) + '}';
}

/** Routed events shared by many queues, with the head of their JSON (less `id` and the closing brace) once made. */
const sharedHeads = new WeakMap<object, string | null>();

/** Marks an event object as handed to many queues: its JSON is made once and each queue's id spliced in. */
export function shareEvent(event: object): void {
  if (!sharedHeads.has(event)) sharedHeads.set(event, null);
}

/** Whether the router handed this event object to many queues (shareEvent). */
export function isSharedEvent(event: object): boolean {
  return sharedHeads.has(event);
}

/** An event's JSON less its `id` member and its closing brace (made once for a shared event); event sockets splice
 *  their ids into it as replies do (socket-frames.ts). */
export function eventHeadJson(event: Record<string, unknown>): string {
  const known = sharedHeads.get(event);
  if (known) return known;
  const head = objectHead(event, valueJson, 'id');
  if (known === null) sharedHeads.set(event, head);
  return head;
}

/** The UTF-8 of an event's JSON less its `id` and closing brace; a shared event's is made once. An event of one queue
 *  is encoded each time and not kept: it would hold a second copy of itself for as long as it waits in its queue. */
const headBytes = new WeakMap<object, Buffer>();

export function eventHeadBytes(event: Record<string, unknown>): Buffer {
  let bytes = headBytes.get(event);
  if (bytes === undefined) {
    bytes = Buffer.from(eventHeadJson(event));
    if (isSharedEvent(event)) headBytes.set(event, bytes);
  }
  return bytes;
}

/** What follows an event's head: its id and closing brace (`"id":N}` alone for an event with no other member). */
function idJson(headLength: number, id: number): string {
  return (headLength > 1 ? ',"id":' : '"id":') + id + '}';
}

/** A queue's event with its id: the event's JSON with `"id":N` last. */
function numberedJson(event: Record<string, unknown>, id: number): string {
  const head = eventHeadJson(event);
  return head + idJson(head.length, id);
}

function eventJson(event: unknown): string | undefined {
  if (event === null || typeof event !== 'object' || Array.isArray(event) || 'toJSON' in event) return JSON.stringify(event);
  return objectJson(event as Record<string, unknown>, valueJson);
}

/** The JSON of a member of a GET /events body (`events` as above, every other member as JSON.stringify writes it). */
function memberJson(value: unknown, events: unknown): string | undefined {
  if (value instanceof EventBatch && value === events) {
    let out = '[';
    const { events: list, firstId } = value;
    for (let i = 0; i < list.length; i++) out += (i === 0 ? '' : ',') + numberedJson(list[i]!, firstId + i);
    return out + ']';
  }
  if (typeof value === 'string') return stringJson(value);
  if (!Array.isArray(value) || value !== events) return JSON.stringify(value);
  let out = '[';
  for (let i = 0; i < value.length; i++) out += (i === 0 ? '' : ',') + (eventJson(value[i]) ?? 'null');
  return out + ']';
}

/** The success body of GET /events: UTF-8 bytes when it carries a shared event, else text. */
export function eventsReplyJson(body: Record<string, unknown>): string | Buffer {
  const events = body.events;
  if (events instanceof EventBatch && events.events.some(isSharedEvent)) return replyBytes(body, events);
  return objectJson(body, (value) => memberJson(value, events));
}

/** Where the events go in a body's text: a raw NUL, which JSON text never holds (JSON.stringify escapes it). */
const EVENTS_HOLE = '\u0000';

/** The body's UTF-8: its text around the events, and the events' encoded piece by piece around the shared events'
 *  bytes, which are copied in; written into one buffer of the exact length (no buffer per piece, no concatenation). */
function replyBytes(body: Record<string, unknown>, batch: EventBatch): Buffer {
  const outer = objectJson(body, (value) => (value === batch ? EVENTS_HOLE : memberJson(value, batch)));
  const hole = outer.indexOf(EVENTS_HOLE);
  const pieces: (string | Buffer)[] = [];
  let length = 0;
  let text = outer.slice(0, hole) + '[';
  const { events, firstId } = batch;
  for (let i = 0; i < events.length; i++) {
    const event = events[i]!;
    if (i > 0) text += ',';
    if (!isSharedEvent(event)) {
      text += numberedJson(event, firstId + i);
      continue;
    }
    const head = eventHeadBytes(event);
    pieces.push(text, head);
    length += Buffer.byteLength(text) + head.length;
    text = idJson(head.length, firstId + i);
  }
  text += ']' + outer.slice(hole + 1);
  pieces.push(text);
  length += Buffer.byteLength(text);
  const out = Buffer.allocUnsafe(length);
  let at = 0;
  for (const piece of pieces) at += typeof piece === 'string' ? out.write(piece, at) : piece.copy(out, at);
  return out;
}
