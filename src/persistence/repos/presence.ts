// Presence rows: loaded once per realm, written only in batches by the presence flush.
import type { IDatabase } from 'pg-promise';
import { helpers } from '../sql.js';
import type { PresenceRow } from '../../model/people.js';

const UPSERT_COLUMNS = new helpers.ColumnSet(['user_id', 'realm_id', 'last_connected_time', 'last_active_time', 'last_update_id'], {
  table: 'user_presence',
});

export class PresenceRepository {
  constructor(private db: IDatabase<unknown>) {}

  forRealm(realmId: number): Promise<PresenceRow[]> {
    return this.db.map('SELECT * FROM user_presence WHERE realm_id = $1', [realmId], (r) => ({
      userId: r.user_id,
      realmId: r.realm_id,
      lastConnectedTime: Number(r.last_connected_time),
      lastActiveTime: Number(r.last_active_time),
      lastUpdateId: Number(r.last_update_id),
    }));
  }

  /** One statement for any number of rows. */
  upsertMany(rows: PresenceRow[]): Promise<null> {
    if (rows.length === 0) return Promise.resolve(null);
    const values = rows.map((r) => ({
      user_id: r.userId,
      realm_id: r.realmId,
      last_connected_time: r.lastConnectedTime,
      last_active_time: r.lastActiveTime,
      last_update_id: r.lastUpdateId,
    }));
    const sql =
      helpers.insert(values, UPSERT_COLUMNS) +
      ` ON CONFLICT (user_id) DO UPDATE SET last_connected_time = EXCLUDED.last_connected_time,
        last_active_time = EXCLUDED.last_active_time, last_update_id = EXCLUDED.last_update_id`;
    return this.db.none(sql);
  }
}
