// Charts of bench results: Vega-Lite specifications rendered to SVG in Node by Vega (no browser, no canvas:
// text is measured by Vega's own estimate). Every chart is built from a result file's record, so a chart can be
// redrawn from a recorded run, and `compare` draws two of them.
import type { TopLevelSpec } from 'vega-lite';
import type { RampStep, ScenarioResult } from '../scenarios/types.js';
import type { Summary } from './stats.js';

/** What a result file holds (bench/run.ts writes it). */
export interface BenchRecord {
  scenario: string;
  machine: { commit: string; cpus: number };
  settings: Record<string, unknown>;
  result: Omit<ScenarioResult, 'samples'> & { samples?: number[]; figures: Record<string, number | string | boolean> };
}

type Spec = Record<string, unknown>;

const WIDTH = 640;
const MARKED: [percentile: number, label: string][] = [
  [50, 'p50'],
  [90, 'p90'],
  [99, 'p99'],
  [99.9, 'p99.9'],
];
/** x of a percentile on a "nines" axis: 1 / (1 − p), so 50 %, 90 %, 99 %, 99.9 % are evenly spaced on a log scale. */
const nines = (p: number) => 1 / (1 - p / 100);
const NINES_LABEL = "datum.value <= 1 ? '0%' : format(100 - 100 / datum.value, '.4~r') + '%'";
const ms = (x: number) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));

/** Latency by percentile: log–log, the marked percentiles as rules with their values. */
export function percentileChart(r: BenchRecord['result']): Spec | null {
  const points = (r.percentiles ?? []).filter(([p, v]) => p < 100 && v > 0).map(([p, v]) => ({ p, x: nines(p), ms: v }));
  if (points.length === 0) return null;
  const marks = MARKED.flatMap(([p, label]) => {
    const hit = points.find((d) => d.p === p);
    return hit ? [{ x: hit.x, ms: hit.ms, label: `${label} ${ms(hit.ms)} ms` }] : [];
  });
  const max = (r.percentiles ?? []).find(([p]) => p === 100)?.[1];
  return {
    title: { text: 'Latency by percentile', subtitle: `${r.latencyMs?.count ?? '?'} samples${max !== undefined ? `, max ${ms(max)} ms` : ''}`, anchor: 'start' },
    width: WIDTH,
    height: 260,
    layer: [
      {
        data: { values: points },
        mark: { type: 'line', point: true },
        encoding: {
          x: { field: 'x', type: 'quantitative', title: 'percentile', scale: { type: 'log' }, axis: { values: [1, 2, 10, 100, 1000, 10000], labelExpr: NINES_LABEL } },
          y: { field: 'ms', type: 'quantitative', title: 'latency (ms, log scale)', scale: { type: 'log' } },
          tooltip: [{ field: 'p', title: 'percentile' }, { field: 'ms' }],
        },
      },
      {
        data: { values: marks },
        layer: [
          { mark: { type: 'rule', strokeDash: [4, 3], color: '#e45756' }, encoding: { x: { field: 'x', type: 'quantitative' } } },
          // Labels at the head of each rule, above the plot, where the curve cannot cover them.
          {
            mark: { type: 'text', align: 'left', baseline: 'bottom', dx: 3, y: 0, dy: -2, color: '#e45756', fontWeight: 'bold' },
            encoding: { x: { field: 'x', type: 'quantitative' }, text: { field: 'label' } },
          },
        ],
      },
    ],
  };
}

/** Operations per second (bars, left axis) and, where kept, each second's p99 (line, right axis). */
export function timelineChart(r: BenchRecord['result']): Spec | null {
  if (!r.timeline.some((n) => n > 0)) return null;
  // Second s covers [s, s + 1): its bar spans it, its p99 point sits in its middle.
  const values = r.timeline.map((ops, s) => ({ s, end: s + 1, mid: s + 0.5, ops, p99: r.p99Timeline?.[s] ?? null }));
  const x = { field: 's', type: 'quantitative', title: 'time (s)', scale: { domain: [0, values.length] }, axis: { format: 'd', tickMinStep: 1 } };
  const bars = { mark: { type: 'bar', color: '#4c78a8', opacity: 0.75, stroke: 'white' }, encoding: { x, x2: { field: 'end' }, y: { field: 'ops', type: 'quantitative', title: 'operations per second', scale: { zero: true }, axis: { titleColor: '#4c78a8' } }, y2: { datum: 0 } } };
  const line = {
    transform: [{ filter: 'datum.p99 !== null' }],
    mark: { type: 'line', color: '#f58518', point: { color: '#f58518' } },
    encoding: { x: { ...x, field: 'mid' }, y: { field: 'p99', type: 'quantitative', title: 'p99 latency (ms)', axis: { titleColor: '#f58518' } } },
  };
  const hasP99 = values.some((v) => v.p99 !== null);
  return {
    title: { text: hasP99 ? 'Throughput and p99 over time' : 'Throughput over time', subtitle: 'second by second', anchor: 'start' },
    width: WIDTH,
    height: 220,
    data: { values },
    layer: hasP99 ? [bars, line] : [bars],
    ...(hasP99 ? { resolve: { scale: { y: 'independent' } } } : {}),
  };
}

const BREAKDOWN_PERCENTILES: [keyof Summary, string][] = [
  ['p50', 'p50'],
  ['p90', 'p90'],
  ['p99', 'p99'],
  ['p999', 'p99.9'],
];

/** Per-operation percentiles (mixed's operations, history's narrows, attack's runs): grouped bars on a log scale. */
export function breakdownChart(r: BenchRecord['result'], limitMs?: number, what = 'operation'): Spec | null {
  const values = Object.entries(r.breakdown ?? {}).flatMap(([op, s]) =>
    BREAKDOWN_PERCENTILES.flatMap(([k, label]) => (typeof s[k] === 'number' && (s[k] as number) > 0 ? [{ op, percentile: label, ms: s[k] }] : [])),
  );
  if (values.length === 0) return null;
  // Up to 8 categories stand side by side; more (render's inputs) are rows, each labelled in full.
  const across = Object.keys(r.breakdown ?? {}).length <= 8;
  const [cat, val, offset] = across ? (['x', 'y', 'xOffset'] as const) : (['y', 'x', 'yOffset'] as const);
  const order = BREAKDOWN_PERCENTILES.map(([, l]) => l);
  const bars = {
    data: { values },
    mark: 'bar',
    encoding: {
      [cat]: { field: 'op', type: 'nominal', title: what, sort: null, axis: { labelAngle: 0, labelLimit: 200 } },
      [offset]: { field: 'percentile', sort: order },
      [val]: { field: 'ms', type: 'quantitative', title: 'latency (ms, log scale)', scale: { type: 'log' }, stack: null },
      color: { field: 'percentile', type: 'nominal', sort: order, scale: { scheme: 'tableau10' } },
      tooltip: [{ field: 'op' }, { field: 'percentile' }, { field: 'ms' }],
    },
  };
  const limit = limitMs
    ? [
        {
          data: { values: [{ ms: limitMs, label: `p99 limit ${limitMs} ms` }] },
          layer: [
            { mark: { type: 'rule', color: '#e45756', strokeDash: [6, 4] }, encoding: { [val]: { field: 'ms', type: 'quantitative' } } },
            {
              mark: across ? { type: 'text', align: 'left', x: 4, dy: -7, color: '#e45756' } : { type: 'text', align: 'left', y: 0, dx: 4, dy: -4, baseline: 'bottom', color: '#e45756' },
              encoding: { [val]: { field: 'ms', type: 'quantitative' }, text: { field: 'label' } },
            },
          ],
        },
      ]
    : [];
  return {
    title: { text: `Latency per ${what}`, subtitle: 'p50, p90, p99 and p99.9 of each', anchor: 'start' },
    width: WIDTH,
    height: across ? 240 : { step: 5 },
    layer: [bars, ...limit],
  };
}

/** The ramp: users against the worst operation's p99 (left) and the error rate (right), the limit and the ceiling. */
export function rampChart(r: BenchRecord['result'], limitMs = 200): Spec | null {
  const steps: RampStep[] = r.ramp ?? [];
  if (steps.length === 0) return null;
  const ceiling = r.figures.ceiling_users;
  const x = { field: 'users', type: 'quantitative', title: 'concurrent users', axis: { format: 'd', tickMinStep: 1 } };
  // The error axis starts at 0 and shows at least 0.5 %, so a ramp without errors draws a flat line at its foot.
  const errorsTop = Math.max(0.5, ...steps.map((s) => s.error_percent));
  const held = steps.filter((s) => s.held).at(-1);
  const ceilingMark = held
    ? [
        {
          data: { values: [{ users: held.users, label: `ceiling ${held.users} users` }] },
          layer: [
            { mark: { type: 'rule', color: '#333', strokeDash: [2, 3] }, encoding: { x: { field: 'users', type: 'quantitative' } } },
            { mark: { type: 'text', align: 'right', baseline: 'bottom', dx: -3, y: 0, dy: -2, fontWeight: 'bold' }, encoding: { x: { field: 'users', type: 'quantitative' }, text: { field: 'label' } } },
          ],
        },
      ]
    : [];
  return {
    title: { text: 'Ramp: users against p99 and errors', subtitle: `ceiling ${ceiling} users (stopped by ${r.figures.ramp_stopped_by})`, anchor: 'start' },
    width: WIDTH,
    height: 260,
    data: { values: steps },
    layer: [
      {
        layer: [
          { mark: { type: 'line', color: '#f58518', point: { color: '#f58518', size: 50 } }, encoding: { x, y: { field: 'worst_p99_ms', type: 'quantitative', title: 'worst operation p99 (ms)', axis: { titleColor: '#f58518' } } } },
          {
            data: { values: [{ ms: limitMs, label: `p99 limit ${limitMs} ms` }] },
            layer: [
              { mark: { type: 'rule', color: '#e45756', strokeDash: [6, 4] }, encoding: { y: { field: 'ms', type: 'quantitative' } } },
              { mark: { type: 'text', align: 'left', x: 4, dy: -7, color: '#e45756' }, encoding: { y: { field: 'ms', type: 'quantitative' }, text: { field: 'label' } } },
            ],
          },
          ...ceilingMark,
        ],
      },
      {
        mark: { type: 'line', color: '#54a24b', strokeDash: [2, 2], point: { color: '#54a24b', shape: 'square' } },
        encoding: { x, y: { field: 'error_percent', type: 'quantitative', title: 'errors (%)', scale: { domain: [0, errorsTop] }, axis: { titleColor: '#54a24b' } } },
      },
    ],
    resolve: { scale: { y: 'independent' } },
  };
}

/** Every chart of one result, stacked, under the scenario's title. */
export function scenarioSpec(record: BenchRecord): TopLevelSpec {
  const r = record.result;
  const limit = record.scenario === 'mixed' || record.scenario === 'attack' ? Number(record.settings.options && (record.settings.options as Record<string, unknown>)['p99-ms']) || 200 : undefined;
  const what = ({ history: 'narrow', attack: 'run', render: 'input' } as Record<string, string>)[record.scenario] ?? 'operation';
  const charts = [percentileChart(r), timelineChart(r), breakdownChart(r, limit, what), rampChart(r, limit)].filter((c): c is Spec => c !== null);
  return top(`${record.scenario} — commit ${record.machine.commit}, load ${r.figures.load_average_1m ?? '?'}`, charts);
}

function top(title: string, charts: Spec[]): TopLevelSpec {
  return {
    $schema: 'https://vega.github.io/schema/vega-lite/v6.json',
    title: { text: title, fontSize: 16, anchor: 'start', offset: 12 },
    background: 'white',
    padding: 16,
    spacing: 36,
    // Each chart keeps its own colours and legend beside it.
    resolve: { scale: { color: 'independent' }, legend: { color: 'independent' } },
    config: { font: 'sans-serif', title: { subtitleColor: '#555', fontSize: 14 }, axis: { labelFontSize: 11, titleFontSize: 12 } },
    vconcat: charts.length ? charts : [{ mark: { type: 'text', align: 'left' }, data: { values: [{ t: 'no latency samples and no timeline in this result: see its figures' }] }, encoding: { text: { field: 't' } } }],
  } as unknown as TopLevelSpec;
}

export interface Ratio {
  metric: string;
  a: number;
  b: number;
  ratio: number;
}

/** B over A for every figure both result files have as a number: throughput, latency percentiles, per-operation p99, figures. */
export function ratios(a: BenchRecord, b: BenchRecord): Ratio[] {
  const out: Ratio[] = [];
  const add = (metric: string, x: unknown, y: unknown) => {
    if (typeof x === 'number' && typeof y === 'number' && Number.isFinite(x) && Number.isFinite(y) && x !== 0) out.push({ metric, a: x, b: y, ratio: y / x });
  };
  add('throughput (ops/s)', a.result.throughput, b.result.throughput);
  for (const k of ['p50', 'p90', 'p95', 'p99', 'p999', 'max'] as const) add(`latency ${k === 'p999' ? 'p99.9' : k} (ms)`, a.result.latencyMs?.[k], b.result.latencyMs?.[k]);
  for (const [op, s] of Object.entries(a.result.breakdown ?? {})) add(`${op} p99 (ms)`, s.p99, b.result.breakdown?.[op]?.p99);
  for (const [k, v] of Object.entries(a.result.figures)) if (k !== 'load_average_1m') add(k, v, b.result.figures[k]);
  return out;
}

/** The ratios as bars on a log scale around 1. */
export function compareSpec(a: BenchRecord, b: BenchRecord, labels: [string, string]): TopLevelSpec {
  const values = ratios(a, b).map((r) => ({ ...r, side: r.ratio >= 1 ? 'B higher' : 'B lower' }));
  const chart: Spec = {
    title: { text: `B / A: ${labels[1]} over ${labels[0]}`, subtitle: 'ratio of each figure both files have (log scale; 1 = unchanged)', anchor: 'start' },
    width: WIDTH,
    height: { step: 18 },
    data: { values },
    layer: [
      {
        mark: 'bar',
        encoding: {
          y: { field: 'metric', type: 'nominal', title: null, sort: null },
          // Each bar runs from 1 (unchanged) to its ratio.
          x: { field: 'ratio', type: 'quantitative', title: 'B / A (log scale)', scale: { type: 'log' }, stack: null },
          x2: { datum: 1 },
          color: { field: 'side', type: 'nominal', title: null, scale: { domain: ['B higher', 'B lower'], range: ['#4c78a8', '#f58518'] } },
          tooltip: [{ field: 'metric' }, { field: 'a' }, { field: 'b' }, { field: 'ratio', format: '.3f' }],
        },
      },
      { data: { values: [{ one: 1 }] }, mark: { type: 'rule', color: '#333' }, encoding: { x: { field: 'one', type: 'quantitative' } } },
      { mark: { type: 'text', align: 'left', dx: 4 }, encoding: { y: { field: 'metric', type: 'nominal', sort: null }, x: { field: 'ratio', type: 'quantitative' }, text: { field: 'ratio', format: '.2f' } } },
    ],
  };
  return top(`compare ${a.scenario}${a.scenario === b.scenario ? '' : ` / ${b.scenario}`} — A ${a.machine.commit}, B ${b.machine.commit}`, [chart]);
}

/** Renders a Vega-Lite specification to an SVG document (Vega is loaded on first use: seconds, not paid by --help). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const [vega, { compile }] = await Promise.all([import('vega'), import('vega-lite')]);
  const view = new vega.View(vega.parse(compile(spec).spec), { renderer: 'none' });
  try {
    return (await view.toSVG()) + '\n';
  } finally {
    view.finalize();
  }
}
