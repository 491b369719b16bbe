// Batches over NATS max_payload, in parts (src/cluster/parts.ts) and forwarded polls cut to fit (wire.ts).
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { Assembler, decodeWhole, partsOf } from '../../src/cluster/parts.js';
import { decode, encodeBatch, encodePollAnswer, type Answer, type PollAnswer } from '../../src/cluster/wire.js';

const MAX = 4096;

const batchOf = (bytes: number) => ({ from: 'n1', epoch: 3, seq: 7, payload: randomBytes(bytes).toString('base64') });

test('a message that fits goes whole; a larger one in parts that each fit and put together give it back', (t) => {
  const small = encodeBatch(batchOf(100));
  t.deepEqual(partsOf(small, MAX, 'n1', 1), [small]);

  const value = batchOf(20_000);
  const data = encodeBatch(value);
  const parts = partsOf(data, MAX, 'n1', 1);
  t.true(parts.length >= Math.ceil(data.length / MAX));
  for (const p of parts) t.true(p.length <= MAX);
  const assembler = new Assembler();
  const got = parts.map((p) => decodeWhole(assembler, 9, p));
  t.deepEqual(got.slice(0, -1), parts.slice(0, -1).map(() => null));
  t.deepEqual(got.at(-1), value);
  t.is(assembler.pending, 0);
});

test('a lost part drops its message, and the next message is put together as usual', (t) => {
  const assembler = new Assembler();
  const first = partsOf(encodeBatch(batchOf(10_000)), MAX, 'n1', 1);
  const second = batchOf(10_000);
  const next = partsOf(encodeBatch(second), MAX, 'n1', 2);
  // The second part of the first message is lost.
  t.is(decodeWhole(assembler, 9, first[0]!), null);
  for (const p of first.slice(2)) t.is(decodeWhole(assembler, 9, p), null, 'nothing from a message with a hole');
  let whole: unknown = null;
  for (const p of next) whole = decodeWhole(assembler, 9, p);
  t.deepEqual(whole, second);
});

test('parts of two publishers of one realm, and of two realms, interleaved, are put together apart', (t) => {
  const assembler = new Assembler();
  const x = { ...batchOf(9_000), from: 'old-owner' };
  const y = { ...batchOf(9_000), from: 'new-owner' };
  const px = partsOf(encodeBatch(x), MAX, 'old-owner', 5);
  const py = partsOf(encodeBatch(y), MAX, 'new-owner', 1);
  const pz = partsOf(encodeBatch(x), MAX, 'old-owner', 5);
  const out: { realm: number; value: unknown }[] = [];
  for (let i = 0; i < Math.max(px.length, py.length); i++) {
    for (const [realm, parts] of [[1, px], [1, py], [2, pz]] as const) {
      const p = parts[i];
      if (!p) continue;
      const v = decodeWhole(assembler, realm, p);
      if (v !== null) out.push({ realm, value: v });
    }
  }
  t.deepEqual(out, [
    { realm: 1, value: x },
    { realm: 1, value: y },
    { realm: 2, value: x },
  ]);
});

test('a message whose parts stopped coming is dropped by the sweep', (t) => {
  let now = 0;
  const assembler = new Assembler(() => now);
  const parts = partsOf(encodeBatch(batchOf(10_000)), MAX, 'n1', 1);
  decodeWhole(assembler, 9, parts[0]!);
  now = 10_000;
  assembler.sweep(30_000);
  t.is(assembler.pending, 1, 'kept within the window');
  now = 40_001;
  assembler.sweep(30_000);
  t.is(assembler.pending, 0);
  // Its remaining parts put nothing together.
  for (const p of parts.slice(1)) t.is(decodeWhole(assembler, 9, p), null);
});

test('a max_payload with no room for a part is refused', (t) => {
  t.throws(() => partsOf(encodeBatch(batchOf(10_000)), 512, 'n1', 1), { message: /no room/ });
});

test('a forwarded poll answer is cut to the first events that fit', (t) => {
  const events = Array.from({ length: 20 }, (_, id) => ({ id, type: 'message', content: 'x'.repeat(500) }));
  const whole = encodePollAnswer({ events } as unknown as PollAnswer, 1 << 20);
  t.deepEqual((decode<Answer>(whole) as { value: PollAnswer }).value.events.length, 20);

  const cut = encodePollAnswer({ events } as unknown as PollAnswer, 4096);
  t.true(cut.length <= 4096);
  const got = (decode<Answer>(cut) as { value: PollAnswer }).value.events as unknown as { id: number }[];
  t.true(got.length >= 1 && got.length < 20);
  t.deepEqual(got.map((e) => e.id), events.slice(0, got.length).map((e) => e.id), 'a prefix');
  // One more event would not have fitted.
  t.true(encodePollAnswer({ events: events.slice(0, got.length + 1) } as unknown as PollAnswer, 1 << 20).length > 4096);

});
