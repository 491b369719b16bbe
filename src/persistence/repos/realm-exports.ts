// Data exports of a realm requested through the API, and their progress.
import type { IDatabase } from 'pg-promise';
import type { RealmExportRow } from '../../model/files.js';

const toRow = (r: Record<string, any>): RealmExportRow => ({
  id: r.id,
  actingUserId: r.acting_user_id,
  exportType: r.export_type,
  requested: r.date_requested,
  succeeded: r.date_succeeded,
  failed: r.date_failed,
  deleted: r.date_deleted,
  storageKey: r.storage_key,
});

export class RealmExportsRepository {
  constructor(private db: IDatabase<unknown>) {}

  forRealm(realmId: number): Promise<RealmExportRow[]> {
    return this.db.map('SELECT * FROM realm_exports WHERE realm_id = $1 ORDER BY id', [realmId], toRow);
  }

  byId(realmId: number, id: number): Promise<RealmExportRow | null> {
    return this.db.oneOrNone('SELECT * FROM realm_exports WHERE realm_id = $1 AND id = $2', [realmId, id], (r) => (r ? toRow(r) : null));
  }

  /** Exports requested since `since` (the reference's limit counts them). */
  countSince(realmId: number, since: Date): Promise<number> {
    return this.db.one('SELECT count(*)::int AS n FROM realm_exports WHERE realm_id = $1 AND date_requested >= $2', [realmId, since], (r) => r.n as number);
  }

  add(realmId: number, actingUserId: number, exportType: 1 | 2): Promise<number> {
    return this.db.one('INSERT INTO realm_exports (realm_id, acting_user_id, export_type) VALUES ($1, $2, $3) RETURNING id', [realmId, actingUserId, exportType], (r) => r.id as number);
  }

  succeeded(id: number, storageKey: string, size: number): Promise<null> {
    return this.db.none('UPDATE realm_exports SET date_succeeded = now(), storage_key = $2, size = $3 WHERE id = $1', [id, storageKey, size]);
  }

  failed(id: number): Promise<null> {
    return this.db.none('UPDATE realm_exports SET date_failed = now() WHERE id = $1', [id]);
  }

  deleted(id: number): Promise<null> {
    return this.db.none('UPDATE realm_exports SET date_deleted = now() WHERE id = $1', [id]);
  }

  /** Exports a previous run left unfinished (the server stopped while building them). */
  failUnfinished(): Promise<null> {
    return this.db.none('UPDATE realm_exports SET date_failed = now() WHERE date_succeeded IS NULL AND date_failed IS NULL');
  }
}
