// The reply that serves a stored file: type and disposition headers, a byte range when one is asked for, and
// the bytes streamed from storage with backpressure.
import type { Reply } from './respond.js';
import { contentTypeFor, servingHeaders } from '../realm/files/names.js';
import { parseRange } from '../files/ranges.js';
import type { FileStorage, StoredFile } from '../files/storage.js';

export function fileReply(storage: FileStorage, file: StoredFile, rangeHeader: string | undefined): Reply {
  const { contentType, headers } = servingHeaders(file.contentType, file.name);
  headers['Accept-Ranges'] = 'bytes';
  const range = parseRange(rangeHeader, file.size);
  if (range === 'unsatisfiable') {
    return { status: 416, contentType: 'text/plain; charset=utf-8', headers: { ...headers, 'Content-Range': `bytes */${file.size}` }, body: '' };
  }
  if (range === null) {
    return { status: 200, contentType, headers, body: { length: file.size, open: () => storage.read(file.key) } };
  }
  return {
    status: 206,
    contentType,
    headers: { ...headers, 'Content-Range': `bytes ${range.start}-${range.end}/${file.size}` },
    body: { length: range.end - range.start + 1, open: () => storage.read(file.key, range) },
  };
}

/** The reply serving a realm's image at `key` (custom emoji, icon, logo) named `name`, if it is there; else null. */
export async function imageReply(storage: FileStorage, key: string, name: string, rangeHeader: string | undefined): Promise<Reply | null> {
  const size = await storage.size(key);
  if (size === null) return null;
  return fileReply(storage, { key, size, contentType: contentTypeFor(name, undefined), name }, rangeHeader);
}
