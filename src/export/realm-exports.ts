// Data exports requested through the API: a row per request, the archive built in the background (database
// cursor and streams, never the realm actor), stored below exports/, and a realm_export event to administrators
// at each change (the reference's notify_realm_export).
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import type { RealmHandle } from '../actors/realms.js';
import type { EventHub } from '../bus/hub.js';
import { errors } from '../errors.js';
import type { Logger } from '../log.js';
import type { Db } from '../persistence/db.js';
import type { RealmExportRow } from '../model/files.js';
import type { FileStorage } from '../files/storage.js';
import { activeAdminIds } from '../realm/access/roles.js';
import { userSetting } from '../realm/people/user-settings.js';
import type { RealmState } from '../realm/state.js';
import { exportRealm } from './export.js';

/** The reference's limit: five exports per organization in seven days. */
export const EXPORTS_PER_WEEK = 5;
const WEEK_MS = 7 * 24 * 3600 * 1000;

export interface ExportDeps {
  db: Db;
  storage: FileStorage;
  hub: EventHub;
  log: Logger;
}

const exportUrlPath = (storageKey: string) => `/user_avatars/${storageKey}`;
const seconds = (d: Date | null) => (d ? d.getTime() / 1000 : null);

export function formatExport(r: RealmExportRow, realmUrl: string): Record<string, unknown> {
  const done = r.succeeded !== null && r.deleted === null && r.storageKey !== null;
  return {
    id: r.id,
    acting_user_id: r.actingUserId,
    export_time: seconds(r.requested),
    export_url: done ? realmUrl + exportUrlPath(r.storageKey!) : null,
    deleted_timestamp: seconds(r.deleted),
    failed_timestamp: seconds(r.failed),
    pending: r.succeeded === null && r.failed === null,
    export_type: r.exportType,
  };
}

/** The users who allowed administrators to export their private data. */
export function consentingUserIds(state: RealmState): number[] {
  return [...state.usersById.values()].filter((u) => u.isActive && userSetting(u, 'allow_private_data_export') === true).map((u) => u.id);
}

/** The realm's exports, to its administrators of now (the realm's state is read when the event is sent). */
async function notify(deps: ExportDeps, realm: RealmHandle, realmUrl: string): Promise<void> {
  const state = realm.state;
  const rows = await deps.db.realmExports.forRealm(state.realm.id);
  deps.hub.publishEvents(state.realm.id, [{ event: { kind: 'realm_export', exports: rows.map((r) => formatExport(r, realmUrl)) }, users: activeAdminIds(state) }]);
}

/** Records the request and starts building the archive; its ID. The caller checked the actor is an administrator. */
export async function requestExport(deps: ExportDeps, realm: RealmHandle, realmUrl: string, actingUserId: number, exportType: 1 | 2): Promise<number> {
  const realmId = realm.id;
  const id = await deps.db.tx(async (t) => {
    await t.one('SELECT pg_advisory_xact_lock(hashtext($1), $2)', ['realm_export', realmId]);
    if ((await t.realmExports.countSince(realmId, new Date(Date.now() - WEEK_MS))) >= EXPORTS_PER_WEEK) throw errors.exportRateLimited();
    return t.realmExports.add(realmId, actingUserId, exportType);
  });
  await notify(deps, realm, realmUrl);
  const consenting = exportType === 2 ? consentingUserIds(realm.state) : [];
  // One archive at a time per server: each holds a database connection in a long snapshot transaction.
  building = building.then(() => build(deps, realm, realmUrl, id, exportType, consenting));
  return id;
}

let building: Promise<void> = Promise.resolve();

async function build(deps: ExportDeps, realm: RealmHandle, realmUrl: string, id: number, exportType: 1 | 2, consenting: number[]): Promise<void> {
  const token = randomBytes(18).toString('base64url');
  const key = `exports/${realm.id}/${token}/palaver-export-${token.slice(0, 8)}.jsonl.gz`;
  try {
    const pass = new PassThrough();
    const stored = deps.storage.put(key, pass);
    const type = exportType === 1 ? 'public' : 'full_with_consent';
    const [, size] = await Promise.all([exportRealm(deps.db, deps.storage, { realmId: realm.id, type, consentingUserIds: consenting }, pass), stored]);
    await deps.db.realmExports.succeeded(id, key, size);
  } catch (err) {
    deps.log.warn({ err, exportId: id }, 'realm export failed');
    await deps.storage.delete(key).catch(() => undefined);
    await deps.db.realmExports.failed(id).catch(() => undefined);
  }
  await notify(deps, realm, realmUrl).catch((err) => deps.log.warn({ err }, 'realm export event failed'));
}

export async function deleteExport(deps: ExportDeps, realm: RealmHandle, realmUrl: string, id: number): Promise<void> {
  const row = await deps.db.realmExports.byId(realm.id, id);
  if (!row) throw errors.invalidExportId();
  if (row.deleted) throw errors.exportAlreadyDeleted();
  if (row.failed) throw errors.exportFailed();
  if (!row.succeeded) throw errors.exportInProgress();
  await deps.db.realmExports.deleted(id);
  if (row.storageKey) await deps.storage.delete(row.storageKey);
  await notify(deps, realm, realmUrl);
}
