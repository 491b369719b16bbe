// Results: a table on the terminal, a JSON file, and an SVG chart (latency distribution, throughput over time).
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ScenarioResult } from '../scenarios/types.js';

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
  for (const [k, v] of Object.entries(r.figures)) rows.push([k, String(v)]);
  if (r.target) rows.push(['target', `${r.target.met ? 'MET' : 'MISSED'}: ${r.target.description}`]);
  const width = Math.max(...rows.map(([k]) => k.length));
  return [`== ${name}`, ...rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`)].join('\n');
}

function escape(s: string) {
  return s.replace(/[<>&"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', '"': '&quot;' })[c]!);
}

/** Two panels: a latency histogram (log-spaced buckets) and operations per second. */
export function svg(name: string, r: ScenarioResult): string {
  const W = 720;
  const H = 260;
  const pad = 40;
  const panel = (x0: number, title: string, values: number[], labels: string[]) => {
    const w = W / 2 - pad * 1.5;
    const h = H - pad * 2;
    const max = Math.max(1, ...values);
    const bw = values.length ? w / values.length : w;
    const bars = values
      .map((v, i) => `<rect x="${(x0 + i * bw).toFixed(1)}" y="${(pad + h - (v / max) * h).toFixed(1)}" width="${Math.max(1, bw - 1).toFixed(1)}" height="${((v / max) * h).toFixed(1)}" fill="#4c78a8"/>`)
      .join('');
    const first = labels[0] ?? '';
    const last = labels[labels.length - 1] ?? '';
    return `<text x="${x0}" y="${pad - 12}" font-size="13">${escape(title)} (max ${max})</text>${bars}
<line x1="${x0}" y1="${pad + h}" x2="${x0 + w}" y2="${pad + h}" stroke="#333"/>
<text x="${x0}" y="${pad + h + 16}" font-size="11">${escape(first)}</text><text x="${x0 + w}" y="${pad + h + 16}" font-size="11" text-anchor="end">${escape(last)}</text>`;
  };
  const edges = [0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 60000, 120000];
  const counts = new Array(edges.length).fill(0);
  for (const s of r.samples) counts[Math.min(edges.length - 1, edges.findIndex((e) => s <= e) === -1 ? edges.length - 1 : edges.findIndex((e) => s <= e))]++;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${pad}" y="18" font-size="15" font-weight="bold">${escape(name)}</text>
${panel(pad, 'latency distribution (ms buckets)', counts, [`≤${edges[0]}`, `≤${edges[edges.length - 1]}`])}
${panel(W / 2 + pad / 2, 'operations per second over time', r.timeline, ['0 s', `${r.timeline.length} s`])}
</svg>\n`;
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
