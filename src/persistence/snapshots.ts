// PostgreSQL snapshots and transaction IDs: reads made in one snapshot, and whether a committed transaction's writes
// are in a given snapshot. Cluster mode uses them so a process never applies twice a batch its load already read.
import pgPromise from 'pg-promise';
import type { Db, Tx } from './db.js';

const { isolationLevel, TransactionMode } = pgPromise.txMode;
const ONE_SNAPSHOT = new TransactionMode({ tiLevel: isolationLevel.repeatableRead, readOnly: true });

/**
 * Runs `read` in one read-only REPEATABLE READ transaction, and gives the snapshot it read in
 * (pg_current_snapshot as text, `xmin:xmax:xip,…`). Reads need no fencing: it goes through a task, so a database
 * whose `tx` is fenced (cluster mode) reads the same on every process.
 */
export function readInOneSnapshot<T>(db: Db, read: (t: Tx) => Promise<T>): Promise<{ value: T; snapshot: string }> {
  return db.task((task) =>
    task.tx({ mode: ONE_SNAPSHOT }, async (t) => {
      // The first statement of a REPEATABLE READ transaction takes its snapshot: this one, reported.
      const { snapshot } = await t.one<{ snapshot: string }>('SELECT pg_current_snapshot()::text AS snapshot');
      return { value: await read(t), snapshot };
    }),
  );
}

/** Inside a writing transaction: its ID (xid8 as text), the same its commit is known by in later snapshots. */
export const CURRENT_XID_SQL = 'pg_current_xact_id()::text';

/**
 * Whether the writes of a transaction known to have committed (ID `xid`) are visible in `snapshot`: it committed
 * before the snapshot was taken (PostgreSQL's pg_visible_in_snapshot, for a committed transaction).
 */
export function committedBefore(xid: string, snapshot: string): boolean {
  const [xmin, xmax, xip] = snapshot.split(':');
  const id = BigInt(xid);
  if (id < BigInt(xmin!)) return true;
  if (id >= BigInt(xmax!)) return false;
  return !(xip ?? '').split(',').some((x) => x !== '' && BigInt(x) === id);
}
