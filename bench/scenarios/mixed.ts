// mixed: a realistic user model at a target user count. Each simulated user registers an event queue and
// keeps a long-poll parked on it, and between think times does one of: fetch recent messages of a channel,
// presence ping, mark received messages read, send a message, react to a received message. Reports latency
// per operation and whether the thresholds held (every operation's p99 under --p99-ms, errors under
// --max-error-percent), like the ceiling tests of other chat servers. With --ramp it adds users step by step
// and reports the last user count at which the thresholds held (the ceiling).
import { forEachBounded } from '../lib/bounded.js';
import { openFilesCap, request } from '../lib/client.js';
import { ACTION_NAMES, type Action, type MixedInput, type MixedUser, type WindowData } from '../lib/mixed-users.js';
import { LimitsProbe } from '../lib/probe.js';
import type { Target } from '../lib/server.js';
import { StepTimeline, traffic } from '../lib/step-timeline.js';
import { PerSecond, summarize, type Summary } from '../lib/stats.js';
import { runJobs, slices, type WorkerPool } from '../lib/workers.js';
import { seedUsers } from './seed.js';
import { num, type RampStep, type StepSettle, type Scenario, type ScenarioContext, type ScenarioResult } from './types.js';

type Op = 'register' | Action;

/** What happened during one measuring window (the whole run, or one ramp step). */
export class Window {
  /** Action latencies by the second they finished in, counted from the window's start. */
  readonly bySecond = new PerSecond();

  get started(): number {
    return this.bySecond.start;
  }

  set started(at: number) {
    this.bySecond.start = at;
  }

  readonly samples = new Map<Op, number[]>((['register', ...ACTION_NAMES] as Op[]).map((o) => [o, []]));
  readonly errors = new Map<Op | 'poll', number>();
  polls = 0;
  events = 0;
  /** The worst event-loop lag of the workers (ms beyond the timer). */
  readonly workerLag = { p99: 0, max: 0 };

  /**
   * Adds what a worker measured: the actions that started in the window (one that started before it, during a step's
   * set-up or settle, finished in it but measures that phase, which counts in the total only).
   */
  merge(d: WindowData): void {
    const origin = performance.timeOrigin + this.started;
    for (const [op, pairs] of Object.entries(d.finished) as [Action, number[]][]) {
      const samples = this.samples.get(op)!;
      for (let i = 0; i < pairs.length; i += 2) {
        if (pairs[i + 1]! - pairs[i]! < origin) continue;
        samples.push(pairs[i]!);
        this.bySecond.add(pairs[i]!, Math.floor((pairs[i + 1]! - origin) / 1000));
      }
    }
    for (const [op, n] of Object.entries(d.errors) as [Action | 'poll', number][]) this.errors.set(op, (this.errors.get(op) ?? 0) + n);
    this.polls += d.polls;
    this.events += d.events;
    this.workerLag.p99 = Math.max(this.workerLag.p99, d.lag.p99);
    this.workerLag.max = Math.max(this.workerLag.max, d.lag.max);
  }

  /** Per-operation percentiles, the worst action p99 and the error rate over every request. */
  summary() {
    const breakdown: Record<string, Summary> = {};
    const actionSamples: number[] = [];
    let requests = this.polls;
    let worstP99 = 0;
    let worstOp = '-';
    for (const [op, s] of this.samples) {
      const sum = summarize(s);
      breakdown[op] = sum;
      requests += s.length + (this.errors.get(op) ?? 0);
      if (op === 'register') continue;
      actionSamples.push(...s);
      if (s.length && sum.p99 > worstP99) [worstP99, worstOp] = [sum.p99, op];
    }
    const errors = [...this.errors.values()].reduce((a, b) => a + b, 0);
    return { breakdown, actionSamples, worstP99, worstOp, errors, errorPercent: (100 * errors) / Math.max(1, requests) };
  }
}

/**
 * The user model, running: users are added in batches, each batch's users acting on worker threads of at most
 * --users-per-worker users each (bench/lib/mixed-users.ts), until stop(). What the workers measure is collected
 * when asked (collect()) and when they stop.
 */
class MixedLoad {
  private readonly pools: { pool: WorkerPool<WindowData>; workers: number }[] = [];
  private count_ = 0;
  private batch = 0;
  private asked = 0;
  private readonly answers = new Map<number, { data: WindowData[]; left: number; done: () => void }>();
  /** Every request is counted in `total` and in the current window. */
  readonly total = new Window();
  window = this.total;
  /** The ramp step's timeline while one is recorded: every action finished is added to it too. */
  timeline: StepTimeline | null = null;

  constructor(
    private readonly ctx: ScenarioContext,
    private readonly channelSize: number,
    private readonly thinkMs: number,
    private readonly usersPerWorker: number,
  ) {}

  get count(): number {
    return this.count_;
  }

  /** The worker threads the users run on. */
  get workers(): number {
    return this.pools.reduce((a, p) => a + p.workers, 0);
  }

  private windows(): Window[] {
    return this.window === this.total ? [this.total] : [this.total, this.window];
  }

  private merge(d: WindowData): void {
    for (const w of this.windows()) w.merge(d);
    if (this.timeline) for (const [op, pairs] of Object.entries(d.finished)) this.timeline.add(op, pairs);
  }

  /** Creates n users in channels of channelSize, registers their queues (16 at a time) and starts them. */
  async addUsers(n: number): Promise<void> {
    const { ctx } = this;
    const base = ctx.target.url;
    const people = await seedUsers(ctx, n, `mix${this.batch}`);
    const ids = people.map((p) => p.userId);
    const run = `${Date.now().toString(36)}-${this.batch++}`;
    const channels: string[] = [];
    for (let c = 0; c * this.channelSize < n; c++) {
      const name = `mixed-${run}-${c}`;
      const r = await request(base, 'POST', '/channels/create', { auth: ctx.owner, form: { name, subscribers: JSON.stringify(ids.slice(c * this.channelSize, (c + 1) * this.channelSize)) } });
      if (r.status !== 200) throw new Error(`channel: ${JSON.stringify(r.body)}`);
      channels.push(name);
    }
    const added: MixedUser[] = new Array(n);
    await forEachBounded(n, 16, async (i) => {
      const r = await request(base, 'POST', '/register', { auth: people[i]!, form: { apply_markdown: 'true' } }).catch(() => null);
      if (!r || r.status !== 200) {
        for (const win of this.windows()) win.errors.set('register', (win.errors.get('register') ?? 0) + 1);
        throw new Error(`register: ${JSON.stringify(r?.body)}`);
      }
      for (const win of this.windows()) win.samples.get('register')!.push(r.ms);
      added[i] = { creds: people[i]!, channel: channels[Math.floor(i / this.channelSize)]!, queue: r.body.queue_id, lastEventId: r.body.last_event_id };
    });
    // Each user's index among all users of the run numbers its messages and picks its poll's agent.
    const first = this.count_ + 1;
    const inputs = slices(added, Math.ceil(n / this.usersPerWorker)).map((part): MixedInput => ({ base, thinkMs: this.thinkMs, users: part.map(({ index, item }) => ({ index: first + index, item })) }));
    const pool = runJobs<MixedInput, WindowData>('mixedUsers', inputs, (m: { kind: string; id: number; data: WindowData }) => {
      if (m.kind !== 'window') return;
      const a = this.answers.get(m.id);
      if (!a) return;
      a.data.push(m.data);
      if (--a.left === 0) a.done();
    });
    this.pools.push({ pool, workers: inputs.length });
    this.count_ += n;
  }

  /** What every worker measured since the last collect, added to the current windows. */
  async collect(): Promise<void> {
    const id = ++this.asked;
    const left = this.workers;
    if (left === 0) return;
    const data: WindowData[] = [];
    const answered = new Promise<void>((done) => {
      this.answers.set(id, { data, left, done });
      for (const p of this.pools) p.pool.broadcast({ type: 'window', id });
    });
    // A worker that failed (or ended) would never answer: its pool's failure ends the wait.
    const ended = this.pools.map((p) =>
      p.pool.done.then(() => {
        throw new Error('a mixed worker ended before it was stopped');
      }),
    );
    for (const e of ended) e.catch(() => undefined); // the race reports the first; these end when the pools stop
    await Promise.race([answered, ...ended]).finally(() => this.answers.delete(id));
    for (const d of data) this.merge(d);
  }

  /** Stops every worker's users (each waits for its actions in flight, deletes its queues and waits for its polls) and adds what they measured last. */
  async stop(): Promise<void> {
    for (const p of this.pools) p.pool.broadcast({ type: 'stop' });
    for (const p of this.pools) for (const d of await p.pool.done) this.merge(d);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The result's percentiles, figures and timeline from a window. */
function report(w: Window, elapsed: number, figures: ScenarioResult['figures']): Omit<ScenarioResult, 'target'> {
  const s = w.summary();
  for (const [op, sum] of Object.entries(s.breakdown)) {
    figures[`${op} n / p50 / p95 / p99 / max ms`] = sum.count ? `${sum.count} / ${sum.p50.toFixed(1)} / ${sum.p95.toFixed(1)} / ${sum.p99.toFixed(1)} / ${sum.max.toFixed(1)}` : '0';
  }
  for (const [op, e] of w.errors) figures[`errors ${op}`] = e;
  figures.polls_answered = w.polls;
  figures.events_received = w.events;
  figures.error_percent = +s.errorPercent.toFixed(3);
  figures.worst_p99_ms = +s.worstP99.toFixed(1);
  const timeline = w.bySecond.result();
  return {
    throughput: s.actionSamples.length / elapsed,
    latencyMs: summarize(s.actionSamples),
    errors: s.errors,
    breakdown: s.breakdown,
    samples: s.actionSamples,
    timeline: timeline.counts,
    p99Timeline: timeline.p99,
    figures,
  };
}

export const mixed: Scenario = async (ctx) => {
  const channelSize = num(ctx.options, 'channel-size', ctx.quick ? 5 : 20);
  const thinkMs = num(ctx.options, 'think-ms', ctx.quick ? 200 : 2000);
  const p99Limit = num(ctx.options, 'p99-ms', 200);
  const maxErrorPercent = num(ctx.options, 'max-error-percent', 0.1);
  const load = new MixedLoad(ctx, channelSize, thinkMs, num(ctx.options, 'users-per-worker', 250));
  if (ctx.options.ramp === true) return ramp(ctx, load, { channelSize, thinkMs, p99Limit, maxErrorPercent });

  const users = num(ctx.options, 'users', ctx.quick ? 10 : 200);
  const seconds = num(ctx.options, 'duration', ctx.quick ? 4 : 60);
  await load.addUsers(users);
  load.total.started = performance.now();
  const end = load.total.started + seconds * 1000;
  for (let now = performance.now(); now < end; now = performance.now()) {
    await sleep(Math.min(1000, end - now));
    await load.collect();
    const ops = [...load.total.samples.values()].reduce((a, s) => a + s.length, 0);
    ctx.progress(`mixed: ${users} users, ${Math.round((performance.now() - load.total.started) / 1000)}/${seconds} s, ${ops} operations, ${load.total.events} events`);
  }
  const elapsed = (performance.now() - load.total.started) / 1000;
  await load.stop();
  const r = report(load.total, elapsed, { users, channel_size: channelSize, seconds, think_ms: thinkMs, generator_workers: load.workers });
  return {
    ...r,
    target: {
      description: `${users} users: every operation's p99 (register aside) under ${p99Limit} ms, errors under ${maxErrorPercent}%`,
      met: (r.figures.worst_p99_ms as number) < p99Limit && (r.figures.error_percent as number) < maxErrorPercent,
    },
  };
};

/**
 * Waits, at most maxSeconds, until the server's event queues hold at most `heldAtMost` events unacknowledged (the
 * events of a step's set-up, each new user and channel an event to every user, delivered and acknowledged), at least
 * `parkedAtLeast` polls are parked (the new users' polls connected) and at most `waitingAtMost` commands wait in the
 * realm actors' mailboxes (the users' writes queued behind the set-up's load committed), so the set-up does not spill
 * into the step's measuring. Checked every 250 ms.
 */
export async function settle(target: Target, limits: { heldAtMost: number; parkedAtLeast: number; waitingAtMost: number }, maxSeconds: number): Promise<StepSettle> {
  const started = performance.now();
  const first = await traffic(target);
  let now = first;
  const done = () =>
    now !== null && now.events_held <= limits.heldAtMost && now.long_polls_parked >= limits.parkedAtLeast && now.realm_commands_waiting <= limits.waitingAtMost;
  while (now !== null && !done() && performance.now() - started < maxSeconds * 1000) {
    await sleep(250);
    now = await traffic(target);
  }
  return {
    seconds: +((performance.now() - started) / 1000).toFixed(2),
    held_at_most: Math.round(limits.heldAtMost),
    parked_at_least: Math.round(limits.parkedAtLeast),
    waiting_at_most: limits.waitingAtMost,
    events_held_first: first?.events_held ?? null,
    events_held: now?.events_held ?? null,
    long_polls_parked_first: first?.long_polls_parked ?? null,
    long_polls_parked: now?.long_polls_parked ?? null,
    realm_commands_waiting_first: first?.realm_commands_waiting ?? null,
    realm_commands_waiting: now?.realm_commands_waiting ?? null,
    settled: done(),
  };
}

/**
 * The ceiling search: users are added --ramp-step at a time (from --ramp-start), each step measured for --duration
 * seconds with every user acting, until an operation's p99 exceeds --p99-ms or errors exceed --max-error-percent.
 * Each user holds at most two sockets of the load generator (its parked poll and an action), so the ramp stops
 * below this process's open-files cap.
 */
async function ramp(ctx: ScenarioContext, load: MixedLoad, o: { channelSize: number; thinkMs: number; p99Limit: number; maxErrorPercent: number }): Promise<ScenarioResult> {
  const settleMaxSeconds = num(ctx.options, 'settle-max-seconds', 30);
  const settleHeldPerUser = num(ctx.options, 'settle-held-per-user', 0.5);
  const settleParkedShare = num(ctx.options, 'settle-parked-share', 0.9);
  const settleWaiting = num(ctx.options, 'settle-realm-waiting', 64);
  const first = num(ctx.options, 'ramp-start', ctx.quick ? 5 : 100);
  const step = num(ctx.options, 'ramp-step', ctx.quick ? 5 : 100);
  const socketBound = Math.floor((openFilesCap() - 1000) / 2);
  const max = Math.min(num(ctx.options, 'ramp-max', ctx.quick ? 15 : 10_000), socketBound);
  const seconds = num(ctx.options, 'duration', ctx.quick ? 2 : 30);
  const steps: RampStep[] = [];
  let stopReason = `--ramp-max ${max} reached`;
  if (max === socketBound) stopReason = `the load generator's open-files cap (${openFilesCap()}: 2 sockets per user)`;
  const probe = new LimitsProbe(ctx.target);
  try {
    while (load.count < max) {
      const timeline = (load.timeline = new StepTimeline(ctx.target));
      timeline.start();
      const setupStarted = performance.now();
      await load.addUsers(Math.min(load.count === 0 ? first : step, max - load.count));
      if (steps.length === 0) load.total.started = performance.now();
      const setupSeconds = (performance.now() - setupStarted) / 1000;
      timeline.phase('settle');
      const settled = await settle(ctx.target, { heldAtMost: load.count * settleHeldPerUser, parkedAtLeast: load.count * settleParkedShare, waitingAtMost: settleWaiting }, settleMaxSeconds);
      // What was measured while the step's users were added and settled counts in the total only.
      await load.collect();
      const w = (load.window = new Window());
      timeline.phase('measure', performance.timeOrigin + w.started);
      await probe.start();
      ctx.progress(`mixed --ramp: ${load.count} users, measuring ${seconds} s`);
      await sleep(seconds * 1000);
      await load.collect();
      const limits = await probe.finish(w.workerLag);
      load.timeline = null;
      const s = w.summary();
      const measured = (performance.now() - w.started) / 1000;
      const held = s.worstP99 <= o.p99Limit && s.errorPercent <= o.maxErrorPercent;
      steps.push({
        users: load.count,
        worst_p99_ms: +s.worstP99.toFixed(1),
        worst_op: s.worstOp,
        error_percent: +s.errorPercent.toFixed(3),
        actions_per_second: +(s.actionSamples.length / measured).toFixed(1),
        polls_per_second: +(w.polls / measured).toFixed(1),
        held,
        setup_seconds: +setupSeconds.toFixed(1),
        settle: settled,
        limits,
        timeline: await timeline.finish(),
      });
      if (!held) {
        stopReason = s.errorPercent > o.maxErrorPercent ? `errors ${s.errorPercent.toFixed(3)} % > ${o.maxErrorPercent} %` : `${s.worstOp} p99 ${s.worstP99.toFixed(1)} ms > ${o.p99Limit} ms`;
        break;
      }
    }
  } finally {
    load.window = load.total;
    load.timeline?.stop();
    load.timeline = null;
    await probe.close();
    // Also on a failure: the workers' users would otherwise keep acting (and this process running).
    await load.stop();
  }
  const ceiling = [...steps].reverse().find((s) => s.held)?.users ?? 0;
  const elapsed = (performance.now() - load.total.started) / 1000;
  const r = report(load.total, elapsed, {
    ceiling_users: ceiling,
    ramp_stopped_by: stopReason,
    ramp: `from ${first}, +${step} users per step, ${seconds} s per step, settling up to ${settleMaxSeconds} s to ${settleHeldPerUser} events held per user and ${settleParkedShare} of the users' polls parked and ${settleWaiting} realm commands waiting`,
    channel_size: o.channelSize,
    think_ms: o.thinkMs,
    generator_workers: load.workers,
  });
  return {
    ...r,
    ramp: steps,
    target: { description: `the ceiling: the most users with every operation's p99 ≤ ${o.p99Limit} ms and errors ≤ ${o.maxErrorPercent}% (2,000 on this 2-core box)`, met: ceiling >= 2000 },
  };
}
