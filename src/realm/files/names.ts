// Names and URLs of uploaded files: the stored name, the sanitized path, the Markdown link, and how a file is served.
import { randomBytes } from 'node:crypto';

const MAX_NAME_CHARS = 255;
const MAX_PATH_NAME_BYTES = 200;

/** The name a file is stored under (the response's `filename`): the last path component, without control characters. */
export function storedName(raw: string): string {
  const base = raw.split(/[/\\]/).pop() ?? '';
  // eslint-disable-next-line no-control-regex
  const clean = [...base.replace(/[\u0000-\u001f\u007f-\u009f]/g, '').trim()].slice(0, MAX_NAME_CHARS).join('');
  return clean === '' || clean === '.' || clean === '..' ? 'uploaded-file' : clean;
}

/** The name's form inside a URL path: letters, digits, `_`, `.` and `-` (runs of spaces and dashes become one dash). */
export function sanitizeName(name: string): string {
  let value = name.normalize('NFKC').replace(/[^\p{L}\p{N}\p{M}_\s.-]/gu, '').trim();
  value = value.replace(/[-\s]+/g, '-');
  if (Buffer.byteLength(value) > MAX_PATH_NAME_BYTES) {
    const dot = value.lastIndexOf('.');
    const ext = dot > 0 && value.length - dot <= 16 ? value.slice(dot) : '';
    const chars = [...value.slice(0, value.length - ext.length)];
    while (chars.length > 0 && Buffer.byteLength(chars.join('') + ext) > MAX_PATH_NAME_BYTES) chars.pop();
    value = chars.join('') + ext;
  }
  return value === '' || value === '.' || value === '..' ? 'uploaded-file' : value;
}

/** A fresh path ID: `<realm_id>/<2 hex>/<24 random URL-safe characters>/<sanitized name>`. */
export function newPathId(realmId: number, name: string): string {
  return `${realmId}/${randomBytes(1).toString('hex')}/${randomBytes(18).toString('base64url')}/${sanitizeName(name)}`;
}

/** Whether a string has the shape of a path ID (checked before any lookup). */
export function isPathId(s: string): boolean {
  return /^\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/[^/\0]+$/.test(s);
}

/** The storage key of an upload's bytes. */
export const attachmentKey = (pathId: string) => `files/${pathId}`;

/** The URL of an upload, relative to the realm: each path segment percent-encoded. */
export function uploadUrl(pathId: string): string {
  return '/user_uploads/' + pathId.split('/').map(encodeURIComponent).join('/');
}

/** The spec's Markdown link to an upload: the filename in brackets, with `[` and `]` removed, then the URL. */
export function markdownLink(filename: string, url: string): string {
  return `[${filename.replace(/[[\]]/g, '')}](${url})`;
}

const TYPES_BY_EXTENSION: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  apng: 'image/apng', svg: 'image/svg+xml', bmp: 'image/bmp', ico: 'image/x-icon', tif: 'image/tiff', tiff: 'image/tiff',
  pdf: 'application/pdf', txt: 'text/plain', md: 'text/markdown', csv: 'text/csv', json: 'application/json',
  html: 'text/html', htm: 'text/html', xml: 'text/xml', js: 'text/javascript', css: 'text/css',
  zip: 'application/zip', gz: 'application/gzip', tar: 'application/x-tar',
  mp3: 'audio/mpeg', wav: 'audio/wav', flac: 'audio/flac', aac: 'audio/aac', m4a: 'audio/mp4', weba: 'audio/webm',
  mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime',
  doc: 'application/msword', docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  xls: 'application/vnd.ms-excel', xlsx: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  odt: 'application/vnd.oasis.opendocument.text',
};

/** The content type to record: the client's, unless it is missing or generic, then one guessed from the name. */
export function contentTypeFor(name: string, declared: string | undefined): string {
  const type = (declared ?? '').split(';')[0]!.trim().toLowerCase();
  if (/^[a-z0-9.+-]+\/[a-z0-9.+-]+$/.test(type) && type !== 'application/octet-stream') return type;
  const ext = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : '';
  return TYPES_BY_EXTENSION[ext] ?? 'application/octet-stream';
}

/** Types a browser may show in place; everything else is a download. Never add types that run script
 *  (text/html, image/svg+xml, application/xhtml+xml, text/xml, …). */
const INLINE_TYPES = new Set([
  'application/pdf', 'audio/aac', 'audio/flac', 'audio/mp4', 'audio/mpeg', 'audio/wav', 'audio/webm',
  'image/apng', 'image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp', 'text/plain', 'video/mp4', 'video/webm',
]);

/** Headers that say how a stored file is served: its type (active types only as opaque bytes), inline or as a
 *  download with its name, and never sniffed or run. */
export function servingHeaders(contentType: string, name: string): { contentType: string; headers: Record<string, string> } {
  const inline = INLINE_TYPES.has(contentType);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return {
    contentType: inline ? (contentType === 'text/plain' ? 'text/plain; charset=utf-8' : contentType) : safeType(contentType),
    headers: {
      'Content-Disposition': `${inline ? 'inline' : 'attachment'}; filename="${ascii}"; filename*=UTF-8''${encodeRfc5987(name)}`,
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': "default-src 'none'; sandbox",
      'Cache-Control': 'private, no-cache',
    },
  };
}

/** Types a browser would render as a document or run are served as opaque bytes. */
function safeType(type: string): string {
  return /html|xml|javascript|ecmascript|svg|text\/css/.test(type) ? 'application/octet-stream' : type;
}

function encodeRfc5987(s: string): string {
  return encodeURIComponent(s).replace(/['()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}
