// pg-promise's statement builders for repositories (no connection needed): one library instance without
// options, as the database's own (whose options are only event hooks that do not change how statements are
// written), so column sets are made once, at module level, instead of for every connection and transaction.
import pgPromise from 'pg-promise';

export const { helpers, as, ParameterizedQuery } = pgPromise();
