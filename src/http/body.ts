// Request parameters from the query string and from urlencoded or multipart bodies, for every method.
import busboy from 'busboy';
import { errors } from '../errors.js';

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  data: Buffer;
}

export interface RequestParams {
  /** Parameter name → raw string value; a later duplicate replaces an earlier one. */
  fields: Map<string, string>;
  files: UploadedFile[];
}

const MAX_FIELDS = 1000;

/** Parameters of a query string or urlencoded body, as URLSearchParams reads them (one leading `?` dropped, empty pairs
 *  skipped, a pair without `=` an empty value, `+` a space, percent escapes as UTF-8), split directly without
 *  URLSearchParams' copies; text whose escapes decodeURIComponent refuses (malformed, not UTF-8) goes to URLSearchParams,
 *  which keeps them leniently. */
export function addSearchParams(into: Map<string, string>, text: string): void {
  const pairs = splitSearchParams(text) ?? [...new URLSearchParams(text)].flat();
  if (pairs.length > 2 * MAX_FIELDS) throw errors.malformedBody(`more than ${MAX_FIELDS} parameters`);
  for (let i = 0; i < pairs.length; i += 2) into.set(pairs[i]!, pairs[i + 1]!);
}

/** Keys and values, alternating; null when an escape does not decode. */
function splitSearchParams(text: string): string[] | null {
  const out: string[] = [];
  const escaped = text.includes('%') || text.includes('+');
  try {
    for (let at = text.startsWith('?') ? 1 : 0; at < text.length; ) {
      let end = text.indexOf('&', at);
      if (end < 0) end = text.length;
      if (end > at) {
        if (out.length >= 2 * MAX_FIELDS) throw errors.malformedBody(`more than ${MAX_FIELDS} parameters`);
        const eq = text.indexOf('=', at);
        const k = eq < 0 || eq > end ? text.slice(at, end) : text.slice(at, eq);
        const v = eq < 0 || eq > end ? '' : text.slice(eq + 1, end);
        out.push(escaped ? unescapeParam(k) : k, escaped ? unescapeParam(v) : v);
      }
      at = end + 1;
    }
  } catch (err) {
    if (err instanceof URIError) return null;
    throw err;
  }
  return out;
}

function unescapeParam(s: string): string {
  if (!s.includes('%') && !s.includes('+')) return s;
  return percentDecoded(s.includes('+') ? s.replaceAll('+', ' ') : s);
}

/** Hex digits' values by character code (-1: not a hex digit). */
const HEX_VALUE = new Int8Array(128).fill(-1);
for (let d = 0; d < 16; d++) HEX_VALUE['0123456789abcdef'.charCodeAt(d)] = HEX_VALUE['0123456789ABCDEF'.charCodeAt(d)] = d;

/** decodeURIComponent, with escapes of ASCII characters (a queue id's `%3A`, every poll's) decoded here: V8's own is a
 *  call into the runtime that costs several times more. Anything else (UTF-8 sequences, malformed escapes, which throw
 *  URIError) is decodeURIComponent's. */
function percentDecoded(s: string): string {
  let out = '';
  let at = 0;
  for (let i = s.indexOf('%'); i >= 0; i = s.indexOf('%', at)) {
    const high = HEX_VALUE[s.charCodeAt(i + 1)] ?? -1;
    const low = HEX_VALUE[s.charCodeAt(i + 2)] ?? -1;
    if (high < 0 || high > 7 || low < 0) return decodeURIComponent(s);
    out += s.slice(at, i) + String.fromCharCode(high * 16 + low);
    at = i + 3;
  }
  return at === 0 ? s : out + s.slice(at);
}

function parseMultipart(body: Buffer, contentType: string, into: RequestParams): Promise<void> {
  return new Promise((resolve, reject) => {
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: { 'content-type': contentType },
        limits: { fields: MAX_FIELDS, files: 16, fieldSize: body.length + 1 },
        defParamCharset: 'utf8',
      });
    } catch (e) {
      reject(errors.malformedBody((e as Error).message));
      return;
    }
    bb.on('field', (name, value) => into.fields.set(name, value));
    bb.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () =>
        into.files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, data: Buffer.concat(chunks) }),
      );
    });
    bb.on('fieldsLimit', () => reject(errors.malformedBody(`more than ${MAX_FIELDS} parameters`)));
    bb.on('error', (e) => reject(errors.malformedBody((e as Error).message)));
    bb.on('close', () => resolve());
    bb.end(body);
  });
}

/** The files of every request without any (frozen: shared). */
const NO_FILES = Object.freeze([]) as unknown as UploadedFile[];

/** Collects the parameters of a request from its query string and body; synchronously unless the body is multipart. */
export function readParams(query: string, contentType: string, body: Buffer): RequestParams | Promise<RequestParams> {
  const params: RequestParams = { fields: new Map(), files: NO_FILES };
  addSearchParams(params.fields, query);
  if (body.length === 0) return params;
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  if (type === 'application/x-www-form-urlencoded' || type === '') {
    addSearchParams(params.fields, body.toString('utf8'));
  } else if (type === 'multipart/form-data') {
    params.files = [];
    return parseMultipart(body, contentType, params).then(() => params);
  } else {
    throw errors.unsupportedMediaType(type);
  }
  return params;
}
