// The simulated users of `mixed` (bench/scenarios/mixed.ts), run on a bench worker thread: each keeps a long-poll
// parked on its event queue and, between think times, does one of the weighted actions. The main thread set the
// users up (accounts, channels, registered queues); a worker holds a few hundred of them, so the load generator is
// not one event loop whose queueing would be measured as the server's latency. The worker reports what it measured
// when the main thread asks (one window at a time) and when it stops.
import { connectionFor, request, type Creds, type Reply } from './client.js';
import type { JobControl } from './jobs.js';
import { LoopLag } from './loop-lag.js';
import { nowAbs } from './workers.js';

const EMOJI = ['thumbs_up', 'heart', 'tada', 'smile', 'rocket', 'eyes'];
/** Relative weights of the actions between think times. */
const ACTIONS: [name: Action, weight: number][] = [
  ['fetch', 30],
  ['presence', 25],
  ['read', 20],
  ['send', 15],
  ['react', 10],
];
export type Action = 'fetch' | 'presence' | 'read' | 'send' | 'react';
export const ACTION_NAMES: Action[] = ACTIONS.map(([a]) => a);
const TOTAL_WEIGHT = ACTIONS.reduce((a, [, w]) => a + w, 0);

export interface MixedUser {
  creds: Creds;
  channel: string;
  queue: string;
  lastEventId: number;
}

export interface MixedInput {
  base: string;
  thinkMs: number;
  /** Each user with its index among all users of the run (its messages' numbers). */
  users: { index: number; item: MixedUser }[];
}

/** What a worker measured since its last report. */
export interface WindowData {
  /** By action, every latency (ms) and the absolute time (nowAbs) it finished, as pairs: [ms, at, ms, at, …]. */
  finished: Partial<Record<Action, number[]>>;
  errors: Partial<Record<Action | 'poll', number>>;
  polls: number;
  events: number;
  /** The worker's event-loop lag over the window (ms beyond the timer). */
  lag: { p99: number; max: number };
}

const emptyWindow = (): WindowData => ({ finished: {}, errors: {}, polls: 0, events: 0, lag: { p99: 0, max: 0 } });

interface UserState extends MixedUser {
  /** Its index among all users of the run. */
  index: number;
  /** Message IDs received and not yet marked read, and those not yet reacted to. */
  unread: number[];
  reactable: number[];
}

/** Picks an action by weight. */
function pick(): Action {
  let x = Math.random() * TOTAL_WEIGHT;
  for (const [op, w] of ACTIONS) if ((x -= w) < 0) return op;
  return 'fetch';
}

class Users {
  private stopping = false;
  private window = emptyWindow();
  private readonly lag = new LoopLag();

  constructor(private readonly input: MixedInput) {}

  /** The window so far, and a new one from now. */
  take(): WindowData {
    const w = this.window;
    w.lag = this.lag.take();
    this.window = emptyWindow();
    return w;
  }

  private record(op: Action | 'poll', r: Reply | null): boolean {
    const w = this.window;
    if (!r || r.status !== 200) {
      if (op !== 'poll' || !this.stopping) w.errors[op] = (w.errors[op] ?? 0) + 1;
      return false;
    }
    if (op === 'poll') return true;
    (w.finished[op] ??= []).push(r.ms, nowAbs());
    return true;
  }

  async run(control: JobControl): Promise<WindowData> {
    let stop!: () => void;
    const stopped = new Promise<void>((r) => (stop = r));
    control.onMessage((m) => {
      if (m?.type === 'window') control.post({ kind: 'window', id: m.id, data: this.take() });
      else if (m?.type === 'stop') stop();
    });
    const users: UserState[] = this.input.users.map(({ index, item }) => ({ ...item, index, unread: [], reactable: [] }));
    const polls = users.map((u) => this.pollLoop(u));
    const acts = users.map((u) => this.actLoop(u));
    await stopped;
    // Stop acting, wait for the actions in flight, delete the queues (which answers the parked polls) and wait for the polls to end.
    this.stopping = true;
    await Promise.all(acts);
    await Promise.all(users.map((u) => request(this.input.base, 'DELETE', '/events', { auth: u.creds, form: { queue_id: u.queue } }).catch(() => null)));
    await Promise.all(polls);
    const last = this.take();
    this.lag.stop();
    return last;
  }

  private async pollLoop(u: UserState): Promise<void> {
    const connection = connectionFor(u.index);
    while (!this.stopping) {
      const r = await request(this.input.base, 'GET', '/events', { auth: u.creds, connection, query: { queue_id: u.queue, last_event_id: String(u.lastEventId) } }).catch(() => null);
      if (!this.record('poll', r)) return;
      const w = this.window;
      w.polls++;
      for (const e of r!.body.events) {
        u.lastEventId = Math.max(u.lastEventId, e.id);
        w.events++;
        if (e.type === 'message') {
          u.unread.push(e.message.id);
          u.reactable.push(e.message.id);
          if (u.reactable.length > 50) u.reactable.shift();
        }
      }
    }
  }

  /** One action; its answer is read for its status only (`readBody: false`), its latency taken at the answer's last byte. */
  private async act(u: UserState, op: Action, n: number): Promise<void> {
    const base = this.input.base;
    const auth = u.creds;
    switch (op) {
      case 'fetch': {
        const narrow = JSON.stringify([{ operator: 'channel', operand: u.channel }]);
        this.record(op, await request(base, 'GET', '/messages', { auth, query: { anchor: 'newest', num_before: '20', num_after: '0', narrow }, readBody: false }).catch(() => null));
        return;
      }
      case 'presence':
        this.record(op, await request(base, 'POST', '/users/me/presence', { auth, form: { status: 'active', ping_only: 'true', new_user_input: 'true' }, readBody: false }).catch(() => null));
        return;
      case 'read': {
        if (u.unread.length === 0) return this.act(u, 'fetch', n);
        const messages = u.unread.splice(0);
        this.record(op, await request(base, 'POST', '/messages/flags', { auth, form: { messages: JSON.stringify(messages), op: 'add', flag: 'read' }, readBody: false }).catch(() => null));
        return;
      }
      case 'send':
        this.record(op, await request(base, 'POST', '/messages', { auth, form: { type: 'stream', to: u.channel, topic: `topic ${n % 10}`, content: `mixed load message ${n}` }, readBody: false }).catch(() => null));
        return;
      case 'react': {
        const id = u.reactable.pop();
        if (id === undefined) return this.act(u, 'send', n);
        const emoji = EMOJI[n % EMOJI.length]!;
        this.record(op, await request(base, 'POST', `/messages/${id}/reactions`, { auth, form: { emoji_name: emoji }, readBody: false }).catch(() => null));
        return;
      }
    }
  }

  private async actLoop(u: UserState): Promise<void> {
    const { thinkMs } = this.input;
    // Think times are exponential around the mean, so the users' actions do not fall into step.
    const think = () => new Promise((r) => setTimeout(r, Math.min(thinkMs * 5, -thinkMs * Math.log(1 - Math.random()))));
    let n = 0;
    await new Promise((r) => setTimeout(r, Math.random() * thinkMs));
    while (!this.stopping) {
      await this.act(u, pick(), u.index * 1_000_000 + n++);
      await think();
    }
  }
}

/** A worker's share of the users, acting until the main thread says stop; answers {type: 'window', id} with what it measured. */
export function mixedUsers(input: MixedInput, control: JobControl): Promise<WindowData> {
  return new Users(input).run(control);
}
