// attack: the mixed user model twice, first alone, then while attackers repeat the heavy requests of issue #17 in a
// bounded loop: worst-case renders (10,000 characters of emphasis, mentions and emoji), 8 MB render bodies, big
// narrows (thousands of negated terms), and stalled large bodies sent before authentication. Reports the mixed
// p99 with and without the attack, and what the attack's requests got.
import net from 'node:net';
import { Agent } from 'undici';
import { request, type Creds, type Reply } from '../lib/client.js';
import { summarize, type Summary } from '../lib/stats.js';
import { mixed } from './mixed.js';
import { seedUsers } from './seed.js';
import { num, type ScenarioContext, type Scenario, type ScenarioResult } from './types.js';

type Kind = 'render-worst' | 'render-8mb' | 'big-narrow' | 'stalled-body';
const KINDS: Kind[] = ['render-worst', 'render-8mb', 'big-narrow', 'stalled-body'];

/** Within the message limit, as much rendering work per character as the syntax allows. */
const WORST = '**a @**someone** :smile: '.repeat(500).slice(0, 10_000);
/** The 8 MB of `**a`. */
const HUGE = '**a'.repeat(Math.floor((8 * 2 ** 20) / 3));
const STALLED_BODY_BYTES = 30 * 2 ** 20;
const ATTACK_TIMEOUT_MS = 60_000;

interface AttackLog {
  ms: Map<Kind, number[]>;
  statuses: Map<Kind, Map<string, number>>;
}

function note(log: AttackLog, kind: Kind, status: string, ms: number): void {
  log.ms.get(kind)!.push(ms);
  const byStatus = log.statuses.get(kind)!;
  byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
}

/** A POST /fetch_api_key announcing 30 MiB, of which 1 MiB is sent; then silence for `stallMs`, then the socket closes. */
function stalledBody(base: string, stallMs: number): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve) => {
    const socket = net.connect({ host: url.hostname, port: Number(url.port) });
    let answer = 'no answer';
    socket.on('data', (d) => {
      if (answer === 'no answer') answer = /^HTTP\/1\.1 (\d{3})/.exec(d.toString('latin1'))?.[1] ?? 'no answer';
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
    socket.once('connect', () => {
      socket.write(
        `POST /api/v1/fetch_api_key HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${STALLED_BODY_BYTES}\r\n\r\n`,
      );
      socket.write(Buffer.alloc(2 ** 20, 'a'));
      setTimeout(() => socket.destroy(), stallMs);
    });
  });
}

async function attackOnce(kind: Kind, base: string, auth: Creds, narrowTerms: number, stallMs: number): Promise<[string, number]> {
  const started = performance.now();
  // No answer: the server closed the connection (a body refused unread ends it while the client is still sending).
  const answered = (r: Reply | null): [string, number] => [r ? String(r.status) : 'closed', performance.now() - started];
  switch (kind) {
    case 'render-worst':
      return answered(await request(base, 'POST', '/messages/render', { auth, form: { content: WORST }, timeoutMs: ATTACK_TIMEOUT_MS }).catch(() => null));
    case 'render-8mb': {
      // Its own connection (pipelining 0: not kept alive): the server ends it when it refuses the body unread.
      const connection = new Agent({ pipelining: 0 });
      return answered(await request(base, 'POST', '/messages/render', { auth, connection, form: { content: HUGE }, timeoutMs: ATTACK_TIMEOUT_MS }).catch(() => null));
    }
    case 'big-narrow': {
      // In the body: a query string this long is past any head limit.
      const narrow = JSON.stringify(Array.from({ length: narrowTerms }, (_, i) => ({ operator: 'topic', operand: `t${i}`, negated: true })));
      const form = { anchor: 'newest', num_before: '100', num_after: '0', narrow };
      return answered(await request(base, 'GET', '/messages', { auth, form, timeoutMs: ATTACK_TIMEOUT_MS }).catch(() => null));
    }
    case 'stalled-body':
      return [await stalledBody(base, stallMs), performance.now() - started];
  }
}

/** `--kinds a,b`: the kinds of heavy request to send (default all). */
function attackKinds(ctx: ScenarioContext): Kind[] {
  const wanted = ctx.options.kinds;
  if (typeof wanted !== 'string') return KINDS;
  const kinds = wanted.split(',').filter((k): k is Kind => (KINDS as string[]).includes(k));
  if (kinds.length === 0) throw new Error(`--kinds: some of ${KINDS.join(', ')}`);
  return kinds;
}

/** `attackers` loops, each sending the next kind of heavy request as soon as its last one is answered, until `until()`. */
async function runAttackers(ctx: ScenarioContext, auth: Creds, until: () => boolean): Promise<AttackLog> {
  const attackers = num(ctx.options, 'attackers', ctx.quick ? 2 : 4);
  const narrowTerms = num(ctx.options, 'narrow-terms', ctx.quick ? 2_000 : 20_000);
  const stallMs = num(ctx.options, 'stall-ms', ctx.quick ? 500 : 5_000);
  const kinds = attackKinds(ctx);
  const log: AttackLog = { ms: new Map(KINDS.map((k) => [k, []])), statuses: new Map(KINDS.map((k) => [k, new Map()])) };
  await Promise.all(
    Array.from({ length: attackers }, async (_, a) => {
      for (let n = a; !until(); n++) {
        const kind = kinds[n % kinds.length]!;
        const [status, ms] = await attackOnce(kind, ctx.target.url, auth, narrowTerms, stallMs);
        note(log, kind, status, ms);
      }
    }),
  );
  return log;
}

const mixedP99 = (r: ScenarioResult): number => r.latencyMs?.p99 ?? 0;

export const attack: Scenario = async (ctx) => {
  const p99Limit = num(ctx.options, 'p99-ms', 200);
  const alone = await mixed({ ...ctx, progress: (line) => ctx.progress(`alone: ${line}`) });
  const [attacker] = await seedUsers(ctx, 1, 'attacker');
  let mixedDone = false;
  const attacking = runAttackers(ctx, attacker!, () => mixedDone);
  const underAttack = await mixed({ ...ctx, progress: (line) => ctx.progress(`under attack: ${line}`) }).finally(() => {
    mixedDone = true;
  });
  const log = await attacking;

  const breakdown: Record<string, Summary> = {
    'mixed alone': alone.latencyMs!,
    'mixed under attack': underAttack.latencyMs!,
  };
  const figures: Record<string, number | string | boolean> = {
    users: alone.figures.users!,
    attack_kinds: attackKinds(ctx).join(', '),
    seconds_each: alone.figures.seconds!,
    mixed_p99_ms_alone: +mixedP99(alone).toFixed(1),
    mixed_p99_ms_under_attack: +mixedP99(underAttack).toFixed(1),
    worst_op_p99_ms_alone: alone.figures.worst_p99_ms!,
    worst_op_p99_ms_under_attack: underAttack.figures.worst_p99_ms!,
    mixed_errors_alone: alone.errors,
    mixed_errors_under_attack: underAttack.errors,
  };
  for (const kind of KINDS) {
    const ms = log.ms.get(kind)!;
    if (ms.length > 0) breakdown[`attack ${kind}`] = summarize(ms);
    figures[`attack ${kind} answers`] = [...log.statuses.get(kind)!].map(([status, n]) => `${n}× ${status}`).join(', ') || 'none';
  }
  return {
    throughput: underAttack.throughput,
    latencyMs: underAttack.latencyMs,
    errors: alone.errors + underAttack.errors,
    breakdown,
    samples: underAttack.samples,
    timeline: underAttack.timeline,
    p99Timeline: underAttack.p99Timeline,
    figures,
    target: {
      description: `the mixed model's p99 under attack under ${p99Limit} ms, and no errors for its users`,
      met: mixedP99(underAttack) < p99Limit && underAttack.errors === 0,
    },
  };
};
