// The bench's bounded set-up requests (bench/lib/bounded.ts): every index once, never more than the width at once.
import test from 'ava';
import { forEachBounded } from '../../bench/lib/bounded.js';

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('forEachBounded calls each index once, at most width at a time', async (t) => {
  const seen: number[] = [];
  let open = 0;
  let most = 0;
  await forEachBounded(50, 4, async (i) => {
    open++;
    most = Math.max(most, open);
    for (let k = 0; k < i % 3; k++) await tick();
    seen.push(i);
    open--;
  });
  t.deepEqual([...seen].sort((a, b) => a - b), Array.from({ length: 50 }, (_, i) => i));
  t.is(most, 4);
});

test('forEachBounded rejects with the first failure (one at a time: nothing starts after it)', async (t) => {
  const started: number[] = [];
  const err = await t.throwsAsync(
    forEachBounded(20, 1, async (i) => {
      started.push(i);
      if (i === 3) throw new Error('index 3');
    }),
  );
  t.is(err?.message, 'index 3');
  t.deepEqual(started, [0, 1, 2, 3]);
});

test('forEachBounded with nothing to do resolves', async (t) => {
  await forEachBounded(0, 8, async () => t.fail());
  t.pass();
});
