// The log of writes made outside the server process, which the server polls to reload realms.
import type { IDatabase } from 'pg-promise';

export class ChangesRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Notes that a realm (or, with null, the realm directory) changed outside the server. */
  record(realmId: number | null): Promise<null> {
    return this.db.none('INSERT INTO external_changes (realm_id) VALUES ($1)', [realmId]);
  }

  latestId(): Promise<number> {
    return this.db.one('SELECT coalesce(max(id), 0)::bigint AS id FROM external_changes', [], (r) => Number(r.id));
  }

  since(id: number): Promise<{ id: number; realmId: number | null }[]> {
    return this.db.map('SELECT id, realm_id FROM external_changes WHERE id > $1 ORDER BY id', [id], (r) => ({
      id: Number(r.id),
      realmId: r.realm_id,
    }));
  }
}
