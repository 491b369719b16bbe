// pg-promise's statement builders for repositories (no connection needed): one library instance without
// options, as the database's own (whose options are only event hooks that do not change how statements are
// written), so column sets are made once, at module level, instead of for every connection and transaction.
import pgPromise from 'pg-promise';

export const { helpers, as, ParameterizedQuery } = pgPromise();

/**
 * A PostgreSQL array literal of numbers and booleans (`{1,NULL,t}`) for a parameter cast to int[], float8[] or
 * bool[]: what pg would send, made in one join instead of quoting and escaping each element as text.
 */
export function scalarArray(values: readonly (number | boolean | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (i > 0) out += ',';
    out += v === null ? 'NULL' : v === true ? 't' : v === false ? 'f' : String(v);
  }
  return out + '}';
}
