// Markdown render cost, in process (no server): every case of the reference's corpus (when ../shared has it)
// and every worst-case shape at the message length limit, each rendered R times; p50/p99 per render, and the
// slowest shape. Target: no render up to the message length limit over 50 ms.
import { LIMITS } from '../../src/limits.js';
import { renderMarkdown } from '../../src/markdown/index.js';
import { SHAPES } from '../lib/markdown-shapes.js';
import { summarize } from '../lib/stats.js';
import { CORPUS_FILE, corpusContext, loadCorpus } from '../markdown-corpus.js';
import { num, type Scenario } from './types.js';

const TARGET_MS = 50;

function timeRenders(input: string, translateEmoticons: boolean, repeat: number, into: number[]): number {
  const ctx = corpusContext(translateEmoticons);
  let worst = 0;
  for (let k = 0; k < repeat; k++) {
    const t = performance.now();
    renderMarkdown(input, ctx);
    const ms = performance.now() - t;
    into.push(ms);
    worst = Math.max(worst, ms);
  }
  return worst;
}

export const render: Scenario = async ({ options, quick, progress }) => {
  const repeat = num(options, 'repeat', quick ? 2 : 20);
  const length = num(options, 'length', quick ? 2_500 : LIMITS.max_message_length);
  const started = performance.now();
  const corpus: number[] = [];
  const shapes: number[] = [];
  const breakdown: Record<string, ReturnType<typeof summarize>> = {};
  if (CORPUS_FILE) {
    for (const c of loadCorpus(CORPUS_FILE)) timeRenders(c.input, c.translateEmoticons, repeat, corpus);
    breakdown.corpus = summarize(corpus);
  }
  let slowest = { name: '', ms: 0 };
  for (const shape of SHAPES) {
    progress(`render: ${shape.name}`);
    const samples: number[] = [];
    const worst = timeRenders(shape.make(length).slice(0, length), shape.translateEmoticons === true, repeat, samples);
    shapes.push(...samples);
    breakdown[`shape: ${shape.name}`] = summarize(samples);
    if (worst > slowest.ms) slowest = { name: shape.name, ms: worst };
    await new Promise((resolve) => setImmediate(resolve));
  }
  breakdown.shapes = summarize(shapes);
  const all = [...corpus, ...shapes];
  const seconds = (performance.now() - started) / 1000;
  const max = Math.max(...all);
  return {
    throughput: all.length / seconds,
    latencyMs: summarize(all),
    errors: 0,
    figures: {
      corpus_cases: corpus.length / repeat,
      shapes: SHAPES.length,
      input_length: length,
      renders_per_input: repeat,
      slowest_shape: slowest.name,
      slowest_shape_ms: +slowest.ms.toFixed(2),
    },
    breakdown,
    samples: all,
    timeline: [],
    target: { description: `no render of ${length} characters over ${TARGET_MS} ms`, met: max <= TARGET_MS },
  };
};
