// Runs the narrow case table through compileSql against a real PostgreSQL and checks it agrees with the predicate.
import test from 'ava';
import { compilePredicate, compileSql, parseNarrow, resolveNarrow } from '../../src/narrow/index.js';
import { CASES, VIEWER, resolveCase } from './cases.js';
import { MESSAGES, makeResolver } from './fixtures.js';
import { COLUMNS, MESSAGES_TABLE, createSchema, dropSchema, loadMessages, openDb, sqlMatches, type TestDb } from './pg.js';

let db: TestDb;

test.before(async () => {
  db = await openDb();
  await createSchema(db);
  await loadMessages(db, MESSAGES, VIEWER);
});

test.after.always(async () => {
  if (!db) return;
  await dropSchema(db);
  await db.close();
});

for (const c of CASES) {
  if (!Array.isArray(c.expect)) continue;
  const expected = c.expect;
  test(`sql: ${c.name}`, async (t) => {
    const resolved = resolveCase(c);
    const viaPredicate = MESSAGES.filter(compilePredicate(resolved, VIEWER)).map((m) => m.id);
    const viaSql = await sqlMatches(db, resolved, VIEWER);
    t.deepEqual(viaSql, expected, `${db.label}: ${compileSql(resolved, VIEWER, COLUMNS, 1).where}`);
    t.deepEqual(viaSql, viaPredicate);
  });
}

test('placeholders start after the caller offset and match the params', (t) => {
  const resolved = resolveNarrow(
    parseNarrow([['stream', 'Denmark'], ['topic', 'plans'], ['search', 'plan "big launch"'], ['is', 'unread']]),
    makeResolver(),
  );
  const { where, params } = compileSql(resolved, VIEWER, COLUMNS, 3);
  const used = [...where.matchAll(/\$(\d+)/g)].map((m) => Number(m[1]));
  t.is(Math.min(...used), 4);
  t.is(Math.max(...used), 3 + params.length);
  t.deepEqual([...new Set(used)].sort((a, b) => a - b), params.map((_, i) => i + 4));
  t.deepEqual(compileSql([], VIEWER, COLUMNS, 3), { where: 'TRUE', params: [] });
});

test('operand text never reaches the SQL, even when hostile', async (t) => {
  const hostile = `x' OR 1=1; DROP TABLE ${MESSAGES_TABLE}; --`;
  const resolved = resolveNarrow(
    parseNarrow([{ operator: 'topic', operand: hostile }, { operator: 'search', operand: `"${hostile}" ${hostile}` }]),
    makeResolver(),
  );
  const { where, params } = compileSql(resolved, VIEWER, COLUMNS, 1);
  t.false(where.includes('DROP'));
  t.false(where.includes('1=1'));
  t.true(params.includes(hostile));
  t.deepEqual(await sqlMatches(db, resolved, VIEWER), []);
  t.is((await db.query(`SELECT count(*)::int AS n FROM ${MESSAGES_TABLE}`))[0]!.n, MESSAGES.length);
});

test('search words are sanitized into a prefix tsquery', (t) => {
  const resolved = resolveNarrow(parseNarrow([['search', "Can't STOP: a|b & (c) !d <-> e:*"]]), makeResolver());
  const { params } = compileSql(resolved, VIEWER, COLUMNS);
  t.deepEqual(params, ["can:* & t:* & stop:* & a:* & b:* & c:* & d:* & e:*"]);
});
