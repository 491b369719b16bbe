// The bench runner's command line: --help, arguments it does not know, `compare` of two recorded result files,
// a short `mixed --ramp` and a short `fanout --transport socket` with its long-poll and WebSocket floors (a real server and load: on
// DATABASE_URL's PostgreSQL when set, else embedded).
import test from 'ava';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const exec = promisify(execFile);
const RESULTS = 'test/bench/results';

async function bench(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return exec(process.execPath, ['dist/bench/run.js', ...args], { env: { ...process.env, LOG_LEVEL: 'warn' }, maxBuffer: 16 * 2 ** 20 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

test('--help prints the usage and exits 0', async (t) => {
  for (const flag of ['--help', '-h']) {
    const r = await bench([flag]);
    t.is(r.code, 0);
    t.regex(r.stdout, /^usage: npm run bench -- <send\|fanout\|[a-z|]+\|all>/);
    t.regex(r.stdout, /npm run bench -- mixed --ramp/);
    t.regex(r.stdout, /npm run bench -- compare A\.json B\.json/);
  }
});

test('arguments the runner does not know exit 2 with the usage', async (t) => {
  for (const [args, problem] of [
    [['nonsense'], /^unknown scenario: nonsense$/m],
    [[], /^no scenario$/m],
    [['send', 'extra'], /^unexpected argument: extra$/m],
    [['-x'], /Unknown option '-x'/],
    [['compare', `${RESULTS}/mixed-quick.json`], /^compare takes two result files$/m],
    [['send', '--rounds', '2'], /^--rounds compares the layouts of --processes$/m],
    [['send', '--processes', '1', '--rounds', '0'], /^--rounds takes a whole number of at least 1$/m],
  ] as const) {
    const r = await bench([...args]);
    t.is(r.code, 2, args.join(' '));
    t.regex(r.stderr, problem);
    t.regex(r.stderr, /^usage: npm run bench -- /m);
  }
});

test('compare prints the ratios of two result files and writes their chart', async (t) => {
  const out = mkdtempSync(path.join(tmpdir(), 'palaver-bench-compare-'));
  try {
    const r = await bench(['compare', `${RESULTS}/mixed-quick.json`, `${RESULTS}/mixed-ramp-quick.json`, '--out', out]);
    t.is(r.code, 0, r.stderr);
    const a = JSON.parse(readFileSync(`${RESULTS}/mixed-quick.json`, 'utf8'));
    const b = JSON.parse(readFileSync(`${RESULTS}/mixed-ramp-quick.json`, 'utf8'));
    t.regex(r.stdout, /^\| figure +\| A \(mixed-quick\) \| +B \(mixed-ramp-quick\) \| +B \/ A \|$/m);
    t.regex(r.stdout, new RegExp(`^\\| throughput \\(ops/s\\) +\\|.*\\| +${(b.result.throughput / a.result.throughput).toFixed(3)} \\|$`, 'm'));
    const chart = /chart: +(\S+\.svg)$/m.exec(r.stdout)![1]!;
    t.true(existsSync(chart));
    t.regex(readFileSync(chart, 'utf8'), /B \/ A: mixed-ramp-quick over mixed-quick/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

/** A quick `mixed --ramp` with these knobs: its output and its result file. */
async function quickRamp(t: import('ava').ExecutionContext, knobs: string[]): Promise<{ stdout: string; record: any }> {
  t.timeout(180_000);
  const out = mkdtempSync(path.join(tmpdir(), 'palaver-bench-ramp-'));
  try {
    const r = await bench(['mixed', '--ramp', '--quick', '--quiet', '--no-ceiling', ...knobs, '--out', out]);
    t.is(r.code, 0, r.stderr);
    const files = readdirSync(out);
    t.regex(readFileSync(path.join(out, files.find((f) => f.endsWith('.svg'))!), 'utf8'), /Ramp: users against p99 and errors/);
    return { stdout: r.stdout, record: JSON.parse(readFileSync(path.join(out, files.find((f) => f.endsWith('.json'))!), 'utf8')) };
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

test('mixed --ramp adds users step by step and reports the last count that held, and what each step spent', async (t) => {
  // A limit no loaded machine misses, so the ramp runs to --ramp-max: 5, 10, 15 users; 2 users per worker thread.
  const { stdout, record } = await quickRamp(t, ['--p99-ms', '60000', '--users-per-worker', '2']);
  const { ramp, figures } = record.result;
  t.deepEqual(
    ramp.map((s: { users: number }) => s.users),
    [5, 10, 15],
  );
  for (const s of ramp) {
    t.true(s.held);
    t.true(s.actions_per_second > 0 && s.worst_p99_ms > 0 && s.polls_per_second > 0);
    t.is(s.error_percent, 0);
    // Each party's CPU and event-loop lag over the step, and the server's own view of its latency.
    const l = s.limits;
    t.true(l.generator_cpu_percent > 0 && l.server_cpu_percent > 0, JSON.stringify(l));
    // The database backends' CPU (clock ticks of 10 ms: a quick step's may round to 0).
    t.true(l.postgres_cpu_percent >= 0, JSON.stringify(l));
    for (const k of ['generator_loop_lag_p99_ms', 'generator_loop_lag_max_ms', 'server_loop_lag_p99_ms', 'server_loop_lag_max_ms']) t.true(l[k] >= 0, k);
    t.true(l.server_p99_ms['GET /api/v1/messages'] > 0 || l.server_p99_ms['POST /api/v1/users/me/presence'] > 0, JSON.stringify(l.server_p99_ms));
    t.true(Object.keys(l.realm_wait_p99_ms).length > 0 && Object.keys(l.realm_batch_p99_ms).length > 0);
    // The wait for the set-up's work, and the step second by second from its set-up to its end.
    t.true(s.setup_seconds > 0 && s.settle.settled, JSON.stringify(s.settle));
    // The rows' phases in order (a quick set-up may end within its first second, which then counts as the settle's).
    const order = ['setup', 'settle', 'measure'];
    const phases = s.timeline.map((r: { phase: string }) => order.indexOf(r.phase));
    t.true(phases[0] <= 1 && phases.every((p: number, i: number) => p >= 0 && (i === 0 || p >= phases[i - 1])), JSON.stringify(s.timeline));
    const measured = s.timeline.filter((r: { phase: string }) => r.phase === 'measure');
    t.true(measured.length >= 2 && measured[0].t === 0, JSON.stringify(s.timeline));
    t.true(measured.some((r: { actions: object; server_requests: number }) => Object.keys(r.actions).length > 0 && r.server_requests > 0));
  }
  // Each step's 5 users on 3 workers (2, 2 and 1).
  t.is(figures.generator_workers, 9);
  t.regex(stdout, /^ {4}15: CPU %, loop lag p99 \/ max ms +generator [\d.]+ %/m);
  t.regex(stdout, /^ {4}15: set-up, settle, worst second +set-up [\d.]+ s; settled in [\d.]+ s \(events held \d+ ≤ \d+, polls parked \d+ ≥ \d+, realm commands waiting \d+ ≤ 64\); worst measured second t=\d+ s: \w+ p99 [\d.]+ ms$/m);
  t.is(figures.ceiling_users, 15);
  t.is(figures.ramp_stopped_by, '--ramp-max 15 reached');
  t.regex(stdout, /^ {2}ramp 15 users +worst p99 [\d.]+ ms \(\w+\), errors 0 %, [\d.]+ actions\/s: held$/m);
});

test('mixed --ramp stops at the first step that breaks the threshold, with no user count held', async (t) => {
  // A p99 limit no request meets: the first step breaks it.
  const { stdout, record } = await quickRamp(t, ['--p99-ms', '0.001']);
  const { ramp, figures } = record.result;
  t.is(ramp.length, 1);
  t.false(ramp[0].held);
  t.is(figures.ceiling_users, 0);
  t.regex(figures.ramp_stopped_by, /^\w+ p99 [\d.]+ ms > 0.001 ms$/);
  t.regex(stdout, /^ {2}ramp 5 users +worst p99 .*: BROKE$/m);
});

test('fanout --transport socket measures the long-poll floor and the WebSocket floor in the same run: per-socket send and topic publish, every message delivered', async (t) => {
  t.timeout(180_000);
  const out = mkdtempSync(path.join(tmpdir(), 'palaver-bench-fanout-'));
  try {
    const r = await bench(['fanout', '--transport', 'socket', '--quick', '--quiet', '--no-ceiling', '--out', out]);
    t.is(r.code, 0, r.stderr);
    const f = JSON.parse(readFileSync(path.join(out, readdirSync(out).find((x) => x.endsWith('.json'))!), 'utf8')).result.figures;
    t.is(f.socket_deliveries, f.expected_deliveries);
    t.true(f.socket_mean_frame_bytes > 100, 'the socket run’s mean frame size, from /metrics');
    t.is(f.floor_frame_bytes, f.socket_mean_frame_bytes, 'the floor pushes frames of that size');
    for (const mode of ['send', 'publish']) {
      t.is(f[`floor_${mode}_deliveries`], f.expected_deliveries, `floor ${mode}: every socket got every frame`);
      const cpu = f[`floor_${mode}_server_cpu_us_per_delivery`];
      t.is(typeof cpu, 'number', `floor ${mode}: the floor server's CPU per delivery`);
      t.true(f[`floor_${mode}_server_system_cpu_us_per_delivery`] <= cpu);
      t.true(`socket_cpu_ratio_to_floor_${mode}` in f);
    }
    t.regex(r.stdout, /^ {2}floor_publish_server_cpu_us_per_delivery +[\d.]+$/m);
    // The long-poll floor, after the polling run: the same clients polling a bare uWS server answering with bodies of
    // the polling run's mean answer size.
    t.true(f.poll_mean_answer_bytes > 100, 'the polling run’s mean answer size, as the clients read it');
    t.is(f.floor_poll_answer_bytes, f.poll_mean_answer_bytes, 'the poll floor answers with bodies of that size');
    t.is(f.floor_poll_deliveries, f.expected_deliveries, 'poll floor: every client got every message');
    t.is(typeof f.floor_poll_server_cpu_us_per_delivery, 'number');
    t.true(f.floor_poll_server_system_cpu_us_per_delivery <= f.floor_poll_server_cpu_us_per_delivery);
    t.true('poll_cpu_ratio_to_floor' in f);
    t.regex(r.stdout, /^ {2}floor_poll_server_cpu_us_per_delivery +[\d.]+$/m);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});

test('send --cpu-prof DIR --warmup 1: the server writes its CPU profile there, and the run counts its write transactions and records its warm-up', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-prof-'));
  try {
    const { code, stdout, stderr } = await bench(['send', '--quick', '--no-ceiling', '--quiet', '--db-ceiling-seconds', '0', '--warmup', '1', '--cpu-prof', dir, '--out', dir]);
    t.is(code, 0, stderr);
    const profiles = readdirSync(dir).filter((f) => f.endsWith('.cpuprofile'));
    t.true(profiles.length >= 1, `profiles in ${dir}: ${readdirSync(dir).join(', ')}`);
    const profile = JSON.parse(readFileSync(path.join(dir, profiles[0]!), 'utf8'));
    t.true(Array.isArray(profile.nodes) && profile.nodes.length > 0);
    t.regex(stdout, /^ {2}write_transactions +\d+$/m);
    t.regex(stdout, /^ {2}writes_per_transaction +[\d.]+$/m);
    t.regex(stdout, /^ {2}warmup_seconds +1$/m);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('send --processes 1 --rounds 2: the layouts interleaved, their medians, each round\'s cost, CPU and writes per transaction of each', async (t) => {
  if (!process.env.DATABASE_URL) return t.pass('--processes needs an external PostgreSQL (DATABASE_URL)');
  const out = mkdtempSync(path.join(tmpdir(), 'bench-rounds-'));
  try {
    const r = await bench(['send', '--quick', '--no-ceiling', '--quiet', '--processes', '1', '--rounds', '2', '--db-ceiling-seconds', '0', '--out', out]);
    t.is(r.code, 0, r.stderr);
    // Interleaved: no NATS, 1 process, no NATS, 1 process.
    const order = [...r.stdout.matchAll(/^== (send-\S+)$/gm)].map((m) => m[1]);
    t.deepEqual(order, ['send-1-process-no-nats-round-1', 'send-cluster-1-round-1', 'send-1-process-no-nats-round-2', 'send-cluster-1-round-2']);
    t.regex(r.stdout, /^== send by layout \(2 interleaved rounds\)$/m);
    const row = r.stdout.split('\n').find((l) => l.startsWith('| 1 process, NATS'))!;
    const cells = row.split('|').map((c) => c.trim());
    // layout, median, range, p50, p99, CPU µs/op (range), errors, cost (medians), cost per round: median (each)
    t.regex(cells[3]!, /^[\d.]+–[\d.]+$/);
    t.regex(cells[6]!, /^[\d.]+ \([\d.]+–[\d.]+\)$/);
    t.regex(cells[9]!, /^-?[\d.]+ % \(-?[\d.]+, -?[\d.]+\)$/);
    // The cluster layout's own figures: server CPU per message and, from its node-labelled metrics, its transactions.
    const record = JSON.parse(readFileSync(path.join(out, readdirSync(out).find((f) => f.startsWith('send-cluster-1-round-2') && f.endsWith('.json'))!), 'utf8'));
    t.is(record.settings.round, 2);
    t.true(record.result.figures.server_cpu_us_per_message > 0);
    t.true(record.result.figures.write_transactions > 0);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
