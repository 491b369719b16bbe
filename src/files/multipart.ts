// Streams the single file of a multipart/form-data body to storage as it arrives, never holding it whole.
import busboy from 'busboy';
import { once } from 'node:events';
import type { Readable } from 'node:stream';
import { errors, type ApiError } from '../errors.js';

/** Room in a multipart body for the boundaries, part headers and small fields around the file. */
export const MULTIPART_OVERHEAD = 64 * 1024;

export interface IncomingFile {
  filename: string;
  mimeType: string;
  chunks: AsyncIterable<Buffer>;
}

export interface ReceiveOptions<T> {
  contentType: string;
  /** Largest file accepted, in bytes, and the error for a larger one. */
  limitBytes: number;
  tooLarge: () => ApiError;
  /** Consumes the file's chunks (writes them to storage). */
  store(file: IncomingFile): Promise<T>;
  /** Undoes `store` when the request fails after all (a second file, a broken body). */
  discard(stored: T): Promise<void>;
  /** The error for no file or more than one, where the endpoint has its own (e.g. "You must upload exactly one icon."). */
  wrongFileCount?: () => ApiError;
}

/** The stored result, the file's name and type as the client sent them, and the body's other (small) fields. */
export async function receiveSingleFile<T>(
  body: AsyncIterable<Buffer>,
  o: ReceiveOptions<T>,
): Promise<{ result: T; filename: string; mimeType: string; fields: Map<string, string> }> {
  let bb: busboy.Busboy;
  try {
    bb = busboy({
      headers: { 'content-type': o.contentType },
      // busboy reports a file that reaches its fileSize: one byte more than allowed.
      limits: { files: 1, fileSize: o.limitBytes + 1, fields: 100, fieldSize: 64 * 1024 },
      defParamCharset: 'utf8',
    });
  } catch (e) {
    throw errors.malformedBody((e as Error).message);
  }
  let failure: unknown = null;
  const fail = (e: unknown) => {
    failure ??= e;
  };
  let file: { stream: Readable; filename: string; mimeType: string; stored: Promise<T> } | null = null;
  bb.on('file', (_field, stream, info) => {
    const stored = o.store({ filename: info.filename ?? '', mimeType: info.mimeType, chunks: stream });
    // Whatever happens to the store, the parser must be able to go on.
    stored.catch((e) => {
      fail(e);
      stream.resume();
    });
    stream.on('limit', () => fail(o.tooLarge()));
    // Failures reach the store through its iteration; the stream is destroyed with them below.
    stream.on('error', () => undefined);
    file = { stream, filename: info.filename ?? '', mimeType: info.mimeType, stored };
  });
  const fields = new Map<string, string>();
  bb.on('field', (name, value) => fields.set(name, value));
  bb.on('filesLimit', () => fail(o.wrongFileCount?.() ?? errors.badRequest('You may only upload one file at a time')));
  bb.on('fieldsLimit', () => fail(errors.malformedBody('too many fields')));
  const finished = new Promise<void>((resolve) => {
    bb.once('close', resolve);
    bb.once('error', (e) => {
      fail(errors.malformedBody((e as Error).message));
      resolve();
    });
  });
  try {
    for await (const chunk of body) {
      if (failure !== null) break;
      if (!bb.write(chunk)) await Promise.race([once(bb, 'drain'), finished]);
    }
    if (failure === null) {
      bb.end();
      await finished;
    }
  } catch (e) {
    fail(e);
  }
  const f = file as { stream: Readable; filename: string; mimeType: string; stored: Promise<T> } | null;
  if (failure !== null) {
    f?.stream.destroy(failure as Error);
    bb.destroy();
  }
  const result = f ? await f.stored.then((r) => r, (e) => (fail(e), undefined)) : undefined;
  if (failure !== null) {
    if (result !== undefined) await o.discard(result).catch(() => undefined);
    throw failure;
  }
  if (!f || result === undefined) throw o.wrongFileCount?.() ?? errors.badRequest('You must specify a file to upload');
  return { result, filename: f.filename, mimeType: f.mimeType, fields };
}
