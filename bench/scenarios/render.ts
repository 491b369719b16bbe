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

/** Renders `input` `repeat` times; wall milliseconds into `into`, CPU milliseconds into `cpu`. */
function timeRenders(input: string, translateEmoticons: boolean, repeat: number, into: number[], cpu: number[]): void {
  const ctx = corpusContext(translateEmoticons);
  for (let k = 0; k < repeat; k++) {
    const from = process.cpuUsage();
    const t = performance.now();
    renderMarkdown(input, ctx);
    const ms = performance.now() - t;
    const used = process.cpuUsage(from);
    cpu.push((used.user + used.system) / 1000);
    into.push(ms);
  }
}

export const render: Scenario = async ({ options, quick, progress }) => {
  const repeat = num(options, 'repeat', quick ? 2 : 20);
  const length = num(options, 'length', quick ? 2_500 : LIMITS.max_message_length);
  const started = performance.now();
  const corpus: number[] = [];
  const shapes: number[] = [];
  // CPU time per render: on a shared machine wall time also counts waiting for a core.
  const cpu: number[] = [];
  const breakdown: Record<string, ReturnType<typeof summarize>> = {};
  if (CORPUS_FILE) {
    for (const c of loadCorpus(CORPUS_FILE)) timeRenders(c.input, c.translateEmoticons, repeat, corpus, cpu);
    breakdown.corpus = summarize(corpus);
  }
  let slowest = { name: '', ms: 0, cpuMs: 0 };
  for (const shape of SHAPES) {
    progress(`render: ${shape.name}`);
    const samples: number[] = [];
    const shapeCpu: number[] = [];
    timeRenders(shape.make(length).slice(0, length), shape.translateEmoticons === true, repeat, samples, shapeCpu);
    shapes.push(...samples);
    cpu.push(...shapeCpu);
    // Per shape in CPU time: wall time on a shared machine mostly measures the other processes.
    const summary = summarize(shapeCpu);
    breakdown[`cpu: ${shape.name}`] = summary;
    if (summary.p50 > slowest.cpuMs) slowest = { name: shape.name, ms: Math.max(...samples), cpuMs: summary.p50 };
    await new Promise((resolve) => setImmediate(resolve));
  }
  breakdown.shapes = summarize(shapes);
  breakdown['cpu per render'] = summarize(cpu);
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
      slowest_shape_by_cpu: slowest.name,
      slowest_shape_cpu_p50_ms: +slowest.cpuMs.toFixed(2),
      cpu_p50_ms: +summarize(cpu).p50.toFixed(2),
      cpu_p99_ms: +summarize(cpu).p99.toFixed(2),
      cpu_max_ms: +Math.max(...cpu).toFixed(2),
    },
    breakdown,
    samples: all,
    timeline: [],
    target: { description: `no render of ${length} characters over ${TARGET_MS} ms (wall)`, met: max <= TARGET_MS },
  };
};
