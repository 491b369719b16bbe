// Reads gathered into one round trip: the queries a caller issues within one turn of the event loop are sent together
// as one multi-statement query, and each gets its own rows. For a read path that fires many small independent reads
// at once (the register snapshot: a dozen per register), so they cost one send, one backend wake-up and one answer
// instead of one each. The statements run in one implicit transaction, so they also read one consistent state.
//
// It offers the read methods of pg-promise's query interface that repositories call (any, manyOrNone, map, one,
// oneOrNone), with the same formatting (pg-promise's, client-side, as every query here), so the repositories'
// own read methods run over it unchanged. A failed statement fails every read of its batch.
import type { IDatabase } from 'pg-promise';
import { attachRepos, type Repos } from './db.js';
import { as } from './sql.js';

interface Waiter {
  resolve(rows: unknown[]): void;
  reject(err: unknown): void;
}

/** Most statements sent in one round trip; more are sent in the next one. */
const MAX_STATEMENTS = 64;

export class ReadBatch {
  /** Statements waiting for the flush, by their text: the same statement issued twice runs once. */
  private pending = new Map<string, Waiter[]>();
  /** Round trips made (for tests and measurements). */
  roundTrips = 0;

  constructor(private readonly db: IDatabase<unknown>) {}

  any<T = any>(query: string, values?: unknown): Promise<T[]> {
    const sql = as.format(query, values).trim().replace(/;+$/, '');
    return new Promise<T[]>((resolve, reject) => {
      if (this.pending.size === 0) setImmediate(() => this.flush());
      const waiters = this.pending.get(sql);
      const waiter = { resolve: resolve as (rows: unknown[]) => void, reject };
      if (waiters) waiters.push(waiter);
      else this.pending.set(sql, [waiter]);
    });
  }

  manyOrNone<T = any>(query: string, values?: unknown): Promise<T[]> {
    return this.any<T>(query, values);
  }

  async map<T>(query: string, values: unknown, cb: (row: any, index: number, rows: any[]) => T): Promise<T[]> {
    return (await this.any(query, values)).map(cb);
  }

  async oneOrNone<T = any>(query: string, values?: unknown, cb?: (row: any) => T): Promise<T | null> {
    const rows = await this.any(query, values);
    if (rows.length > 1) throw new Error(`Multiple rows were not expected: ${query}`);
    if (rows.length === 0) return cb ? cb(null) : null;
    return cb ? cb(rows[0]) : (rows[0] as T);
  }

  async one<T = any>(query: string, values?: unknown, cb?: (row: any) => T): Promise<T> {
    const rows = await this.any(query, values);
    if (rows.length !== 1) throw new Error(`${rows.length === 0 ? 'No data returned' : 'Multiple rows were not expected'} from the query: ${query}`);
    return cb ? cb(rows[0]) : (rows[0] as T);
  }

  private flush(): void {
    const batch = [...this.pending].slice(0, MAX_STATEMENTS);
    for (const [sql] of batch) this.pending.delete(sql);
    if (this.pending.size > 0) setImmediate(() => this.flush());
    this.roundTrips++;
    const sent = batch.length === 1 ? this.db.any(batch[0]![0]).then((rows) => [rows]) : this.db.multi(batch.map(([sql]) => sql).join(';\n'));
    sent.then(
      (results) => batch.forEach(([, waiters], i) => waiters.forEach((w) => w.resolve(results[i]!))),
      (err) => batch.forEach(([, waiters]) => waiters.forEach((w) => w.reject(err))),
    );
  }
}

/** The repositories over a new ReadBatch of `db`: their reads issued in one turn go to the database together. */
export function batchedReads(db: IDatabase<unknown>): ReadBatch & Repos {
  return attachRepos(new ReadBatch(db));
}
