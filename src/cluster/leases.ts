// Leases in PostgreSQL (table cluster_leases): who owns a realm's writer or the once-only work, for how long, under
// which epoch. The owner renews its leases; a lapsed lease may be taken by another process, which raises the epoch.
// Fencing: a realm's write transaction checks (FOR SHARE) that the row still names this process and epoch, so a
// process that lost a lease cannot commit under it, and a takeover waits for such a transaction to end.
import { errors, notRun, notRunReason, type ApiError } from '../errors.js';
import type { Db, Tx } from '../persistence/db.js';
import { CURRENT_XID_SQL } from '../persistence/snapshots.js';

/** Unowned realms one lease round looks at. */
const UNOWNED_CANDIDATES = 32;

/** The error of a write refused because this process no longer holds the realm's lease: nothing was written. */
export function fencedError(): ApiError {
  return notRun('fenced', errors.unavailable('This server no longer owns the realm; try again'));
}

export function isFenced(err: unknown): boolean {
  return notRunReason(err) === 'fenced';
}

interface Held {
  epoch: number;
  /** performance.now() when the last successful renewal was sent: the lease is ours until then + ttl. */
  since: number;
}

export class Leases {
  private readonly held = new Map<string, Held>();

  constructor(
    private readonly db: Db,
    /** This process's identity in the table (unique per start). */
    readonly owner: string,
    readonly ttlMs: number,
  ) {}

  /** The epoch of a lease this process holds and has renewed within its time to live. */
  epochOf(key: string): number | undefined {
    const h = this.held.get(key);
    if (!h) return undefined;
    // A margin for clock rates and the renewal's own round trip: stop trusting the lease a little before it lapses.
    return performance.now() - h.since < this.ttlMs * 0.9 ? h.epoch : undefined;
  }

  keys(): string[] {
    return [...this.held.keys()];
  }

  /** Takes a lease that is free or has lapsed; its epoch, or null when another process holds it. */
  async acquire(key: string): Promise<number | null> {
    const since = performance.now();
    const row = await this.db.oneOrNone<{ epoch: string }>(
      `INSERT INTO cluster_leases (key, owner, epoch, expires_at) VALUES ($1, $2, 1, now() + $3 * interval '1 millisecond')
       ON CONFLICT (key) DO UPDATE SET owner = excluded.owner, epoch = cluster_leases.epoch + 1, expires_at = excluded.expires_at
       WHERE cluster_leases.expires_at < now()
       RETURNING epoch`,
      [key, this.owner, this.ttlMs],
    );
    if (!row) return null;
    const epoch = Number(row.epoch);
    this.held.set(key, { epoch, since });
    return epoch;
  }

  /** Renews every lease held; returns the keys lost meanwhile (taken over by another process). */
  async renew(): Promise<string[]> {
    if (this.held.size === 0) return [];
    const since = performance.now();
    const rows = await this.db.any<{ key: string; epoch: string }>(
      `UPDATE cluster_leases SET expires_at = now() + $2 * interval '1 millisecond' WHERE owner = $1 RETURNING key, epoch`,
      [this.owner, this.ttlMs],
    );
    const kept = new Map(rows.map((r) => [r.key, Number(r.epoch)]));
    const lost: string[] = [];
    for (const [key, h] of this.held) {
      if (kept.get(key) === h.epoch) h.since = since;
      else {
        this.held.delete(key);
        lost.push(key);
      }
    }
    return lost;
  }

  /** Forgets a lease locally (after a fenced write showed it is gone). */
  forget(key: string): void {
    this.held.delete(key);
  }

  /** Gives every lease up (graceful stop): it lapses now, so another process takes it at once; epochs stay. */
  async releaseAll(): Promise<void> {
    if (this.held.size === 0) return;
    const keys = this.keys();
    this.held.clear();
    await this.db.none(`UPDATE cluster_leases SET expires_at = now() - interval '1 millisecond' WHERE owner = $1 AND key IN ($2:csv)`, [this.owner, keys]);
  }

  /**
   * Inside a write transaction: refuses (fencedError) unless this process still holds `key` under `epoch`; the
   * transaction's ID (the same round trip).
   */
  async fence(t: Tx, key: string, epoch: number): Promise<string> {
    const row = await t.oneOrNone<{ xid: string }>(
      `SELECT ${CURRENT_XID_SQL} AS xid FROM cluster_leases WHERE key = $1 AND owner = $2 AND epoch = $3 FOR SHARE`,
      [key, this.owner, epoch],
    );
    if (!row) throw fencedError();
    return row.xid;
  }

  /** Realms with no live owner (no lease yet, or a lapsed one), the first UNOWNED_CANDIDATES of them. */
  async unownedRealms(): Promise<number[]> {
    // A lease round claims one realm (trying the next when another process was quicker): a few candidates do, however
    // many realms there are.
    return this.db.map(
      `SELECT r.id FROM realms r LEFT JOIN cluster_leases l ON l.key = 'realm:' || r.id
       WHERE l.key IS NULL OR l.expires_at < now() ORDER BY r.id LIMIT $1`,
      [UNOWNED_CANDIDATES],
      (r: { id: number }) => r.id,
    );
  }

  /** Every live lease: key → owner (operators' view of who owns what). */
  async owners(): Promise<Map<string, string>> {
    const rows = await this.db.any<{ key: string; owner: string }>('SELECT key, owner FROM cluster_leases WHERE expires_at >= now()');
    return new Map(rows.map((r) => [r.key, r.owner]));
  }
}
