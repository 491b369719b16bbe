// Array parameters made by scalarArray read back in PostgreSQL as the values they were made of.
import test from 'ava';
import { createDatabase } from '../../src/persistence/db.js';
import { ParameterizedQuery, scalarArray } from '../../src/persistence/sql.js';
import { createTestDatabase } from '../helpers/database.js';

test('int, float8 and bool arrays with NULLs arrive as the values given', async (t) => {
  const testDatabase = await createTestDatabase();
  const { db, close } = createDatabase(testDatabase.url);
  t.teardown(async () => {
    await close();
    await testDatabase.drop();
  });
  const ints = [1, -2, null, 2_147_483_647, 0];
  const floats = [1_732_441_234.123456, 0.5, null, -3];
  const bools = [true, false, null];
  const row = await db.one(
    new ParameterizedQuery({ text: 'SELECT $1::int[] AS i, $2::float8[] AS f, $3::bool[] AS b, $4::int[] AS e', values: [scalarArray(ints), scalarArray(floats), scalarArray(bools), scalarArray([])] }),
  );
  t.deepEqual(row, { i: ints, f: floats, b: bools, e: [] });
});

test('the literal is PostgreSQL array syntax', (t) => {
  t.is(scalarArray([1, null, true, false, 2.5]), '{1,NULL,t,f,2.5}');
  t.is(scalarArray([]), '{}');
});
