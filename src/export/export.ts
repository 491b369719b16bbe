// Writes a realm's export archive: every table of src/export/tables.ts read through a cursor in one consistent
// snapshot (REPEATABLE READ), in batches, then the stored files, all streamed through gzip to `out`.
import type { Writable } from 'node:stream';
import pgPromise from 'pg-promise';
import type { FileStorage } from '../files/storage.js';
import { attachmentKey, emojiKey } from '../files/service.js';
import { brandingKey } from '../realm/admin/branding.js';
import type { Db } from '../persistence/db.js';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, ArchiveWriter, type ExportType, type Row } from './archive.js';
import { TABLES } from './tables.js';

const { isolationLevel, TransactionMode } = pgPromise.txMode;
const SNAPSHOT = new TransactionMode({ tiLevel: isolationLevel.repeatableRead, readOnly: true });
/** Rows per FETCH and per archive line: a few MB of JSON at most for the event loop to build at once. */
export const EXPORT_BATCH_ROWS = 250;

export interface ExportOptions {
  realmId: number;
  type: ExportType;
  /** Users who allowed their private data to be exported (full_with_consent). */
  consentingUserIds?: number[];
}

export interface ExportSummary {
  rows: number;
  files: number;
  bytes: number;
  /** Files whose rows were exported but whose bytes were missing from storage. */
  missingFiles: string[];
}

/** Columns the database computes (not written by an import). */
async function generatedColumns(db: Db): Promise<Map<string, string[]>> {
  const rows = await db.any<{ table_name: string; column_name: string }>(
    `SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_generated = 'ALWAYS'`,
  );
  const out = new Map<string, string[]>();
  for (const r of rows) out.set(r.table_name, [...(out.get(r.table_name) ?? []), r.column_name]);
  return out;
}

/** The realm's uploaded icon and logos (every file named, current or replaced-by-default). */
function brandingFiles(realm: Row): string[] {
  const branding = (realm.branding ?? {}) as Record<string, { file?: unknown }>;
  return [...new Set(Object.values(branding).map((b) => b.file).filter((f): f is string => typeof f === 'string' && f !== ''))];
}

export async function exportRealm(db: Db, storage: FileStorage, opts: ExportOptions, out: Writable): Promise<ExportSummary> {
  const writer = new ArchiveWriter(out);
  const realm = await db.one<{ id: number; string_id: string }>('SELECT id, string_id FROM realms WHERE id = $1', [opts.realmId]);
  const migrations = await db.map('SELECT name FROM schema_migrations ORDER BY version', [], (r) => r.name as string);
  await writer.line({ format: ARCHIVE_FORMAT, version: ARCHIVE_VERSION, export_type: opts.type, exported_at: Math.floor(Date.now() / 1000), realm, migrations });
  const generated = await generatedColumns(db);
  const fileKeys: string[] = [];
  await db.tx({ mode: SNAPSHOT }, async (t) => {
    for (const table of TABLES) {
      const select = table.select(opts.type);
      if (select === null) continue;
      // In ID order, so the importer's new IDs keep the old order (message order, display_recipient order).
      const order = table.id ? ' ORDER BY x.id' : '';
      const query = db.$config.pgp.as.format(`SELECT row_to_json(x) AS r FROM (${select}) x${order}`, [opts.realmId, opts.consentingUserIds ?? []]);
      await t.none(`DECLARE export_rows NO SCROLL CURSOR FOR ${query}`);
      const drop = generated.get(table.name) ?? [];
      for (;;) {
        const rows = (await t.map(`FETCH ${EXPORT_BATCH_ROWS} FROM export_rows`, [], (r) => r.r as Row)) as Row[];
        if (rows.length === 0) break;
        for (const row of rows) {
          for (const c of drop) delete row[c];
          table.scrub?.(row, opts.type);
          if (table.name === 'attachments') fileKeys.push(attachmentKey(String(row.path_id)));
          if (table.name === 'realm_emoji') fileKeys.push(emojiKey(opts.realmId, String(row.file_name)));
          if (table.name === 'realms') fileKeys.push(...brandingFiles(row).map((f) => brandingKey(opts.realmId, f)));
        }
        await writer.rowsOf(table.name, rows);
      }
      await t.none('CLOSE export_rows');
    }
  });
  const missingFiles: string[] = [];
  for (const key of fileKeys) {
    if ((await storage.size(key)) === null) missingFiles.push(key);
    else await writer.file(key, storage.read(key));
  }
  await writer.finish();
  return { rows: writer.rows, files: writer.files, bytes: writer.bytes, missingFiles };
}
