// Loads an export archive into this server's database as a new realm: every row renumbered from the tables'
// sequences (IDs mapped consistently across tables, content and settings), the files stored again under the new
// realm's keys, all in one transaction (an archive is loaded whole or not at all).
import type { Readable } from 'node:stream';
import { helpers } from '../persistence/sql.js';
import { generateApiKey } from '../auth/secrets.js';
import type { FileStorage } from '../files/storage.js';
import type { Db, Tx } from '../persistence/db.js';
import { ArchiveError, readArchive, type ArchiveHeader, type Row } from './archive.js';
import { remapPathId, TABLES, type IdMaps, type TableSpec } from './tables.js';

export interface ImportOptions {
  /** The new realm's subdomain; the archive's by default. */
  subdomain?: string;
}

export interface ImportSummary {
  realm_id: number;
  subdomain: string;
  source_realm_id: number;
  export_type: string;
  rows: Record<string, number>;
  files: number;
  bytes: number;
}


class Maps implements IdMaps {
  private byTable = new Map<string, Map<number, number>>();
  oldRealmId = 0;
  newRealmId = 0;

  set(table: string, oldId: number, newId: number): void {
    let m = this.byTable.get(table);
    if (!m) this.byTable.set(table, (m = new Map()));
    m.set(oldId, newId);
  }

  opt(table: string, oldId: unknown): number | null {
    if (oldId === null || oldId === undefined) return null;
    return this.byTable.get(table)?.get(Number(oldId)) ?? null;
  }

  private marks = new Set<string>();

  mark(kind: string, oldId: unknown): void {
    this.marks.add(`${kind}:${String(oldId)}`);
  }

  marked(kind: string, oldId: unknown): boolean {
    return this.marks.has(`${kind}:${String(oldId)}`);
  }

  get(table: string, oldId: unknown): number {
    const id = this.opt(table, oldId);
    if (id === null) throw new ArchiveError(`the archive refers to ${table} ${String(oldId)}, which it does not hold`);
    return id;
  }
}

interface Column {
  name: string;
  udt: string;
}

/** The target table's writable columns (the archive may come from a server with fewer or more columns). */
async function columnsOf(t: Tx, table: string): Promise<Map<string, Column>> {
  const rows = await t.any<{ column_name: string; udt_name: string }>(
    `SELECT column_name, udt_name FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = $1 AND is_generated = 'NEVER'`,
    [table],
  );
  if (rows.length === 0) throw new ArchiveError(`this server has no table ${table}`);
  return new Map(rows.map((r) => [r.column_name, { name: r.column_name, udt: r.udt_name }]));
}

function cast(c: Column): string {
  return c.udt.startsWith('_') ? `${c.udt.slice(1)}[]` : c.udt;
}

async function insertRows(t: Tx, table: string, columns: Map<string, Column>, rows: Row[]): Promise<void> {
  const names = [...new Set(rows.flatMap((r) => Object.keys(r)))].filter((n) => columns.has(n));
  const { ColumnSet, insert } = helpers;
  const cs = new ColumnSet(
    names.map((n) => {
      const c = columns.get(n)!;
      return { name: n, cast: cast(c), mod: c.udt === 'jsonb' || c.udt === 'json' ? ':json' : undefined, def: null };
    }),
    { table },
  );
  await t.none(insert(rows, cs));
}

async function writeLate(t: Tx, spec: TableSpec, columns: Map<string, Column>, rows: Row[]): Promise<void> {
  const { ColumnSet, update } = helpers;
  const cs = new ColumnSet(
    ['?id', ...spec.late!].map((n) => {
      const c = columns.get(n.replace('?', ''))!;
      return { name: c.name, cnd: n.startsWith('?'), cast: cast(c), mod: c.udt === 'jsonb' ? ':json' : undefined };
    }),
    { table: spec.name },
  );
  for (let i = 0; i < rows.length; i += 500) {
    await t.none(update(rows.slice(i, i + 500), cs) + ' WHERE v.id = t.id');
  }
}

/** The storage key of a file in the new realm. */
function newFileKey(key: string, m: IdMaps): string {
  if (key.startsWith('files/')) return 'files/' + remapPathId(key.slice('files/'.length), m);
  const perRealm = /^(emoji|realm)\/\d+\/([^/]+)$/.exec(key);
  if (perRealm) return `${perRealm[1]}/${m.newRealmId}/${perRealm[2]}`;
  throw new ArchiveError(`unexpected file ${key} in the archive`);
}

export async function importRealm(db: Db, storage: FileStorage, source: Readable | string, opts: ImportOptions = {}): Promise<ImportSummary> {
  const written: string[] = [];
  try {
    return await db.tx(async (t) => {
      const lines = readArchive(source);
      const header = (await lines.next()).value as ArchiveHeader;
      const m = new Maps();
      m.oldRealmId = header.realm.id;
      const subdomain = (opts.subdomain ?? header.realm.string_id).toLowerCase();
      if (await t.oneOrNone('SELECT 1 FROM realms WHERE string_id = $1', [subdomain])) {
        throw new ArchiveError(`a realm with subdomain ${JSON.stringify(subdomain)} exists`);
      }
      const counts: Record<string, number> = {};
      const lateRows = new Map<string, Row[]>();
      const columns = new Map<string, Map<string, Column>>();
      let position = 0;
      const sizes = new Map<string, number>();
      let bytes = 0;
      for await (const line of lines) {
        if ('table' in line) {
          const at = TABLES.findIndex((s) => s.name === line.table);
          if (at < position) throw new ArchiveError(`unknown or out-of-order table ${line.table}`);
          position = at;
          const spec = TABLES[at];
          if (!columns.has(spec.name)) columns.set(spec.name, await columnsOf(t, spec.name));
          await loadRows(t, spec, columns.get(spec.name)!, line.rows, m, subdomain, header, lateRows);
          counts[spec.name] = (counts[spec.name] ?? 0) + line.rows.length;
        } else if ('file' in line) {
          if (m.newRealmId === 0) throw new ArchiveError('a file before the realm');
          const key = newFileKey(line.file, m);
          const offset = sizes.get(key) ?? 0;
          if (offset === 0) written.push(key);
          const chunk = Buffer.from(line.data, 'base64');
          const { size, error } = await storage.append(key, offset, (async function* () { yield chunk; })());
          if (error) throw error;
          sizes.set(key, size);
          bytes += chunk.length;
        }
      }
      if (m.newRealmId === 0) throw new ArchiveError('the archive holds no realm');
      for (const spec of TABLES) {
        const rows = lateRows.get(spec.name);
        if (!rows?.length) continue;
        for (const r of rows) spec.remapLate!(r, m);
        await writeLate(t, spec, columns.get(spec.name)!, rows);
      }
      await t.changes.record(null);
      return { realm_id: m.newRealmId, subdomain, source_realm_id: header.realm.id, export_type: header.export_type, rows: counts, files: sizes.size, bytes };
    });
  } catch (err) {
    for (const key of written) await storage.delete(key).catch(() => undefined);
    throw err;
  }
}

async function loadRows(
  t: Tx,
  spec: TableSpec,
  columns: Map<string, Column>,
  rows: Row[],
  m: Maps,
  subdomain: string,
  header: ArchiveHeader,
  lateRows: Map<string, Row[]>,
): Promise<void> {
  if (rows.length === 0) return;
  if (spec.id) {
    const ids = await t.map(`SELECT nextval(pg_get_serial_sequence($1, 'id')) AS id FROM generate_series(1, $2)`, [spec.name, rows.length], (r) => Number(r.id));
    rows.forEach((row, i) => m.set(spec.name, Number(row.id), ids[i]));
  }
  if (spec.name === 'realms') {
    if (rows.length !== 1) throw new ArchiveError('the archive must hold one realm');
    m.newRealmId = m.get('realms', header.realm.id);
    rows[0].string_id = subdomain;
  }
  if (spec.name === 'users') for (const row of rows) if (typeof row.api_key !== 'string') row.api_key = generateApiKey();
  const late: Row[] = [];
  for (const row of rows) {
    spec.remap(row, m);
    if (spec.id) row.id = m.get(spec.name, row.id);
    if (spec.late) {
      const kept: Row = { id: row.id };
      for (const c of spec.late) {
        kept[c] = row[c];
        delete row[c];
      }
      late.push(kept);
    }
  }
  if (late.length) lateRows.set(spec.name, [...(lateRows.get(spec.name) ?? []), ...late]);
  await insertRows(t, spec.name, columns, rows);
}
