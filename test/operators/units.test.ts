// The operator modules on their own: the per-second traffic series, first sights of message IDs, safe JSON, and the actor
// directory over an actor system (relations, filters, transitions recorded only while watched) with a controlled clock.
import test from 'ava';
import { assign, setup } from 'xstate';
import { ActorSystem } from '../../src/actors/system.js';
import { ActorDirectory, type ActorChange } from '../../src/operators/actor-directory.js';
import { toSafeJson } from '../../src/operators/actor-view.js';
import { FirstSeen } from '../../src/operators/first-seen.js';
import { Throughput } from '../../src/operators/throughput.js';

test('traffic series: one bucket per second, quiet seconds as zeros, old seconds forgotten', (t) => {
  let now = 1_000_000;
  const tp = new Throughput(10, () => now);
  tp.request(10, 200);
  tp.request(30, 500);
  tp.published(3);
  now += 2000;
  tp.delivered(2);
  const s = tp.series(3);
  t.deepEqual(s.map((x) => x.t), [1000, 1001, 1002]);
  t.like(s[1], { requests: 0 });
  t.like(s[0], { requests: 2, errors: 1, mean_ms: 20, max_ms: 30, published: 3 });
  t.like(s[2], { requests: 0, delivered: 2 });
  now += 10_000;
  t.true(tp.series().every((x) => x.requests === 0 && x.delivered === 0), 'older than the window');
});

const child = setup({ types: { events: {} as { type: 'GO' } } }).createMachine({
  id: 'child',
  initial: 'idle',
  states: { idle: { on: { GO: 'busy' } }, busy: { on: { GO: 'idle' } } },
});
const parent = setup({
  types: { context: {} as { realmId: number; queue: number[] }, input: {} as { realmId: number } },
  actors: { child },
}).createMachine({
  id: 'parent',
  context: ({ input }) => ({ realmId: input.realmId, queue: [1, 2, 3] }),
  initial: 'on',
  entry: assign(({ spawn }) => {
    spawn('child', { id: 'child:1' });
    return {};
  }),
  states: { on: {} },
});

test('the directory: kinds, relations, realm and mailbox, filters and counts', (t) => {
  const system = new ActorSystem();
  const d = new ActorDirectory(system);
  system.create(parent, { id: 'parent:7', input: { realmId: 7 } }).start();
  d.register({ kind: 'parent', mailbox: (s) => s.context.queue.length });
  d.register({ kind: 'child' });
  const rows = d.list();
  t.deepEqual(rows.map((r) => [r.id, r.kind, r.state, r.parent, r.children, r.realm_id, r.mailbox]), [
    ['parent:7', 'parent', 'on', null, ['child:1'], 7, 3],
    ['child:1', 'child', 'idle', 'parent:7', [], null, 0],
  ]);
  t.deepEqual(d.counts(), [
    { kind: 'child', state: 'idle', count: 1 },
    { kind: 'parent', state: 'on', count: 1 },
  ]);
  t.deepEqual(d.list({ realm: 7 }).map((r) => r.id), ['parent:7']);
  t.deepEqual(d.list({ q: 'CHILD' }).map((r) => r.id), ['child:1']);
  t.is(d.find('child:1')?.id, 'child:1');
  t.throws(() => d.register({ kind: 'child' }), { message: /twice/ });
  // Any actor of the system is listed until it stops.
  const loose = system.create(child, { id: 'loose' }).start();
  t.truthy(d.find('loose'));
  loose.stop();
  t.is(d.find('loose'), undefined);
});

test('transitions are recorded only while watched', (t) => {
  let now = 5000;
  const system = new ActorSystem();
  const d = new ActorDirectory(system, () => now);
  const p = system.create(parent, { id: 'parent:1', input: { realmId: 1 } }).start();
  d.register({ kind: 'parent' });
  const kid = () => p.getSnapshot().children['child:1']!;
  const row = () => d.row(kid());
  kid().send({ type: 'GO' });
  t.is(row().time_in_state_ms, null);

  const changes: ActorChange[] = [];
  const unwatch = d.watch((c) => changes.push(c));
  t.is(row().time_in_state_ms, null, 'entered before anybody watched');
  now = 6000;
  kid().send({ type: 'GO' });
  now = 6250;
  t.like(row(), { state: 'idle', time_in_state_ms: 250, last_transition: { from: 'busy', to: 'idle', event: 'GO' } });
  t.deepEqual(changes.map((c) => [c.type, c.id, c.from, c.to]), [['transition', 'child:1', 'busy', 'idle']]);

  unwatch();
  kid().send({ type: 'GO' });
  t.like(row(), { state: 'busy', time_in_state_ms: null, last_transition: null });
  t.is(changes.length, 1, 'nothing observed after the last watcher left');
  p.stop();
});

test('an actor the system creates while operators watch is reported at once: started, its transitions, ended', (t) => {
  const system = new ActorSystem();
  const d = new ActorDirectory(system);
  const changes: ActorChange[] = [];
  const unwatch = d.watch((c) => changes.push(c));
  const job = system.create(child, { id: 'job:1' }).start();
  job.send({ type: 'GO' });
  job.stop();
  t.deepEqual(changes.map((c) => [c.type, c.id, c.to]), [
    ['started', 'job:1', 'idle'],
    ['transition', 'job:1', 'busy'],
    ['ended', 'job:1', 'busy'],
  ]);
  unwatch();
  system.create(child, { id: 'job:2' }).start();
  t.is(changes.length, 3, 'nothing is reported once nobody watches');
});

test('safe JSON: secrets redacted, cycles, maps, actors and size bounded', (t) => {
  const o: Record<string, unknown> = { apiKey: 'k', password_hash: 'h', nested: { api_key: 'x', ok: 1 }, m: new Map([[1, 'a']]), s: new Set([1]) };
  o.self = o;
  o.long = Array.from({ length: 5 }, (_, i) => i);
  t.deepEqual(toSafeJson(o, { maxDepth: 4, maxItems: 3 }), {
    apiKey: '[redacted]',
    password_hash: '[redacted]',
    nested: { api_key: '[redacted]', ok: 1 },
    '…': '4 more keys',
  });
  t.deepEqual(toSafeJson({ m: new Map([[1, 'a']]), s: new Set([1]), self: null, f() {} }), { m: [[1, 'a']], s: [1], self: null, f: '[function f]' });
  const cyc: Record<string, unknown> = {};
  cyc.me = cyc;
  t.deepEqual(toSafeJson(cyc), { me: '[circular]' });
  t.deepEqual(toSafeJson(Array.from({ length: 5 }, (_, i) => i), { maxDepth: 4, maxItems: 2 }), [0, 1, '[… 3 more]']);
});

test('first sight: the first time is kept, at least the newest keys are remembered, older ones forgotten', (t) => {
  const seen = new FirstSeen<number>(3);
  t.is(seen.at(1, 10), 10);
  t.is(seen.at(1, 20), 10, 'a key seen again keeps its first time');
  for (let k = 2; k <= 7; k++) t.is(seen.at(k, 10 * k), 10 * k);
  for (let k = 5; k <= 7; k++) t.is(seen.at(k, 99), 10 * k, `key ${k}, among the newest 3, is remembered`);
  t.is(seen.at(1, 80), 80, 'key 1, 7 keys ago (more than twice the bound), is forgotten and seen anew');
});
