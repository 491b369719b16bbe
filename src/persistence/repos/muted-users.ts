// Users a user has muted: their messages arrive read, and clients hide them.
import type { IDatabase } from 'pg-promise';

export class MutedUsersRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Every mute of the realm's users: muter → muted user → when (seconds). */
  async forRealm(realmId: number): Promise<Map<number, Map<number, number>>> {
    const rows = await this.db.any(
      `SELECT m.user_id, m.muted_user_id, extract(epoch FROM m.date_muted)::bigint AS t
         FROM muted_users m JOIN users u ON u.id = m.user_id WHERE u.realm_id = $1`,
      [realmId],
    );
    const out = new Map<number, Map<number, number>>();
    for (const r of rows) {
      let m = out.get(r.user_id);
      if (!m) out.set(r.user_id, (m = new Map()));
      m.set(r.muted_user_id, Number(r.t));
    }
    return out;
  }

  /** Adds a mute; false when it existed already. */
  async add(userId: number, mutedUserId: number, at: number): Promise<boolean> {
    const r = await this.db.result(
      'INSERT INTO muted_users (user_id, muted_user_id, date_muted) VALUES ($1, $2, to_timestamp($3)) ON CONFLICT DO NOTHING',
      [userId, mutedUserId, at],
    );
    return r.rowCount > 0;
  }

  /** Removes a mute; false when there was none. */
  async remove(userId: number, mutedUserId: number): Promise<boolean> {
    return (await this.db.result('DELETE FROM muted_users WHERE user_id = $1 AND muted_user_id = $2', [userId, mutedUserId])).rowCount > 0;
  }
}
