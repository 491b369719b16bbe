// A ramp step second by second, from its set-up to the end of its measuring: the client's latency per operation,
// the server's CPU and its own traffic series (requests, events published and delivered, from
// GET /operators/traffic, which leaves /metrics' histograms alone), the events its queues hold unacknowledged, the
// polls parked and the commands waiting in realm mailboxes, and the machine's TCP counters (tail-loss probes, listen
// overflows, as `nstat` reads them). It says whether what breaks a step's threshold falls in its first seconds (the
// set-up's work spilling into the measuring) or anywhere.
import { readFileSync } from 'node:fs';
import { operatorGet } from './metrics.js';
import { sampleAll, type Target } from './server.js';
import { summarize } from './stats.js';
import { nowAbs } from './workers.js';

export type StepPhase = 'setup' | 'settle' | 'measure';

export interface TimelineSecond {
  /** The second, counted from the one the measuring started in (negative: the step's set-up and settling). */
  t: number;
  /** The phase begun last by the second's end (a set-up shorter than a second leaves its second to the settle). */
  phase: StepPhase;
  /** Client actions that finished in the second, by operation: [count, p99 ms]. */
  actions: Record<string, [number, number]>;
  server_cpu_percent: number | null;
  /** The server's own series: requests answered in the second (polls included), events published and delivered. */
  server_requests: number | null;
  events_published: number | null;
  events_delivered: number | null;
  /** Events the server's queues held unacknowledged, the polls parked and the commands waiting in realm actors' mailboxes, at the second's end. */
  events_held: number | null;
  long_polls_parked: number | null;
  realm_commands_waiting: number | null;
  /** The machine's TCP counters over the second (every process's: the server's and the generator's sockets alike). */
  tcp_loss_probes: number | null;
  tcp_listen_overflows: number | null;
}

/** What GET /operators/traffic answers. */
export interface Traffic {
  series: { t: number; requests: number; published: number; delivered: number }[];
  event_queues: number;
  events_held: number;
  long_polls_parked: number;
  realm_commands_waiting: number;
}

export async function traffic(target: Target, seconds = 1): Promise<Traffic | null> {
  const text = await operatorGet(target, `/operators/traffic?seconds=${seconds}`);
  return text === null ? null : (JSON.parse(text) as Traffic);
}

/** The machine's TCP counters that showed in the ramp's tails (/proc/net/netstat's TcpExt line), or null where unreadable. */
export function tcpCounters(): { lossProbes: number; listenOverflows: number } | null {
  try {
    const lines = readFileSync('/proc/net/netstat', 'utf8').split('\n').filter((l) => l.startsWith('TcpExt:'));
    const names = lines[0]!.split(/\s+/);
    const values = lines[1]!.split(/\s+/).map(Number);
    const get = (name: string) => values[names.indexOf(name)] ?? 0;
    return { lossProbes: get('TCPLossProbes'), listenOverflows: get('ListenOverflows') };
  } catch {
    return null;
  }
}

interface Sample {
  /** The epoch second the sample closes (taken just after it ended). */
  second: number;
  cpuSeconds: number | null;
  tcp: ReturnType<typeof tcpCounters>;
  held: number | null;
  parked: number | null;
  waiting: number | null;
}

/** The rows of a timeline from what was recorded; a pure function of its inputs (tested on its own). */
export function timelineRows(input: {
  /** When each phase began (ms, nowAbs), in order. */
  phases: { phase: StepPhase; at: number }[];
  /** Client actions: [ms, finished at (nowAbs)] pairs by operation. */
  actions: Map<string, number[]>;
  /** Samples taken at each second's end, in order. */
  samples: Sample[];
  series: Traffic['series'];
  /** The last second to report (epoch seconds). */
  last: number;
}): TimelineSecond[] {
  const first = Math.floor(input.phases[0]!.at / 1000);
  const measuring = input.phases.find((p) => p.phase === 'measure');
  const zero = Math.floor((measuring?.at ?? input.phases[0]!.at) / 1000);
  const bySecond = new Map<number, Map<string, number[]>>();
  for (const [op, pairs] of input.actions) {
    for (let i = 0; i < pairs.length; i += 2) {
      const s = Math.floor(pairs[i + 1]! / 1000);
      let ops = bySecond.get(s);
      if (!ops) bySecond.set(s, (ops = new Map()));
      let xs = ops.get(op);
      if (!xs) ops.set(op, (xs = []));
      xs.push(pairs[i]!);
    }
  }
  const series = new Map(input.series.map((r) => [r.t, r]));
  const samples = new Map(input.samples.map((s) => [s.second, s]));
  const rows: TimelineSecond[] = [];
  for (let s = first; s <= input.last; s++) {
    const phase = [...input.phases].reverse().find((p) => Math.floor(p.at / 1000) <= s)!.phase;
    const actions: Record<string, [number, number]> = {};
    for (const [op, xs] of bySecond.get(s) ?? []) actions[op] = [xs.length, +summarize(xs).p99.toFixed(1)];
    const now = samples.get(s);
    const before = samples.get(s - 1);
    const delta = (f: (x: Sample) => number | null | undefined) => {
      const a = now && f(now);
      const b = before && f(before);
      return a == null || b == null ? null : a - b;
    };
    const cpu = delta((x) => x.cpuSeconds);
    const r = series.get(s);
    rows.push({
      t: s - zero,
      phase,
      actions,
      server_cpu_percent: cpu === null ? null : Math.round(100 * cpu),
      server_requests: r?.requests ?? null,
      events_published: r?.published ?? null,
      events_delivered: r?.delivered ?? null,
      events_held: now?.held ?? null,
      long_polls_parked: now?.parked ?? null,
      realm_commands_waiting: now?.waiting ?? null,
      tcp_loss_probes: delta((x) => x.tcp?.lossProbes),
      tcp_listen_overflows: delta((x) => x.tcp?.listenOverflows),
    });
  }
  return rows;
}

/** Records one step: start() at its set-up, phase() at each change, actions as the workers report them, finish() at its end. */
export class StepTimeline {
  private readonly phases: { phase: StepPhase; at: number }[] = [];
  private readonly actions = new Map<string, number[]>();
  private readonly samples: Sample[] = [];
  private timer: NodeJS.Timeout | null = null;
  private sampling: Promise<void> = Promise.resolve();

  constructor(private readonly target: Target) {}

  start(): void {
    this.phase('setup');
    this.schedule();
  }

  phase(phase: StepPhase, at = nowAbs()): void {
    this.phases.push({ phase, at });
  }

  /** [ms, finished at (nowAbs)] pairs of one operation. */
  add(op: string, pairs: number[]): void {
    const xs = this.actions.get(op);
    if (xs) for (const x of pairs) xs.push(x);
    else this.actions.set(op, [...pairs]);
  }

  /** A sample just after each second's end (epoch seconds, the server's series' too). */
  private schedule(): void {
    const now = nowAbs();
    this.timer = setTimeout(() => {
      this.sampling = this.sampling.then(() => this.sample());
      this.schedule();
    }, 1000 - (now % 1000) + 5);
    this.timer.unref();
  }

  /** Stops sampling (finish() does; also for a step that failed). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private async sample(): Promise<void> {
    const second = Math.floor(nowAbs() / 1000) - 1;
    const cpuSeconds = sampleAll(this.target.pids)?.cpuSeconds ?? null;
    const tcp = tcpCounters();
    const now = await traffic(this.target);
    this.samples.push({ second, cpuSeconds, tcp, held: now?.events_held ?? null, parked: now?.long_polls_parked ?? null, waiting: now?.realm_commands_waiting ?? null });
  }

  async finish(): Promise<TimelineSecond[]> {
    this.stop();
    await this.sampling;
    const last = Math.floor(nowAbs() / 1000) - 1;
    const span = last - Math.floor(this.phases[0]!.at / 1000) + 2;
    const series = (await traffic(this.target, Math.min(600, span)))?.series ?? [];
    return timelineRows({ phases: this.phases, actions: this.actions, samples: this.samples, series, last });
  }
}
