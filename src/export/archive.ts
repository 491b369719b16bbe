// The realm export archive (format version 1): gzip-compressed JSON lines, written and read as streams.
//
//   line 1      {"format":"palaver-realm-export","version":1,"export_type":"full"|"public"|"full_with_consent",
//                "exported_at":<unix seconds>,"realm":{"id":N,"string_id":S},"migrations":[names]}
//   then        {"table":NAME,"rows":[row, ...]}      rows in the order of src/export/tables.ts, in batches; each
//                                                     row is the table's columns as row_to_json gives them, with
//                                                     the source server's IDs
//   then        {"file":KEY,"data":BASE64}            a stored file's bytes, in chunks; consecutive lines with the
//                                                     same KEY append (KEY is the source storage key:
//                                                     files/<path_id>, emoji/<realm_id>/<file_name> or
//                                                     realm/<realm_id>/<icon or logo file>)
//   last line   {"end":true,"rows":N,"files":N,"bytes":N}   absent when the archive is truncated
//
// The importer remaps every ID (src/export/import.ts), so the same archive can be loaded into any server.
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createGunzip, createGzip } from 'node:zlib';
import type { Readable, Writable } from 'node:stream';

export const ARCHIVE_FORMAT = 'palaver-realm-export';
export const ARCHIVE_VERSION = 1;
/** Raw bytes per file line (a line is about 4/3 of this). */
export const FILE_CHUNK_BYTES = 192 * 1024;
/** The longest line the reader accepts (a file chunk line is ~256 KiB; a rows line is bounded by its batch). */
export const MAX_LINE_CHARS = 64 * 1024 * 1024;

export type ExportType = 'full' | 'public' | 'full_with_consent';

export interface ArchiveHeader {
  format: typeof ARCHIVE_FORMAT;
  version: number;
  export_type: ExportType;
  exported_at: number;
  realm: { id: number; string_id: string };
  migrations: string[];
}

export type Row = Record<string, unknown>;
export type ArchiveLine = { table: string; rows: Row[] } | { file: string; data: string } | { end: true; rows: number; files: number; bytes: number };

/** Writes lines through gzip into `out`, waiting for the stream to drain (the export never buffers the realm). */
export class ArchiveWriter {
  private gzip = createGzip();
  private done: Promise<void>;
  private failure: unknown = null;
  rows = 0;
  files = 0;
  bytes = 0;

  constructor(out: Writable) {
    // A failing destination destroys gzip too, so a writer waiting for 'drain' is woken by the error.
    this.done = pipeline(this.gzip, out);
    this.done.catch((err: unknown) => {
      this.failure = err;
    });
  }

  async line(value: ArchiveHeader | ArchiveLine): Promise<void> {
    if (this.failure || this.gzip.destroyed) throw this.failure ?? new Error('archive destination closed');
    if (!this.gzip.write(JSON.stringify(value) + '\n')) await once(this.gzip, 'drain');
  }

  async rowsOf(table: string, rows: Row[]): Promise<void> {
    this.rows += rows.length;
    await this.line({ table, rows });
  }

  async file(key: string, chunks: AsyncIterable<Buffer>): Promise<void> {
    this.files++;
    let pending: Buffer = Buffer.alloc(0);
    let wrote = false;
    for await (const chunk of chunks) {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      while (pending.length >= FILE_CHUNK_BYTES) {
        await this.line({ file: key, data: pending.subarray(0, FILE_CHUNK_BYTES).toString('base64') });
        this.bytes += FILE_CHUNK_BYTES;
        pending = pending.subarray(FILE_CHUNK_BYTES);
        wrote = true;
      }
    }
    if (pending.length || !wrote) {
      await this.line({ file: key, data: pending.toString('base64') });
      this.bytes += pending.length;
    }
  }

  /** Writes the end line and waits until everything reached the destination. */
  async finish(): Promise<void> {
    await this.line({ end: true, rows: this.rows, files: this.files, bytes: this.bytes });
    this.gzip.end();
    await this.done;
  }
}

export class ArchiveError extends Error {}

/** The archive's header, then its lines; throws ArchiveError on a foreign, newer or truncated archive. */
export async function* readArchive(input: Readable | string): AsyncGenerator<ArchiveHeader | ArchiveLine> {
  const source = typeof input === 'string' ? createReadStream(input) : input;
  const gunzip = createGunzip();
  source.on('error', (err: Error) => gunzip.destroy(err));
  // zlib's own errors ("incorrect header check") say the file is not a gzip archive.
  gunzip.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code?.startsWith('Z_')) err.message = `not a Palaver realm export (${err.message})`;
  });
  const lines = createInterface({ input: source.pipe(gunzip), crlfDelay: Infinity });
  let first = true;
  let ended = false;
  for await (const text of lines) {
    if (text.length > MAX_LINE_CHARS) throw new ArchiveError('archive line too long');
    if (ended) throw new ArchiveError('data after the end of the archive');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new ArchiveError('archive line is not JSON');
    }
    if (first) {
      const h = value as Partial<ArchiveHeader>;
      if (h?.format !== ARCHIVE_FORMAT) throw new ArchiveError('not a Palaver realm export');
      if (h.version !== ARCHIVE_VERSION) throw new ArchiveError(`unsupported export version ${String(h.version)}`);
      first = false;
      yield h as ArchiveHeader;
      continue;
    }
    if ((value as { end?: unknown }).end === true) ended = true;
    yield value as ArchiveLine;
  }
  if (first) throw new ArchiveError('empty archive');
  if (!ended) throw new ArchiveError('truncated archive (no end line)');
}
