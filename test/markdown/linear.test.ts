// Rendering cost grows linearly with the input in every worst-case shape: the cost per character at 4N stays
// within a generous factor of the cost at N (linear is ~1, quadratic ~4). A ratio within one run, not a
// wall-clock limit, so a slow or busy machine does not fail it; absolute figures are in bench/ (`render`).
import test from 'ava';
import { SHAPES } from '../../bench/lib/markdown-shapes.js';
import { renderMarkdown } from '../../src/markdown/index.js';
import { makeContext } from './context.js';

const N = 2_500;
/** Per-character cost at 4N over that at N, above which a shape counts as superlinear. */
const FACTOR = 2.5;
const ATTEMPTS = 3;

/** Milliseconds per render: the best of five trials, each repeating the render for at least ~2 ms. */
function costOf(input: string, translateEmoticons: boolean): number {
  const ctx = makeContext({ translateEmoticons });
  const once = (): number => {
    const t = performance.now();
    renderMarkdown(input, ctx);
    return performance.now() - t;
  };
  const repeat = Math.max(1, Math.ceil(2 / Math.max(once(), 0.01)));
  let best = Infinity;
  for (let trial = 0; trial < 5; trial++) {
    const t = performance.now();
    for (let k = 0; k < repeat; k++) renderMarkdown(input, ctx);
    best = Math.min(best, (performance.now() - t) / repeat);
  }
  return best;
}

for (const shape of SHAPES) {
  test(`rendering cost is linear: ${shape.name}`, (t) => {
    const small = shape.make(N);
    const large = shape.make(4 * N);
    let ratio = Infinity;
    // A busy machine can slow one measurement; a superlinear shape is slow every time.
    for (let attempt = 0; attempt < ATTEMPTS && ratio > FACTOR; attempt++) {
      const perCharSmall = costOf(small, shape.translateEmoticons === true) / small.length;
      const perCharLarge = costOf(large, shape.translateEmoticons === true) / large.length;
      ratio = perCharLarge / perCharSmall;
    }
    t.log(`per-character cost at ${large.length} / at ${small.length}: ${ratio.toFixed(2)}`);
    t.true(ratio <= FACTOR, `cost per character grew ${ratio.toFixed(1)}x from ${small.length} to ${large.length} characters`);
  });
}
