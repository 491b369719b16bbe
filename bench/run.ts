// The bench suite: `npm run bench -- <scenario> [--url URL] [--database-url URL] [--quick] [--knob value …]`.
// Starts a server (or targets --url), prepares data through the API, drives load, stops by itself, and
// reports a table, a JSON file and an SVG of charts per scenario; `compare A.json B.json` sets two results side by side.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { login } from './lib/client.js';
import { compareSpec, ratios, renderSvg, scenarioSpec, type BenchRecord } from './lib/charts.js';
import { machine, ratioTable, table, writeResults } from './lib/report.js';
import { percentiles } from './lib/stats.js';
import { sampleAll, startTarget } from './lib/server.js';
import { attack } from './scenarios/attack.js';
import { httpCeiling } from './scenarios/ceilings.js';
import { fanout } from './scenarios/fanout.js';
import { history } from './scenarios/history.js';
import { idle } from './scenarios/idle.js';
import { mixed } from './scenarios/mixed.js';
import { register } from './scenarios/register.js';
import { render } from './scenarios/render.js';
import { send } from './scenarios/send.js';
import type { Scenario, ScenarioContext } from './scenarios/types.js';

const SCENARIOS: Record<string, Scenario> = { send, fanout, idle, register, history, mixed, attack, render };

const RUNNER_OPTIONS = new Set(['url', 'database-url', 'quick', 'out', 'no-ceiling', 'quiet', 'processes', 'cpu-prof', 'rounds']);

/** Whether argv[i] belongs to a scenario knob (`--name value`, `--name=value` or a bare `--flag`). */
function isKnob(argv: string[], i: number): boolean {
  const a = argv[i]!;
  if (a.startsWith('--')) return !RUNNER_OPTIONS.has(a.slice(2).split('=')[0]!);
  const prev = argv[i - 1];
  return prev !== undefined && prev.startsWith('--') && !prev.includes('=') && !RUNNER_OPTIONS.has(prev.slice(2));
}

/** Scenario knobs: numbers where they parse as numbers, true for a bare flag. */
function knobs(argv: string[]): ScenarioContext['options'] {
  const out: ScenarioContext['options'] = {};
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (!a.startsWith('--') || !isKnob(argv, i)) continue;
    let [name, value] = a.slice(2).split('=', 2) as [string, string | undefined];
    if (value === undefined && argv[i + 1] !== undefined && !argv[i + 1]!.startsWith('--')) value = argv[++i];
    out[name] = value === undefined ? true : Number.isFinite(Number(value)) ? Number(value) : value;
  }
  return out;
}

const USAGE = `usage: npm run bench -- <${Object.keys(SCENARIOS).join('|')}|all> [--quick] [--url URL] [--database-url URL] [--out DIR] [--no-ceiling] [--quiet] [--processes N [--rounds K]] [--cpu-prof DIR] [--<knob> N …]
       npm run bench -- mixed --ramp [--ramp-start N] [--ramp-step N] [--ramp-max N] [--duration S] [--p99-ms MS] [--max-error-percent P] [--users-per-worker N] [--settle-max-seconds S] [--settle-held-per-user N] [--settle-parked-share F] [--settle-realm-waiting N]
       npm run bench -- compare A.json B.json [--out DIR]
       npm run bench -- --help
Scenarios, their knobs and the result files: bench/README.md`;

/** A command line the runner does not understand: exit status 2 with the usage. */
class UsageError extends Error {
  constructor(problem: string) {
    super(`${problem}\n${USAGE}`);
  }
}

/** `compare A.json B.json`: a table of B / A for every figure both have, and its chart. */
async function compare(files: string[], out: string): Promise<string> {
  const [a, b] = files.map((f) => JSON.parse(readFileSync(f, 'utf8')) as BenchRecord) as [BenchRecord, BenchRecord];
  const labels = files.map((f) => path.basename(f, '.json')) as [string, string];
  mkdirSync(out, { recursive: true });
  const chart = path.join(out, `compare-${new Date().toISOString().replace(/[:.]/g, '-')}.svg`);
  writeFileSync(chart, await renderSvg(compareSpec(a, b, labels)));
  return `${ratioTable(ratios(a, b), labels)}\n  chart:   ${chart}\n`;
}

/** The runner's own options and the positionals (scenario knobs are left to knobs()). */
function parse(argv: string[]) {
  return parseArgs({
    args: argv.filter((a, i) => !isKnob(argv, i)),
    allowPositionals: true,
    options: {
      url: { type: 'string' },
      'database-url': { type: 'string' },
      quick: { type: 'boolean', default: false },
      out: { type: 'string', default: 'bench/results' },
      'no-ceiling': { type: 'boolean', default: false },
      quiet: { type: 'boolean', default: false },
      processes: { type: 'string' },
      rounds: { type: 'string' },
      'cpu-prof': { type: 'string' },
    },
  });
}

export async function runBench(argv: string[]): Promise<{ results: Record<string, unknown>; failed: string[] }> {
  let parsed;
  try {
    parsed = parse(argv);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  const which = positionals[0];
  if (which === 'compare') {
    if (positionals.length !== 3) throw new UsageError('compare takes two result files');
    process.stdout.write(await compare(positionals.slice(1), values.out as string));
    return { results: {}, failed: [] };
  }
  if (!which || (which !== 'all' && !(which in SCENARIOS))) throw new UsageError(which ? `unknown scenario: ${which}` : 'no scenario');
  if (positionals.length > 1) throw new UsageError(`unexpected argument: ${positionals[1]}`);
  const options = knobs(argv);
  const names = which === 'all' ? Object.keys(SCENARIOS) : [which];
  const quick = values.quick === true;
  const progress = (line: string) => {
    if (!values.quiet) process.stderr.write(`\r\x1b[K${line}`);
  };
  const results: Record<string, unknown> = {};
  const failed: string[] = [];
  // --processes N: each scenario runs on one process without NATS, then on clusters of 1, 2 … N processes with NATS,
  // every layout behind the same kind of round-robin balancer, all in this run (layout 0 is the process without NATS).
  const processes = values.processes === undefined ? 0 : Number(values.processes);
  if (values.processes !== undefined && (!Number.isInteger(processes) || processes < 1)) throw new UsageError('--processes takes a whole number of at least 1');
  if (processes && values.url) throw new UsageError('--processes starts its own servers: not with --url');
  const layouts: (number | null)[] = processes ? Array.from({ length: processes + 1 }, (_, i) => i) : [null];
  // --rounds K: the layouts run interleaved, K rounds of (no NATS, 1, 2 … N), each layout on fresh servers every round,
  // so a drift of the machine (commit latency moves over minutes) falls on every layout alike; medians are compared.
  const rounds = values.rounds === undefined ? 1 : Number(values.rounds);
  if (!Number.isInteger(rounds) || rounds < 1) throw new UsageError('--rounds takes a whole number of at least 1');
  if (rounds > 1 && !processes) throw new UsageError('--rounds compares the layouts of --processes');
  const ceiling = values['no-ceiling'] ? undefined : await httpCeiling(quick, typeof options.workers === 'number' ? options.workers : Math.min(4, os.cpus().length));
  if (ceiling) progress('');
  const heartbeatMs = typeof options['heartbeat-ms'] === 'number' ? options['heartbeat-ms'] : undefined;
  const start = (layout: number | null = null) =>
    startTarget({
      url: values.url as string | undefined,
      databaseUrl: (values['database-url'] as string | undefined) ?? process.env.DATABASE_URL,
      cpuProfDir: values['cpu-prof'] as string | undefined,
      env: heartbeatMs ? { EVENT_HEARTBEAT_MS: String(heartbeatMs), EVENT_QUEUE_SWEEP_MS: String(Math.max(100, Math.floor(heartbeatMs / 10))) } : {},
      cluster: layout || undefined,
      // --processes: the layout without NATS behind the same balancer as the clusters.
      balanced: layout === 0,
    });
  // Each scenario gets a fresh server and database, except in a quick run of several: there one server serves
  // them all (a server start with its migrations costs seconds, more than a quick scenario).
  const shared = quick && names.length > 1 && !processes ? await start() : null;
  try {
    for (const name of names) {
      const byLayout = new Map<string, BenchRecord[]>();
      const runs = Array.from({ length: rounds }, (_, r) => layouts.map((layout) => ({ round: r + 1, layout }))).flat();
      for (const { round, layout } of runs) {
        const base = layout === null ? name : layout === 0 ? `${name}-1-process-no-nats` : `${name}-cluster-${layout}`;
        const label = rounds > 1 ? `${base}-round-${round}` : base;
        const target = shared ?? (await start(layout));
        try {
          const owner = await login(target.url, target.owner.email, target.owner.password);
          const loadBefore = os.loadavg()[0]!;
          const cpuBefore = sampleAll(target.pids);
          const wall = performance.now();
          const result = await SCENARIOS[name]!({ target, owner, options, quick, progress });
          const cpuAfter = sampleAll(target.pids);
          if (cpuBefore && cpuAfter) {
            result.figures.server_cpu_percent = +((100 * (cpuAfter.cpuSeconds - cpuBefore.cpuSeconds)) / ((performance.now() - wall) / 1000)).toFixed(1);
            result.figures.server_rss_mib = +(cpuAfter.rssBytes / 2 ** 20).toFixed(1);
          }
          if (target.autovacuum) result.figures.autovacuum_stand_in = `${target.autovacuum.vacuums} VACUUM, ${target.autovacuum.analyzes} ANALYZE (the server's PostgreSQL runs autovacuum off)`;
          // The machine is shared (server, database, load generator and anything else): its load is recorded beside each figure.
          result.figures.load_average_1m = `${loadBefore.toFixed(2)} → ${os.loadavg()[0]!.toFixed(2)}`;
          progress('');
          const ceilingRef = ceiling && name !== 'idle' ? { name: 'HTTP ceiling', value: ceiling.requestsPerSecond } : undefined;
          process.stdout.write(table(label, result, ceilingRef) + '\n');
          result.percentiles = percentiles(result.samples);
          const record = { scenario: name, machine: machine(), settings: { quick, options, round: rounds > 1 ? round : undefined, server: shared ? 'shared by the run' : 'own', layout: layout === null ? undefined : layoutName(layout), url: values.url ?? null, database: values['database-url'] ?? process.env.DATABASE_URL ? 'external' : 'embedded' }, ceiling, result: { ...result, samples: undefined } };
          const files = writeResults(values.out as string, label, record, await renderSvg(scenarioSpec(record)));
          process.stdout.write(`  results: ${files.json}\n  chart:   ${files.svg}\n`);
          results[label] = record;
          if (layout !== null) byLayout.set(layoutName(layout), [...(byLayout.get(layoutName(layout)) ?? []), record as BenchRecord]);
          if (result.errors > 0) failed.push(label);
        } finally {
          if (!shared) await target.stop();
        }
      }
      if (processes) process.stdout.write(clusterTable(name, byLayout) + '\n');
    }
  } finally {
    await shared?.stop();
  }
  return { results, failed };
}

function layoutName(processes: number): string {
  return processes === 0 ? 'one process, no NATS' : `${processes} process${processes === 1 ? '' : 'es'}, NATS`;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * --processes: one scenario's layouts side by side, each its runs' median (and, over several rounds, their range);
 * the cost of cluster mode is each median throughput against no NATS's, and over several rounds also the median of
 * the rounds' own costs (each round's layouts ran minutes apart at most).
 */
function clusterTable(name: string, byLayout: Map<string, BenchRecord[]>): string {
  const rows = [...byLayout];
  const throughputs = (rs: BenchRecord[]) => rs.map((r) => r.result.throughput).filter((t): t is number => t !== undefined);
  const baseRuns = throughputs(rows[0]?.[1] ?? []);
  const base = baseRuns.length ? median(baseRuns) : undefined;
  const several = rows.some(([, rs]) => rs.length > 1);
  const f = (n: unknown) => (typeof n === 'number' ? (n >= 100 ? n.toFixed(0) : n.toFixed(2)) : '-');
  const pct = (x: number) => `${(100 * x).toFixed(1)} %`;
  const cells = rows.map(([label, rs]) => {
    const tps = throughputs(rs);
    const tp = tps.length ? median(tps) : undefined;
    const cpu = rs.map((r) => r.result.figures.server_cpu_us_per_message).filter((v): v is number => typeof v === 'number');
    const errors = rs.reduce((a, r) => a + r.result.errors, 0);
    const exact = rs.map((r) => {
      const fig = r.result.figures;
      return fig.deliveries !== undefined ? `${fig.deliveries}/${fig.expected_deliveries}${fig.exactly_once === true ? ' once each' : fig.exactly_once === false ? ' NOT once each' : ''}` : '-';
    });
    // Each round's cost against the same round's run without NATS.
    const perRound = baseRuns.length === tps.length ? tps.map((t, i) => 1 - t / baseRuns[i]!) : [];
    return [
      label,
      f(tp),
      ...(several ? [tps.length ? `${f(Math.min(...tps))}–${f(Math.max(...tps))}` : '-'] : []),
      f(median(rs.map((r) => r.result.latencyMs?.p50 ?? NaN))),
      f(median(rs.map((r) => r.result.latencyMs?.p99 ?? NaN))),
      cpu.length ? `${f(median(cpu))}${several ? ` (${f(Math.min(...cpu))}–${f(Math.max(...cpu))})` : ''}` : '-',
      String(errors),
      base && tp !== undefined ? pct(1 - tp / base) : '-',
      ...(several ? [perRound.length ? `${pct(median(perRound))} (${perRound.map((c) => (100 * c).toFixed(1)).join(', ')})` : '-'] : []),
      [...new Set(exact)].join('; '),
    ];
  });
  const head = [
    'layout',
    several ? 'ops/s median' : 'ops/s',
    ...(several ? ['ops/s range'] : []),
    'p50 ms',
    'p99 ms',
    'server CPU µs/op',
    'errors',
    several ? 'cost vs no NATS (medians)' : 'cost vs no NATS',
    ...(several ? ['cost per round: median (each)'] : []),
    'deliveries',
  ];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i]!)).join(' | ')} |`;
  const title = `== ${name} by layout${several ? ` (${Math.max(...rows.map(([, rs]) => rs.length))} interleaved rounds)` : ''}`;
  return [title, line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...cells.map(line)].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const argv = process.argv.slice(2);
  if (argv.includes('--help') || argv.includes('-h')) process.stdout.write(USAGE + '\n');
  else runBench(argv).then(
    ({ failed }) => {
      process.exitCode = failed.length ? 1 : 0;
    },
    (err) => {
      process.stderr.write(`${(err as Error).message}\n`);
      process.exitCode = 2;
    },
  );
}
