// The bench charts, rendered from result files recorded by real runs (test/bench/results/: a quick `mixed` and a
// quick `mixed --ramp` with a 1,000 ms p99 limit, both on PostgreSQL on a loaded machine): each chart is drawn, with its title, its axes'
// titles and scales, its marked percentiles, its operations, its ramp steps and its ratios.
import test from 'ava';
import { readFileSync } from 'node:fs';
import { compareSpec, percentileChart, ratios, renderSvg, scenarioSpec, type BenchRecord } from '../../bench/lib/charts.js';
import { ratioTable } from '../../bench/lib/report.js';

const load = (name: string): BenchRecord => JSON.parse(readFileSync(new URL(`../../../test/bench/results/${name}`, import.meta.url), 'utf8'));
const mixed = load('mixed-quick.json');
const ramp = load('mixed-ramp-quick.json');

/** The texts of an SVG's <text> elements, unescaped. */
function texts(svg: string): string[] {
  return [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]!.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>'));
}

test('a scenario chart: latency by percentile on log scales with p50, p90, p99 and p99.9 marked', async (t) => {
  const svg = await renderSvg(scenarioSpec(mixed));
  t.regex(svg, /^<svg [^>]*width="\d+" height="\d+"/);
  const words = texts(svg);
  t.true(words.includes(`mixed — commit ${mixed.machine.commit}, load ${mixed.result.figures.load_average_1m}`));
  t.true(words.includes('Latency by percentile'));
  t.true(words.includes('percentile'));
  t.true(words.includes('latency (ms, log scale)'));
  // The x axis is in "nines": its ticks are percentiles.
  for (const tick of ['50%', '90%', '99%', '99.9%']) t.true(words.includes(tick), `x tick ${tick}`);
  for (const [p, label] of [[50, 'p50'], [90, 'p90'], [99, 'p99'], [99.9, 'p99.9']] as const) {
    const v = mixed.result.percentiles!.find(([q]) => q === p)![1];
    t.true(words.some((w) => w.startsWith(`${label} `) && w.endsWith(' ms')), `${label} (${v} ms) is marked`);
  }
  // One point per percentile below the maximum.
  const spec = percentileChart(mixed.result)! as { layer: { data: { values: unknown[] } }[] };
  t.is(spec.layer[0]!.data.values.length, mixed.result.percentiles!.filter(([p]) => p < 100).length);
});

test('a scenario chart: throughput and p99 over time, with both axes', async (t) => {
  const words = texts(await renderSvg(scenarioSpec(mixed)));
  t.true(words.includes('Throughput and p99 over time'));
  t.true(words.includes('time (s)'));
  t.true(words.includes('operations per second'));
  t.true(words.includes('p99 latency (ms)'));
  t.true(mixed.result.timeline.length > 0 && mixed.result.p99Timeline!.length === mixed.result.timeline.length);
});

test("a scenario chart: mixed's per-operation breakdown, with the p99 limit", async (t) => {
  const svg = await renderSvg(scenarioSpec(mixed));
  const words = texts(svg);
  t.true(words.includes('Latency per operation'));
  for (const op of ['fetch', 'presence', 'read', 'send', 'react']) t.true(words.includes(op), `operation ${op}`);
  for (const p of ['p50', 'p90', 'p99', 'p99.9']) t.true(words.includes(p), `legend ${p}`);
  t.true(words.includes('p99 limit 200 ms'));
  // One bar per operation and percentile that has samples.
  const bars = Object.values(mixed.result.breakdown!).reduce((n, s) => n + [s.p50, s.p90, s.p99, s.p999].filter((v) => typeof v === 'number' && v > 0).length, 0);
  t.true(bars >= 20);
  t.is((svg.match(/<path aria-label="operation: [^"]*" [^>]*aria-roledescription="bar"/g) ?? []).length, bars);
  // One bar per second of the timeline.
  t.is((svg.match(/<path aria-label="time \(s\): [^"]*" [^>]*aria-roledescription="bar"/g) ?? []).length, mixed.result.timeline.length);
});

test('the ramp chart: users against the worst p99 and the error rate, with the ceiling', async (t) => {
  const steps = ramp.result.ramp!;
  t.true(steps.length >= 2, 'the recorded ramp has steps');
  const words = texts(await renderSvg(scenarioSpec(ramp)));
  t.true(words.includes('Ramp: users against p99 and errors'));
  t.true(words.includes(`ceiling ${ramp.result.figures.ceiling_users} users (stopped by ${ramp.result.figures.ramp_stopped_by})`));
  t.true(words.includes('concurrent users'));
  t.true(words.includes('worst operation p99 (ms)'));
  t.true(words.includes('errors (%)'));
  // The recorded ramp ran with a looser limit (the machine was loaded): the chart draws the run's own.
  t.true(words.includes(`p99 limit ${(ramp.settings.options as Record<string, number>)['p99-ms']} ms`));
  const held = steps.filter((s) => s.held).at(-1);
  if (held) t.true(words.includes(`ceiling ${held.users} users`));
});

test('compare: a table and a chart of B / A for the figures both files have', async (t) => {
  const rows = ratios(mixed, ramp);
  const throughput = rows.find((r) => r.metric === 'throughput (ops/s)')!;
  t.is(throughput.ratio, ramp.result.throughput! / mixed.result.throughput!);
  t.truthy(rows.find((r) => r.metric === 'send p99 (ms)'));
  t.falsy(rows.find((r) => r.metric === 'load_average_1m'));
  const table = ratioTable(rows, ['a', 'b']);
  t.regex(table, /^\| figure +\| A \(a\) \| +B \(b\) \| +B \/ A \|$/m);
  t.regex(table, new RegExp(`^\\| throughput \\(ops/s\\) +\\|.*\\| +${throughput.ratio.toFixed(3)} \\|$`, 'm'));
  const words = texts(await renderSvg(compareSpec(mixed, ramp, ['a', 'b'])));
  t.true(words.includes('B / A: b over a'));
  t.true(words.includes('throughput (ops/s)'));
  t.true(words.includes('latency p99 (ms)'));
  t.true(words.includes(throughput.ratio.toFixed(2)));
});
