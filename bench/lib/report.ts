// Results: a table on the terminal, a JSON file, and an SVG of its charts (bench/lib/charts.ts).
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioResult } from '../scenarios/types.js';
import type { Ratio } from './charts.js';
import type { TimelineSecond } from './step-timeline.js';

export function machine() {
  let commit = 'unknown';
  try {
    commit = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim();
  } catch {
    // not a git checkout
  }
  return {
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
    node: process.version,
    platform: `${os.platform()} ${os.release()}`,
    commit,
  };
}

const fmt = (n: number | undefined) => (n === undefined || Number.isNaN(n) ? '-' : n >= 100 ? n.toFixed(0) : n.toFixed(2));

export function table(name: string, r: ScenarioResult, ceiling?: { name: string; value: number }): string {
  const rows: [string, string][] = [];
  if (r.throughput !== undefined) rows.push(['throughput (ops/s)', fmt(r.throughput)]);
  if (ceiling && r.throughput !== undefined) rows.push([`ratio to ${ceiling.name}`, (r.throughput / ceiling.value).toFixed(3)]);
  if (r.latencyMs) {
    const l = r.latencyMs;
    rows.push(['latency p50 / p95 / p99 / max (ms)', `${fmt(l.p50)} / ${fmt(l.p95)} / ${fmt(l.p99)} / ${fmt(l.max)}`]);
  }
  rows.push(['errors', String(r.errors)]);
  for (const s of r.ramp ?? []) {
    rows.push([`ramp ${s.users} users`, `worst p99 ${s.worst_p99_ms} ms (${s.worst_op}), errors ${s.error_percent} %, ${s.actions_per_second} actions/s: ${s.held ? 'held' : 'BROKE'}`]);
    const settle = s.settle;
    if (settle) {
      const worst = worstSecond(s.timeline ?? []);
      rows.push([
        `  ${s.users}: set-up, settle, worst second`,
        `set-up ${s.setup_seconds ?? '-'} s; ${settle.settled ? 'settled' : 'NOT settled'} in ${settle.seconds} s (events held ${settle.events_held ?? '-'} ≤ ${settle.held_at_most}, polls parked ${settle.long_polls_parked ?? '-'} ≥ ${settle.parked_at_least}, realm commands waiting ${settle.realm_commands_waiting ?? '-'} ≤ ${settle.waiting_at_most}); worst measured second ${worst ? `t=${worst.t} s: ${worst.op} p99 ${worst.p99} ms` : '-'}`,
      ]);
    }
    const l = s.limits;
    if (!l) continue;
    const route = Object.entries(l.server_p99_ms).sort((a, b) => b[1] - a[1])[0];
    rows.push([
      `  ${s.users}: CPU %, loop lag p99 / max ms`,
      `generator ${l.generator_cpu_percent} %, ${l.generator_loop_lag_p99_ms} / ${l.generator_loop_lag_max_ms}; server ${l.server_cpu_percent ?? '-'} %, ${l.server_loop_lag_p99_ms ?? '-'} / ${l.server_loop_lag_max_ms ?? '-'}; PostgreSQL ${l.postgres_cpu_percent ?? '-'} %; server's worst p99 ≤ ${route ? `${route[1]} ms (${route[0]})` : '-'}`,
    ]);
  }
  for (const [k, v] of Object.entries(r.figures)) rows.push([k, String(v)]);
  if (r.target) rows.push(['target', `${r.target.met ? 'MET' : 'MISSED'}: ${r.target.description}`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return [`== ${name}`, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)].join('\n');
}

export function writeResults(dir: string, name: string, record: unknown, chart: string): { json: string; svg: string } {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const json = path.join(dir, `${name}-${stamp}.json`);
  const svgPath = path.join(dir, `${name}-${stamp}.svg`);
  writeFileSync(json, JSON.stringify(record, null, 2) + '\n');
  writeFileSync(svgPath, chart);
  return { json, svg: svgPath };
}

/** `compare`'s table: each figure of A and B and their ratio. */
export function ratioTable(rows: Ratio[], labels: [string, string]): string {
  const cells = rows.map((r) => [r.metric, fmt(r.a), fmt(r.b), r.ratio.toFixed(3)]);
  const head = ['figure', `A (${labels[0]})`, `B (${labels[1]})`, 'B / A'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)));
  const line = (c: string[]) => `| ${c.map((x, i) => (i ? x.padStart(widths[i]!) : x.padEnd(widths[i]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w, i) => (i ? '-'.repeat(w + 1) + ':' : '-'.repeat(w + 2))).join('|')}|`, ...cells.map(line)].join('\n');
}

/** The measured second with the highest p99 of any operation (timeline rows from the measuring's start). */
function worstSecond(rows: TimelineSecond[]): { t: number; op: string; p99: number } | null {
  let worst: { t: number; op: string; p99: number } | null = null;
  for (const r of rows) {
    if (r.phase !== 'measure') continue;
    for (const [op, [, p99]] of Object.entries(r.actions)) if (!worst || p99 > worst.p99) worst = { t: r.t, op, p99 };
  }
  return worst;
}
