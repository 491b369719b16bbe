// An event socket's frames as bytes (src/events/socket-frames.ts): each the UTF-8 of the GET /events answer of its
// events, at most a bound of bytes unless one event alone is larger, made one at a time as the sender asks.
import test from 'ava';
import { EventBatch, type ClientEvent, type ReplyEvents } from '../../src/events/event-batch.js';
import { eventsReplyJson, shareEvent } from '../../src/events/reply-json.js';
import { FrameWriter, frameTail } from '../../src/events/socket-frames.js';

interface Frame {
  result: string;
  msg: string;
  events: ({ id: number } & Record<string, unknown>)[];
  queue_id: string;
}

/** Every frame of a delivery, as text (copied: the writer reuses its buffer). */
function allFrames(w: FrameWriter, events: ReplyEvents, queueId: string): string[] {
  const tail = frameTail(queueId);
  const out: string[] = [];
  let next = 0;
  do {
    next = w.write(events, next, tail);
    out.push(Buffer.from(w.frame).toString('utf8'));
  } while (next < events.length);
  return out;
}

test("a batch's frame is the UTF-8 of the GET /events answer of the same events, ids spliced in", (t) => {
  const shared: ClientEvent = { type: 'message', message: { id: 42, content: 'a "b" €😀' }, flags: ['read'], gone: undefined };
  shareEvent(shared);
  const own: ClientEvent = { type: 'custom', id: 'own', n: 1 };
  const w = new FrameWriter();
  for (const firstId of [0, 9, 123456789]) {
    const batch = new EventBatch(firstId, [shared, {} as ClientEvent, own, { type: 'heartbeat' }]);
    const frames = allFrames(w, batch, 'q:"1"');
    t.deepEqual(frames, [eventsReplyJson({ result: 'success', msg: '', events: batch, queue_id: 'q:"1"' }).toString()]);
    t.deepEqual(JSON.parse(frames[0]!), JSON.parse(JSON.stringify({ result: 'success', msg: '', events: batch, queue_id: 'q:"1"' })));
  }
  t.deepEqual(allFrames(w, new EventBatch(5, []), 'q'), ['{"result":"success","msg":"","events":[],"queue_id":"q"}'], 'an empty delivery: one frame');
});

test('numbered events (a relayed answer) are written as they are', (t) => {
  const events = [{ type: 'a', id: 7 }, { id: 8, type: 'b', x: 'ü' }];
  t.deepEqual(allFrames(new FrameWriter(), events, 'q'), [JSON.stringify({ result: 'success', msg: '', events, queue_id: 'q' })]);
});

test('a delivery is split into frames of bounded bytes, events in order, one event larger than the bound alone', (t) => {
  // Multibyte text: the bound is in bytes (a '€' is 3), not in characters.
  const events = Array.from({ length: 60 }, (_, i) => ({ type: 'realm', value: (i % 2 ? '€' : 'x').repeat(i === 20 ? 3000 : 100) }));
  const frames = allFrames(new FrameWriter(1000), new EventBatch(100, events), 'q:1');
  t.true(frames.length > 10);
  const parsed = frames.map((f) => JSON.parse(f) as Frame);
  t.deepEqual(
    parsed.flatMap((p) => p.events),
    events.map((e, i) => ({ ...e, id: 100 + i })),
    'every event once, in order, with its id',
  );
  for (const [i, f] of frames.entries()) {
    t.like(parsed[i], { result: 'success', msg: '', queue_id: 'q:1' });
    if (!parsed[i]!.events.some((e) => e.id === 120)) t.true(Buffer.byteLength(f) <= 1000, `frame ${i} is ${Buffer.byteLength(f)} bytes`);
  }
  t.deepEqual(parsed.find((p) => p.events.some((e) => e.id === 120))!.events.map((e) => e.id), [120], 'the large event alone');
});

test('an event larger than the buffer grows it; the frames after it are whole', (t) => {
  const w = new FrameWriter();
  const big = { type: 'big', value: 'y'.repeat(200_000) };
  const frames = allFrames(w, new EventBatch(0, [{ type: 'small' }, big, { type: 'after' }]), 'q');
  t.deepEqual(frames.map((f) => (JSON.parse(f) as Frame).events.map((e) => e.type)), [['small'], ['big'], ['after']]);
  t.is((JSON.parse(frames[1]!) as Frame).events[0]!.value, big.value);
});

test('a frame is made only when it is asked for: a sender that stops at a full socket encodes no more', (t) => {
  let serialized = 0;
  const events = Array.from({ length: 50 }, () => ({ type: 'x', value: { toJSON: () => (serialized++, 'x'.repeat(100)) } }));
  const w = new FrameWriter(1000);
  const next = w.write(new EventBatch(0, events), 0, frameTail('q:1'));
  const inFirst = (JSON.parse(Buffer.from(w.frame).toString()) as Frame).events.length;
  t.is(next, inFirst);
  // The first frame's events, and the one that did not fit in it.
  t.is(serialized, inFirst + 1);
  t.true(serialized < events.length);
});

test("only a shared event's bytes are kept from frame to frame (an event of one queue is encoded when framed)", (t) => {
  const shared: ClientEvent = { type: 'message', n: 1 };
  shareEvent(shared);
  const own: ClientEvent = { type: 'custom', n: 1 };
  const w = new FrameWriter();
  const frame = () => allFrames(w, new EventBatch(0, [shared, own]), 'q')[0]!;
  t.deepEqual(JSON.parse(frame()).events, [{ type: 'message', n: 1, id: 0 }, { type: 'custom', n: 1, id: 1 }]);
  // Events are never changed once routed; changing them here shows which bytes were kept.
  shared.n = 2;
  own.n = 2;
  t.deepEqual(JSON.parse(frame()).events, [{ type: 'message', n: 1, id: 0 }, { type: 'custom', n: 2, id: 1 }]);
});
