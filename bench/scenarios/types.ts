// What a scenario gets and what it reports.
import type { Creds } from '../lib/client.js';
import type { StepLimits } from '../lib/probe.js';
import type { TimelineSecond } from '../lib/step-timeline.js';
import type { Summary } from '../lib/stats.js';
import type { Target } from '../lib/server.js';

export interface ScenarioContext {
  target: Target;
  owner: Creds;
  /** Scenario knobs from the command line (numbers where they parse as numbers). */
  options: Record<string, string | number | boolean>;
  /** A short run for the test suite's smoke test. */
  quick: boolean;
  progress(line: string): void;
}

export interface ScenarioResult {
  /** Throughput in operations per second, where the scenario has one. */
  throughput?: number;
  latencyMs?: Summary;
  errors: number;
  /** Scenario-specific figures (memory per queue, heartbeats late, …). */
  figures: Record<string, number | string | boolean>;
  /** Latency per operation or narrow, where a scenario has several (history, mixed). */
  breakdown?: Record<string, Summary>;
  /** Latency samples for the chart. */
  samples: number[];
  /** Operations completed per second, second by second, for the chart. */
  timeline: number[];
  /** The p99 (ms) of the operations finished in each second of `timeline` (null: none), where the scenario keeps it. */
  p99Timeline?: (number | null)[];
  /** Latency at fixed percentiles, [percentile, ms] (set by the runner from `samples`; the result file keeps it for the chart). */
  percentiles?: [number, number][];
  /** A ramp's steps (`mixed --ramp`): each user count, its worst operation's p99 and its error rate. */
  ramp?: RampStep[];
  /** The target it is compared with, and whether it was met. */
  target?: { description: string; met: boolean };
}

export interface RampStep {
  users: number;
  worst_p99_ms: number;
  worst_op: string;
  error_percent: number;
  actions_per_second: number;
  /** GET /events answers per second (parked polls answered with events or heartbeats). */
  polls_per_second?: number;
  held: boolean;
  /** How long the step's set-up took (its users created, their channels made, their queues registered), in seconds. */
  setup_seconds?: number;
  /** The wait after the set-up for the server's queues to deliver its events (bench/scenarios/mixed.ts settle()). */
  settle?: StepSettle;
  /** What each party spent over the step: generator, server and database CPU, event-loop lags, the server's p99s. */
  limits?: StepLimits;
  /** The step second by second, from its set-up to its end (bench/lib/step-timeline.ts). */
  timeline?: TimelineSecond[];
}

export interface StepSettle {
  seconds: number;
  /**
   * Settled: at most this many events held unacknowledged (--settle-held-per-user × users), at least this many polls
   * parked (--settle-parked-share × users), at most this many commands waiting in realm mailboxes (--settle-realm-waiting).
   */
  held_at_most: number;
  parked_at_least: number;
  waiting_at_most: number;
  /** Events the server's queues held unacknowledged, and the polls parked, when the wait began and when it ended. */
  events_held_first: number | null;
  events_held: number | null;
  long_polls_parked_first: number | null;
  long_polls_parked: number | null;
  realm_commands_waiting_first: number | null;
  realm_commands_waiting: number | null;
  /** Whether it ended settled (not on --settle-max-seconds, or without the figures). */
  settled: boolean;
}

export type Scenario = (ctx: ScenarioContext) => Promise<ScenarioResult>;

export function num(options: ScenarioContext['options'], name: string, fallback: number): number {
  const v = options[name];
  return typeof v === 'number' ? v : fallback;
}
