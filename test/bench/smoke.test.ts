// The bench suite's smoke run: every scenario in its quick form, as a load tester runs it
// (`node dist/bench/run.js all --quick`), against the embedded database always and, when DATABASE_URL is set, against
// that PostgreSQL too (a scratch database the runner makes and drops). It asserts that each scenario
// completes and reports sane numbers, and that its JSON and SVG files are written — not how fast it was.
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCENARIOS = ['send', 'fanout', 'idle', 'register', 'history', 'mixed', 'attack', 'render'];

interface Summary {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
}

function ordered(t: import('ava').ExecutionContext, s: Summary, what: string) {
  t.true(s.count > 0, `${what}: samples`);
  // p50 may be 0: fanout measures from the send's answer to receipt, and a poll can be answered first.
  t.true(s.p50 >= 0 && s.p50 <= s.p95 && s.p95 <= s.p99 && s.p99 <= s.max && s.max > 0, `${what}: 0 ≤ p50 ≤ p95 ≤ p99 ≤ max, max > 0 (${JSON.stringify(s)})`);
}

async function smoke(t: import('ava').ExecutionContext, database: 'external' | 'embedded'): Promise<void> {
  t.timeout(240_000);
  const env: Record<string, string | undefined> = { ...process.env, LOG_LEVEL: 'warn' };
  if (database === 'embedded') delete env.DATABASE_URL;
  const out = mkdtempSync(path.join(tmpdir(), 'palaver-bench-smoke-'));
  try {
    const { stdout } = await run(process.execPath, ['dist/bench/run.js', 'all', '--quick', '--quiet', '--out', out], {
      env,
      maxBuffer: 16 * 2 ** 20,
    }).catch((e: { code: number; stdout: string; stderr: string }) => {
      throw new Error(`bench exited ${e.code}:\n${e.stdout}\n${e.stderr}`);
    });
    const files = readdirSync(out);
    const records: Record<string, any> = {};
    for (const name of SCENARIOS) {
      t.regex(stdout, new RegExp(`^== ${name}$`, 'm'), `${name}: a table on the terminal`);
      const json = files.filter((f) => f.startsWith(`${name}-`) && f.endsWith('.json'));
      const svg = files.filter((f) => f.startsWith(`${name}-`) && f.endsWith('.svg'));
      t.is(json.length, 1, `${name}: one JSON file`);
      t.is(svg.length, 1, `${name}: one SVG chart`);
      t.regex(readFileSync(path.join(out, svg[0]!), 'utf8'), /^<svg [^>]*>[\s\S]*<rect [\s\S]*<\/svg>\n$/);
      const record = JSON.parse(readFileSync(path.join(out, json[0]!), 'utf8'));
      records[name] = record;
      t.is(record.scenario, name);
      t.is(record.settings.quick, true);
      t.is(record.settings.database, database);
      t.is(typeof record.machine.commit, 'string');
      t.true(record.machine.cpus > 0);
      t.is(record.result.errors, 0, `${name}: no errors`);
      t.true(record.ceiling.requestsPerSecond > 0, 'the HTTP ceiling is measured in the same run');
      t.true(record.result.figures.server_rss_mib > 0, `${name}: server memory from /proc`);
      t.is(typeof record.result.target?.met, 'boolean', `${name}: compared with its target`);
    }
    for (const name of ['send', 'register', 'history', 'mixed']) {
      t.true(records[name].result.throughput > 0, `${name}: throughput`);
      ordered(t, records[name].result.latencyMs, name);
      // What the charts are drawn from: latency at fixed percentiles, and throughput and p99 second by second.
      t.true(records[name].result.percentiles.length > 0, `${name}: percentiles`);
      t.is(records[name].result.p99Timeline.length, records[name].result.timeline.length, `${name}: p99 over time`);
      t.regex(readFileSync(path.join(out, files.find((f) => f.startsWith(`${name}-`) && f.endsWith('.svg'))!), 'utf8'), /Latency by percentile[\s\S]*Throughput and p99 over time/);
    }
    // fanout: every client received every message.
    const fan = records.fanout.result;
    t.is(fan.figures.deliveries, fan.figures.expected_deliveries);
    ordered(t, fan.latencyMs, 'fanout');
    // idle: the queues were held and memory per queue measured.
    t.is(records.idle.result.figures.queues, 200);
    t.is(typeof records.idle.result.figures.bytes_per_queue, 'number');
    // send: the database ceiling is measured in the same run and send compared with it.
    const sendFigures = records.send.result.figures;
    t.true(sendFigures.db_ceiling_messages_per_second > 0);
    t.true(sendFigures.ratio_to_db_ceiling > 0);
    // …again at the server's own transaction size, and where the round trip and the CPU went.
    t.true(sendFigures.db_ceiling_matched_messages_per_second > 0);
    t.true(sendFigures.db_ceiling_database_cpu_us_per_message > 0, 'the ceiling backends’ CPU from /proc');
    t.true(sendFigures.mailbox_wait_mean_ms >= 0 && sendFigures.batch_mean_ms > 0 && sendFigures.server_request_mean_ms > 0, 'the round trip from /metrics');
    t.true(sendFigures.batches_in_flight_mean > 0);
    for (const party of ['server', 'database', 'load_generator']) t.true(sendFigures[`${party}_cpu_us_per_message`] > 0, `${party} CPU per message`);
    t.true(sendFigures.cpu_bound_messages_per_second > 0);
    // history: the seeded history is there, and each narrow answered.
    const hist = records.history.result;
    t.is(hist.figures.messages, 10_000);
    t.is(hist.figures.user_messages, 10_000 * hist.figures.subscribers);
    for (const narrow of ['topic', 'sender', 'search']) ordered(t, hist.breakdown[narrow], `history ${narrow}`);
    // mixed: each kind of operation happened, and events were delivered to the users' queues.
    const mix = records.mixed.result;
    for (const op of ['register', 'fetch', 'presence', 'send']) ordered(t, mix.breakdown[op], `mixed ${op}`);
    t.true(mix.figures.events_received > 0);
    t.is(mix.figures.error_percent, 0);
    // render: every worst-case shape rendered at the quick length, with CPU time per render and per shape.
    const rend = records.render.result;
    t.is(rend.figures.input_length, 2500);
    t.true(rend.figures.shapes > 0 && rend.figures.cpu_max_ms > 0 && typeof rend.figures.slowest_shape_by_cpu === 'string');
    t.truthy(rend.breakdown[`cpu: ${rend.figures.slowest_shape_by_cpu}`]);
    // attack: the mixed model measured alone and under the heavy requests, which were sent and answered.
    const att = records.attack.result;
    t.true(att.figures.mixed_p99_ms_alone > 0 && att.figures.mixed_p99_ms_under_attack > 0);
    ordered(t, att.breakdown['mixed under attack'], 'attack: mixed under attack');
    t.regex(att.figures['attack render-worst answers'], /× 200/);
    t.regex(att.figures['attack render-8mb answers'], /× (413|closed)/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

// One after the other: each run loads both cores.
test.serial('every scenario runs in its quick form on the embedded database and reports sane numbers', (t) => smoke(t, 'embedded'));

(process.env.DATABASE_URL ? test.serial : test.skip)('every scenario runs in its quick form on PostgreSQL (DATABASE_URL) and reports sane numbers', (t) =>
  smoke(t, 'external'),
);
