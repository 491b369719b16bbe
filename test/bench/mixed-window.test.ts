// A mixed step's window counts the actions that started in it: one answered in the window but started before it
// (during a ramp step's set-up or settle) counts in no step, only in the whole run's window that was open then.
import test from 'ava';
import { Window } from '../../bench/scenarios/mixed.js';

test('a window counts the actions that started in it, not those that only finished in it', (t) => {
  const w = new Window();
  w.started = performance.now();
  const origin = performance.timeOrigin + w.started;
  w.merge({
    finished: {
      // 900 ms, finished 400 ms into the window: started 500 ms before it.
      send: [900, origin + 400, 20, origin + 450],
      react: [5, origin + 1_200],
    },
    errors: {},
    polls: 3,
    events: 7,
    lag: { p99: 1, max: 2 },
  });
  t.deepEqual(w.samples.get('send'), [20]);
  t.deepEqual(w.samples.get('react'), [5]);
  const s = w.summary();
  t.is(s.worstOp, 'send');
  t.is(s.worstP99, 20);
  t.is(w.polls, 3);
});
