// mixed: a realistic user model at a target user count. Each simulated user registers an event queue and
// keeps a long-poll parked on it, and between think times does one of: fetch recent messages of a channel,
// presence ping, mark received messages read, send a message, react to a received message. Reports latency
// per operation and whether the thresholds held (every operation's p99 under --p99-ms, errors under
// --max-error-percent), like the ceiling tests of other chat servers. With --ramp it adds users step by step
// and reports the last user count at which the thresholds held (the ceiling).
import { agentFor, openFilesCap, request, type Creds, type Reply } from '../lib/client.js';
import { LimitsProbe } from '../lib/probe.js';
import { PerSecond, summarize, type Summary } from '../lib/stats.js';
import { seedUsers } from './seed.js';
import { num, type RampStep, type Scenario, type ScenarioContext, type ScenarioResult } from './types.js';

const EMOJI = ['thumbs_up', 'heart', 'tada', 'smile', 'rocket', 'eyes'];
/** Relative weights of the actions between think times. */
const ACTIONS: [name: Op, weight: number][] = [
  ['fetch', 30],
  ['presence', 25],
  ['read', 20],
  ['send', 15],
  ['react', 10],
];
type Op = 'register' | 'fetch' | 'presence' | 'read' | 'send' | 'react';
const TOTAL_WEIGHT = ACTIONS.reduce((a, [, w]) => a + w, 0);

interface UserState {
  creds: Creds;
  channel: string;
  queue: string;
  lastEventId: number;
  /** Message IDs received and not yet marked read, and those not yet reacted to. */
  unread: number[];
  reactable: number[];
}

/** What happened during one measuring window (the whole run, or one ramp step). */
class Window {
  /** Action latencies by the second they finished in, counted from the window's start. */
  readonly bySecond = new PerSecond();

  get started(): number {
    return this.bySecond.start;
  }

  set started(at: number) {
    this.bySecond.start = at;
  }

  readonly samples = new Map<Op, number[]>(['register', ...ACTIONS.map(([a]) => a)].map((o) => [o as Op, []]));
  readonly errors = new Map<Op | 'poll', number>();
  polls = 0;
  events = 0;

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

/** The user model, running: users are added in batches and act until stop(). */
class MixedLoad {
  private readonly users: UserState[] = [];
  private readonly loops: Promise<void>[] = [];
  private readonly pollLoops: Promise<void>[] = [];
  private stopping = false;
  private batch = 0;
  /** Every request is counted in `total` and in the current window. */
  readonly total = new Window();
  window = this.total;

  constructor(
    private readonly ctx: ScenarioContext,
    private readonly channelSize: number,
    private readonly thinkMs: number,
  ) {}

  get count(): number {
    return this.users.length;
  }

  private windows(): Window[] {
    return this.window === this.total ? [this.total] : [this.total, this.window];
  }

  private record(op: Op | 'poll', r: Reply | null): boolean {
    const windows = this.windows();
    if (!r || r.status !== 200) {
      if (op !== 'poll' || !this.stopping) for (const w of windows) w.errors.set(op, (w.errors.get(op) ?? 0) + 1);
      return false;
    }
    if (op === 'poll') return true;
    for (const w of windows) {
      w.samples.get(op)!.push(r.ms);
      if (op === 'register') continue;
      w.bySecond.add(r.ms);
    }
    return true;
  }

  /** Creates n users in channels of channelSize, registers their queues (16 at a time) and starts them. */
  async addUsers(n: number): Promise<void> {
    const { ctx } = this;
    const base = ctx.target.url;
    const people = await seedUsers(ctx, n, `mix${this.batch}`);
    const ids: number[] = [];
    for (const p of people) ids.push((await request(base, 'GET', '/users/me', { auth: p })).body.user_id);
    const run = `${Date.now().toString(36)}-${this.batch++}`;
    const channels: string[] = [];
    for (let c = 0; c * this.channelSize < n; c++) {
      const name = `mixed-${run}-${c}`;
      const r = await request(base, 'POST', '/channels/create', { auth: ctx.owner, form: { name, subscribers: JSON.stringify(ids.slice(c * this.channelSize, (c + 1) * this.channelSize)) } });
      if (r.status !== 200) throw new Error(`channel: ${JSON.stringify(r.body)}`);
      channels.push(name);
    }
    const added: UserState[] = new Array(n);
    await Promise.all(
      Array.from({ length: 16 }, async (_, w) => {
        for (let i = w; i < n; i += 16) {
          const r = await request(base, 'POST', '/register', { auth: people[i]!, form: { apply_markdown: 'true' } }).catch(() => null);
          if (!this.record('register', r)) throw new Error(`register: ${JSON.stringify(r?.body)}`);
          added[i] = { creds: people[i]!, channel: channels[Math.floor(i / this.channelSize)]!, queue: r!.body.queue_id, lastEventId: r!.body.last_event_id, unread: [], reactable: [] };
        }
      }),
    );
    for (const u of added) {
      const index = this.users.push(u);
      this.pollLoops.push(this.pollLoop(u, index));
      this.loops.push(this.actLoop(u, index));
    }
  }

  /** Stops acting, waits for the actions in flight, deletes the queues and waits for the polls to end. */
  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(this.loops);
    await Promise.all(this.users.map((u) => request(this.ctx.target.url, 'DELETE', '/events', { auth: u.creds, form: { queue_id: u.queue } }).catch(() => null)));
    await Promise.all(this.pollLoops);
  }

  private async pollLoop(u: UserState, n: number): Promise<void> {
    const agent = agentFor(n);
    while (!this.stopping) {
      const r = await request(this.ctx.target.url, 'GET', '/events', { auth: u.creds, agent, query: { queue_id: u.queue, last_event_id: String(u.lastEventId) } }).catch(() => null);
      if (!this.record('poll', r)) return;
      for (const w of this.windows()) w.polls++;
      for (const e of r!.body.events) {
        u.lastEventId = Math.max(u.lastEventId, e.id);
        for (const w of this.windows()) w.events++;
        if (e.type === 'message') {
          u.unread.push(e.message.id);
          u.reactable.push(e.message.id);
          if (u.reactable.length > 50) u.reactable.shift();
        }
      }
    }
  }

  private async act(u: UserState, op: Op, n: number): Promise<void> {
    const base = this.ctx.target.url;
    const auth = u.creds;
    switch (op) {
      case 'fetch': {
        const narrow = JSON.stringify([{ operator: 'channel', operand: u.channel }]);
        this.record(op, await request(base, 'GET', '/messages', { auth, query: { anchor: 'newest', num_before: '20', num_after: '0', narrow } }).catch(() => null));
        return;
      }
      case 'presence':
        this.record(op, await request(base, 'POST', '/users/me/presence', { auth, form: { status: 'active', ping_only: 'true', new_user_input: 'true' } }).catch(() => null));
        return;
      case 'read': {
        if (u.unread.length === 0) return this.act(u, 'fetch', n);
        const messages = u.unread.splice(0);
        this.record(op, await request(base, 'POST', '/messages/flags', { auth, form: { messages: JSON.stringify(messages), op: 'add', flag: 'read' } }).catch(() => null));
        return;
      }
      case 'send':
        this.record(op, await request(base, 'POST', '/messages', { auth, form: { type: 'stream', to: u.channel, topic: `topic ${n % 10}`, content: `mixed load message ${n}` } }).catch(() => null));
        return;
      case 'react': {
        const id = u.reactable.pop();
        if (id === undefined) return this.act(u, 'send', n);
        const emoji = EMOJI[n % EMOJI.length]!;
        this.record(op, await request(base, 'POST', `/messages/${id}/reactions`, { auth, form: { emoji_name: emoji } }).catch(() => null));
        return;
      }
    }
  }

  private async actLoop(u: UserState, i: number): Promise<void> {
    const pick = (): Op => {
      let x = Math.random() * TOTAL_WEIGHT;
      for (const [op, w] of ACTIONS) if ((x -= w) < 0) return op;
      return 'fetch';
    };
    // Think times are exponential around the mean, so the users' actions do not fall into step.
    const think = () => new Promise((r) => setTimeout(r, Math.min(this.thinkMs * 5, -this.thinkMs * Math.log(1 - Math.random()))));
    let n = 0;
    await new Promise((r) => setTimeout(r, Math.random() * this.thinkMs));
    while (!this.stopping) {
      await this.act(u, pick(), i * 1_000_000 + n++);
      await think();
    }
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
  const load = new MixedLoad(ctx, channelSize, thinkMs);
  if (ctx.options.ramp === true) return ramp(ctx, load, { channelSize, thinkMs, p99Limit, maxErrorPercent });

  const users = num(ctx.options, 'users', ctx.quick ? 10 : 200);
  const seconds = num(ctx.options, 'duration', ctx.quick ? 4 : 60);
  await load.addUsers(users);
  load.total.started = performance.now();
  const progress = setInterval(() => {
    const ops = [...load.total.samples.values()].reduce((a, s) => a + s.length, 0);
    ctx.progress(`mixed: ${users} users, ${Math.round((performance.now() - load.total.started) / 1000)}/${seconds} s, ${ops} operations, ${load.total.events} events`);
  }, 1000);
  await sleep(seconds * 1000);
  clearInterval(progress);
  const elapsed = (performance.now() - load.total.started) / 1000;
  await load.stop();
  const r = report(load.total, elapsed, { users, channel_size: channelSize, seconds, think_ms: thinkMs });
  return {
    ...r,
    target: {
      description: `${users} users: every operation's p99 (register aside) under ${p99Limit} ms, errors under ${maxErrorPercent}%`,
      met: (r.figures.worst_p99_ms as number) < p99Limit && (r.figures.error_percent as number) < maxErrorPercent,
    },
  };
};

/**
 * The ceiling search: users are added --ramp-step at a time (from --ramp-start), each step measured for --duration
 * seconds with every user acting, until an operation's p99 exceeds --p99-ms or errors exceed --max-error-percent.
 * Each user holds at most two sockets of the load generator (its parked poll and an action), so the ramp stops
 * below this process's open-files cap.
 */
async function ramp(ctx: ScenarioContext, load: MixedLoad, o: { channelSize: number; thinkMs: number; p99Limit: number; maxErrorPercent: number }): Promise<ScenarioResult> {
  const first = num(ctx.options, 'ramp-start', ctx.quick ? 5 : 100);
  const step = num(ctx.options, 'ramp-step', ctx.quick ? 5 : 100);
  const socketBound = Math.floor((openFilesCap() - 1000) / 2);
  const max = Math.min(num(ctx.options, 'ramp-max', ctx.quick ? 15 : 10_000), socketBound);
  const seconds = num(ctx.options, 'duration', ctx.quick ? 2 : 30);
  const steps: RampStep[] = [];
  let stopReason = `--ramp-max ${max} reached`;
  if (max === socketBound) stopReason = `the load generator's open-files cap (${openFilesCap()}: 2 sockets per user)`;
  const probe = new LimitsProbe(ctx.target);
  while (load.count < max) {
    await load.addUsers(Math.min(load.count === 0 ? first : step, max - load.count));
    if (steps.length === 0) load.total.started = performance.now();
    const w = (load.window = new Window());
    await probe.start();
    ctx.progress(`mixed --ramp: ${load.count} users, measuring ${seconds} s`);
    await sleep(seconds * 1000);
    const limits = await probe.finish();
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
      limits,
    });
    if (!held) {
      stopReason = s.errorPercent > o.maxErrorPercent ? `errors ${s.errorPercent.toFixed(3)} % > ${o.maxErrorPercent} %` : `${s.worstOp} p99 ${s.worstP99.toFixed(1)} ms > ${o.p99Limit} ms`;
      break;
    }
  }
  load.window = load.total;
  await probe.close();
  await load.stop();
  const ceiling = [...steps].reverse().find((s) => s.held)?.users ?? 0;
  const elapsed = (performance.now() - load.total.started) / 1000;
  const r = report(load.total, elapsed, {
    ceiling_users: ceiling,
    ramp_stopped_by: stopReason,
    ramp: `from ${first}, +${step} users per step, ${seconds} s per step`,
    channel_size: o.channelSize,
    think_ms: o.thinkMs,
  });
  return {
    ...r,
    ramp: steps,
    target: { description: `the ceiling: the most users with every operation's p99 ≤ ${o.p99Limit} ms and errors ≤ ${o.maxErrorPercent}% (2,000 on this 2-core box)`, met: ceiling >= 2000 },
  };
}
