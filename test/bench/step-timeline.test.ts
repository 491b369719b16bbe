// A ramp step's timeline (bench/lib/step-timeline.ts) and its wait after the set-up (settle() in
// bench/scenarios/mixed.ts): the rows say second by second, counted from the measuring's start, what the client and
// the server did; the wait ends once the server's queues hold no more than the limit, over a real server.
import test from 'ava';
import { settle } from '../../bench/scenarios/mixed.js';
import { timelineRows } from '../../bench/lib/step-timeline.js';
import type { Target } from '../../bench/lib/server.js';
import { addUser } from '../helpers/users.js';
import { bearer, OPERATOR_TOKEN, startOperatorServer } from '../operators/helpers.js';

test('rows from the set-up to the end, counted from the measuring, with each second’s p99 by operation and the deltas of CPU and TCP counters', (t) => {
  const s = 1_800_000_000; // an epoch second
  const ms = (second: number, frac = 0) => (s + second) * 1000 + frac;
  const p99Of100 = Array.from({ length: 100 }, (_, i) => [i + 1, ms(3, 500)]).flat();
  const rows = timelineRows({
    phases: [
      { phase: 'setup', at: ms(0, 300) },
      { phase: 'settle', at: ms(2, 100) },
      { phase: 'measure', at: ms(3, 200) },
    ],
    actions: new Map([
      ['react', [250, ms(1, 10), 20, ms(3, 900), ...p99Of100]],
      ['fetch', [5, ms(4, 0)]],
    ]),
    samples: [
      { second: s + 0, cpuSeconds: 10, tcp: { lossProbes: 100, listenOverflows: 7 }, held: 4000, parked: 10, waiting: 1 },
      { second: s + 1, cpuSeconds: 10.5, tcp: { lossProbes: 180, listenOverflows: 7 }, held: 900, parked: 150, waiting: 15 },
      { second: s + 2, cpuSeconds: 11.25, tcp: { lossProbes: 181, listenOverflows: 7 }, held: 12, parked: 190, waiting: 19 },
      // second 3's sample is missing (the server did not answer): its deltas are unknown, and the next one's
      { second: s + 4, cpuSeconds: 12.5, tcp: null, held: 3, parked: 198, waiting: 19 },
    ],
    series: [
      { t: s + 1, requests: 40, published: 200, delivered: 3000 },
      { t: s + 4, requests: 70, published: 10, delivered: 60 },
    ],
    last: s + 4,
  });
  t.deepEqual(
    rows.map((r) => [r.t, r.phase]),
    [
      [-3, 'setup'],
      [-2, 'setup'],
      [-1, 'settle'],
      [0, 'measure'],
      [1, 'measure'],
    ],
  );
  t.deepEqual(rows[1]!.actions, { react: [1, 250] });
  t.deepEqual(rows[3]!.actions, { react: [101, 99] }, '101 latencies: 20 and 1…100, p99 the 100th smallest');
  t.deepEqual(rows[4]!.actions, { fetch: [1, 5] });
  t.deepEqual(rows[0]!.actions, {});
  t.deepEqual(
    rows.map((r) => [r.server_cpu_percent, r.tcp_loss_probes, r.tcp_listen_overflows, r.events_held, r.long_polls_parked, r.realm_commands_waiting]),
    [
      [null, null, null, 4000, 10, 1],
      [50, 80, 0, 900, 150, 15],
      [75, 1, 0, 12, 190, 19],
      [null, null, null, null, null, null],
      [null, null, null, 3, 198, 19],
    ],
  );
  t.deepEqual(
    rows.map((r) => [r.server_requests, r.events_published, r.events_delivered]),
    [
      [null, null, null],
      [40, 200, 3000],
      [null, null, null],
      [null, null, null],
      [70, 10, 60],
    ],
  );
});

test('settle waits until the queues hold no more than the limit, and says so when the time bound ended it instead', async (t) => {
  const s = await startOperatorServer();
  t.teardown(() => s.close());
  const target = { url: `http://127.0.0.1:${s.port}`, operatorToken: OPERATOR_TOKEN } as Target;
  const bob = await addUser(s);
  const q = (await s.client.as(bob).post('/register', { form: { event_types: JSON.stringify(['message']) } })).json;
  t.is(q.result, 'success');
  for (let i = 0; i < 3; i++) t.is((await s.client.as(s.owner).post('/messages', { form: { type: 'direct', to: JSON.stringify([bob.id]), content: `hi ${i}` } })).status, 200);

  const traffic = (await s.client.get('/operators/traffic', { root: true, headers: bearer(), query: { seconds: '5' } })).json;
  t.is(traffic.events_held, 3, 'three messages, not yet polled for');
  t.is(traffic.series.length, 5);
  t.true(traffic.series.reduce((n: number, r: { published: number }) => n + r.published, 0) >= 3);

  const bounded = await settle(target, { heldAtMost: 2, parkedAtLeast: 0, waitingAtMost: 0 }, 0.6);
  t.false(bounded.settled);
  t.is(bounded.events_held_first, 3);
  t.is(bounded.events_held, 3);
  t.true(bounded.seconds >= 0.6 && bounded.seconds < 5, `${bounded.seconds} s`);

  // The client takes the events, then acknowledges them with its next poll: nothing is held.
  const answer = (await s.client.as(bob).get('/events', { query: { queue_id: q.queue_id, last_event_id: String(q.last_event_id), dont_block: 'true' } })).json;
  t.is(answer.events.length, 3);
  t.is((await settle(target, { heldAtMost: 2, parkedAtLeast: 0, waitingAtMost: 0 }, 0.3)).events_held, 3, 'handed out, not yet acknowledged');
  const last = answer.events[2].id;
  t.is((await s.client.as(bob).get('/events', { query: { queue_id: q.queue_id, last_event_id: String(last), dont_block: 'true' } })).json.events.length, 0);
  const unparked = await settle(target, { heldAtMost: 0, parkedAtLeast: 1, waitingAtMost: 0 }, 0.3);
  t.false(unparked.settled, 'nothing held, but no poll parked');
  t.deepEqual([unparked.events_held, unparked.long_polls_parked], [0, 0]);

  // Its poll parks: settled.
  const parked = s.client.as(bob).get('/events', { query: { queue_id: q.queue_id, last_event_id: String(last) } });
  const done = await settle(target, { heldAtMost: 0, parkedAtLeast: 1, waitingAtMost: 0 }, 5);
  t.true(done.settled);
  t.deepEqual([done.events_held, done.long_polls_parked], [0, 1]);
  t.true(done.seconds < 5);
  const mailbox = await settle(target, { heldAtMost: 0, parkedAtLeast: 1, waitingAtMost: -1 }, 0.3);
  t.false(mailbox.settled, 'the realm mailbox is checked too');
  t.is(mailbox.realm_commands_waiting, 0);
  t.is((await s.client.as(s.owner).post('/messages', { form: { type: 'direct', to: JSON.stringify([bob.id]), content: 'bye' } })).status, 200);
  t.is((await parked).json.events.length, 1);
});
