// Rendering cost grows linearly with the input in every worst-case shape: the cost per character at 4N stays
// within a generous factor of the cost at N (linear is ~1, quadratic ~4). A ratio within one run, not a
// wall-clock limit, so a slow or busy machine does not fail it; absolute figures are in bench/ (`render`).
// N is large enough that both sizes allocate past the young generation, so garbage collection costs both
// alike, and the two sizes are timed in alternation, in CPU time.
import test from 'ava';
import { SHAPES } from '../../bench/lib/markdown-shapes.js';
import { renderMarkdown } from '../../src/markdown/index.js';
import { makeContext } from './context.js';

const N = 5_000;
/** Per-character cost at 4N over that at N, above which a shape counts as superlinear. */
const FACTOR = 2.5;
const ATTEMPTS = 3;

/** CPU milliseconds this process spent since `from` (CPU time, not wall time: other processes do not count). */
function cpuMs(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

/** CPU milliseconds per render of each input: the best of seven alternating trials, each at least ~5 ms long. */
function costsOf(inputs: string[], translateEmoticons: boolean): number[] {
  const ctx = makeContext({ translateEmoticons });
  const timed = (input: string, repeat: number): number => {
    const from = process.cpuUsage();
    for (let k = 0; k < repeat; k++) renderMarkdown(input, ctx);
    return cpuMs(from) / repeat;
  };
  const repeats = inputs.map((input) => Math.max(1, Math.ceil(5 / Math.max(timed(input, 1), 0.01))));
  const best = inputs.map(() => Infinity);
  for (let trial = 0; trial < 7; trial++) {
    inputs.forEach((input, i) => (best[i] = Math.min(best[i]!, timed(input, repeats[i]!))));
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
      const [costSmall, costLarge] = costsOf([small, large], shape.translateEmoticons === true);
      ratio = costLarge! / large.length / (costSmall! / small.length);
    }
    t.log(`per-character cost at ${large.length} / at ${small.length}: ${ratio.toFixed(2)}`);
    t.true(ratio <= FACTOR, `cost per character grew ${ratio.toFixed(1)}x from ${small.length} to ${large.length} characters`);
  });
}
