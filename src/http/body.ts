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


/** Parameters of a query string or urlencoded body, as URLSearchParams reads them (empty pairs skipped, a pair
 *  without `=` an empty value). Text without escapes (`%`, `+`: every long-poll's query) is split directly, without
 *  URLSearchParams' copies. */
export function addSearchParams(into: Map<string, string>, text: string): void {
  let n = 0;
  if (text.includes('%') || text.includes('+')) {
    for (const [k, v] of new URLSearchParams(text)) {
      if (++n > MAX_FIELDS) throw errors.malformedBody(`more than ${MAX_FIELDS} parameters`);
      into.set(k, v);
    }
    return;
  }
  // URLSearchParams drops one leading '?'.
  for (let at = text.startsWith('?') ? 1 : 0; at < text.length; ) {
    let end = text.indexOf('&', at);
    if (end < 0) end = text.length;
    if (end > at) {
      if (++n > MAX_FIELDS) throw errors.malformedBody(`more than ${MAX_FIELDS} parameters`);
      const eq = text.indexOf('=', at);
      if (eq < 0 || eq > end) into.set(text.slice(at, end), '');
      else into.set(text.slice(at, eq), text.slice(eq + 1, end));
    }
    at = end + 1;
  }
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
