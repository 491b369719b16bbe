// Runs the narrow case table through parse → resolve → compilePredicate over the fixture messages.
import test from 'ava';
import { ApiError } from '../../src/errors.js';
import { compilePredicate } from '../../src/narrow/index.js';
import { CASES, VIEWER, resolveCase } from './cases.js';
import { MESSAGES } from './fixtures.js';

test('the case table covers every operator, negation, both forms and errors', (t) => {
  t.true(CASES.length >= 40);
  const text = JSON.stringify(CASES.map((c) => c.narrow));
  for (const op of ['channel', 'stream', 'channels', 'streams', 'topic', 'sender', 'dm', 'pm-with', 'dm-including',
    'group-pm-with', 'is', 'has', 'id', 'near', 'with', 'search', 'in']) {
    t.true(text.includes(`"${op}"`), op);
  }
  t.true(CASES.some((c) => JSON.stringify(c.narrow).includes('"negated":true')));
  t.true(CASES.some((c) => Array.isArray(c.narrow) && Array.isArray(c.narrow[0])));
  t.true(CASES.some((c) => !Array.isArray(c.expect)));
});

for (const c of CASES) {
  test(`predicate: ${c.name}`, (t) => {
    if (!Array.isArray(c.expect)) {
      const err = t.throws(() => resolveCase(c), { instanceOf: ApiError });
      t.is(err?.message, c.expect.error);
      t.is(err?.status, 400);
      return;
    }
    const matches = compilePredicate(resolveCase(c), VIEWER);
    t.deepEqual(MESSAGES.filter(matches).map((m) => m.id), c.expect);
  });
}
