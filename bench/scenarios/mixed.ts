// mixed: a realistic user model at a target user count. Each simulated user registers an event queue and
// keeps a long-poll parked on it, and between think times does one of: fetch recent messages of a channel,
// presence ping, mark received messages read, send a message, react to a received message. Reports latency
// per operation and whether the thresholds held (every operation's p99 under --p99-ms, errors under
// --max-error-percent), like the ceiling tests of other chat servers.
import { agentFor, request, type Creds, type Reply } from '../lib/client.js';
import { summarize, type Summary } from '../lib/stats.js';
import { seedUsers } from './seed.js';
import { num, type Scenario } from './types.js';

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

interface UserState {
  creds: Creds;
  channel: string;
  queue: string;
  lastEventId: number;
  /** Message IDs received and not yet marked read, and those not yet reacted to. */
  unread: number[];
  reactable: number[];
}

export const mixed: Scenario = async (ctx) => {
  const users = num(ctx.options, 'users', ctx.quick ? 10 : 200);
  const channelSize = num(ctx.options, 'channel-size', ctx.quick ? 5 : 20);
  const seconds = num(ctx.options, 'duration', ctx.quick ? 4 : 60);
  const thinkMs = num(ctx.options, 'think-ms', ctx.quick ? 200 : 2000);
  const p99Limit = num(ctx.options, 'p99-ms', 200);
  const maxErrorPercent = num(ctx.options, 'max-error-percent', 0.1);
  const base = ctx.target.url;

  const people = await seedUsers(ctx, users, 'mix');
  const ids: number[] = [];
  for (const p of people) ids.push((await request(base, 'GET', '/users/me', { auth: p })).body.user_id);
  const run = Date.now().toString(36);
  const channels: string[] = [];
  for (let c = 0; c * channelSize < users; c++) {
    const name = `mixed-${run}-${c}`;
    const r = await request(base, 'POST', '/channels/create', { auth: ctx.owner, form: { name, subscribers: JSON.stringify(ids.slice(c * channelSize, (c + 1) * channelSize)) } });
    if (r.status !== 200) throw new Error(`channel: ${JSON.stringify(r.body)}`);
    channels.push(name);
  }

  const samples = new Map<Op, number[]>(['register', ...ACTIONS.map(([a]) => a)].map((o) => [o as Op, []]));
  const errorsBy = new Map<Op | 'poll', number>();
  const perSecond = new Map<number, number>();
  let started = performance.now();
  let eventsReceived = 0;
  let polls = 0;
  const record = (op: Op, r: Reply | null): boolean => {
    if (!r || r.status !== 200) {
      errorsBy.set(op, (errorsBy.get(op) ?? 0) + 1);
      return false;
    }
    samples.get(op)!.push(r.ms);
    if (op === 'register') return true;
    const sec = Math.floor((performance.now() - started) / 1000);
    perSecond.set(sec, (perSecond.get(sec) ?? 0) + 1);
    return true;
  };

  // Every user registers (16 at a time) before the clock starts.
  const states: UserState[] = new Array(users);
  await Promise.all(
    Array.from({ length: 16 }, async (_, w) => {
      for (let i = w; i < users; i += 16) {
        const r = await request(base, 'POST', '/register', { auth: people[i]!, form: { apply_markdown: 'true' } }).catch(() => null);
        if (!record('register', r)) throw new Error(`register: ${JSON.stringify(r?.body)}`);
        states[i] = { creds: people[i]!, channel: channels[Math.floor(i / channelSize)]!, queue: r!.body.queue_id, lastEventId: r!.body.last_event_id, unread: [], reactable: [] };
      }
    }),
  );

  let stopping = false;
  started = performance.now();
  const end = started + seconds * 1000;
  const pollLoop = async (u: UserState, i: number) => {
    const agent = agentFor(i + 1);
    while (!stopping) {
      const r = await request(base, 'GET', '/events', { auth: u.creds, agent, query: { queue_id: u.queue, last_event_id: String(u.lastEventId) } }).catch(() => null);
      if (!r || r.status !== 200) {
        if (!stopping) errorsBy.set('poll', (errorsBy.get('poll') ?? 0) + 1);
        return;
      }
      polls++;
      for (const e of r.body.events) {
        u.lastEventId = Math.max(u.lastEventId, e.id);
        eventsReceived++;
        if (e.type === 'message') {
          u.unread.push(e.message.id);
          u.reactable.push(e.message.id);
          if (u.reactable.length > 50) u.reactable.shift();
        }
      }
    }
  };
  const act = async (u: UserState, op: Op, n: number): Promise<void> => {
    const auth = u.creds;
    switch (op) {
      case 'fetch': {
        const narrow = JSON.stringify([{ operator: 'channel', operand: u.channel }]);
        record(op, await request(base, 'GET', '/messages', { auth, query: { anchor: 'newest', num_before: '20', num_after: '0', narrow } }).catch(() => null));
        return;
      }
      case 'presence':
        record(op, await request(base, 'POST', '/users/me/presence', { auth, form: { status: 'active', ping_only: 'true', new_user_input: 'true' } }).catch(() => null));
        return;
      case 'read': {
        if (u.unread.length === 0) return act(u, 'fetch', n);
        const messages = u.unread.splice(0);
        record(op, await request(base, 'POST', '/messages/flags', { auth, form: { messages: JSON.stringify(messages), op: 'add', flag: 'read' } }).catch(() => null));
        return;
      }
      case 'send':
        record(op, await request(base, 'POST', '/messages', { auth, form: { type: 'stream', to: u.channel, topic: `topic ${n % 10}`, content: `mixed load message ${n}` } }).catch(() => null));
        return;
      case 'react': {
        const id = u.reactable.pop();
        if (id === undefined) return act(u, 'send', n);
        const emoji = EMOJI[n % EMOJI.length]!;
        record(op, await request(base, 'POST', `/messages/${id}/reactions`, { auth, form: { emoji_name: emoji } }).catch(() => null));
        return;
      }
    }
  };
  const totalWeight = ACTIONS.reduce((a, [, w]) => a + w, 0);
  const pick = (): Op => {
    let x = Math.random() * totalWeight;
    for (const [op, w] of ACTIONS) if ((x -= w) < 0) return op;
    return 'fetch';
  };
  // Think times are exponential around the mean, so the users' actions do not fall into step.
  const think = () => new Promise((r) => setTimeout(r, Math.min(thinkMs * 5, -thinkMs * Math.log(1 - Math.random()))));
  const actLoop = async (u: UserState, i: number) => {
    let n = 0;
    await new Promise((r) => setTimeout(r, Math.random() * thinkMs));
    while (performance.now() < end) {
      await act(u, pick(), i * 1_000_000 + n++);
      await think();
    }
  };
  const polling = states.map((u, i) => pollLoop(u, i));
  const progress = setInterval(() => {
    const ops = [...samples.values()].reduce((a, s) => a + s.length, 0);
    ctx.progress(`mixed: ${users} users, ${Math.round((performance.now() - started) / 1000)}/${seconds} s, ${ops} operations, ${eventsReceived} events`);
  }, 1000);
  await Promise.all(states.map((u, i) => actLoop(u, i)));
  clearInterval(progress);
  const elapsed = (performance.now() - started) / 1000;
  stopping = true;
  await Promise.all(states.map((u) => request(base, 'DELETE', '/events', { auth: u.creds, form: { queue_id: u.queue } }).catch(() => null)));
  await Promise.all(polling);

  const breakdown: Record<string, Summary> = {};
  const figures: Record<string, number | string | boolean> = { users, channel_size: channelSize, seconds, think_ms: thinkMs };
  const actionSamples: number[] = [];
  let operations = 0;
  let worstP99 = 0;
  for (const [op, s] of samples) {
    const sum = summarize(s);
    breakdown[op] = sum;
    operations += s.length + (errorsBy.get(op) ?? 0);
    if (op !== 'register') actionSamples.push(...s);
    if (s.length && op !== 'register') worstP99 = Math.max(worstP99, sum.p99);
    figures[`${op} n / p50 / p95 / p99 / max ms`] = s.length ? `${s.length} / ${sum.p50.toFixed(1)} / ${sum.p95.toFixed(1)} / ${sum.p99.toFixed(1)} / ${sum.max.toFixed(1)}` : '0';
  }
  const errors = [...errorsBy.values()].reduce((a, b) => a + b, 0);
  for (const [op, e] of errorsBy) figures[`errors ${op}`] = e;
  const errorPercent = (100 * errors) / Math.max(1, operations + polls);
  figures.polls_answered = polls;
  figures.events_received = eventsReceived;
  figures.error_percent = +errorPercent.toFixed(3);
  figures.worst_p99_ms = +worstP99.toFixed(1);
  const last = Math.max(0, ...perSecond.keys());
  return {
    throughput: actionSamples.length / elapsed,
    latencyMs: summarize(actionSamples),
    errors,
    breakdown,
    samples: actionSamples,
    timeline: Array.from({ length: last + 1 }, (_, i) => perSecond.get(i) ?? 0),
    figures,
    target: {
      description: `${users} users: every operation's p99 (register aside) under ${p99Limit} ms, errors under ${maxErrorPercent}%`,
      met: worstP99 < p99Limit && errorPercent < maxErrorPercent,
    },
  };
};
