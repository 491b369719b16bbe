// Resumable uploads (tus 1.0: core, creation, termination, expiration): each upload's record and bytes in
// storage (tus/<id>.info and tus/<id>), one writer at a time per upload, the offset being the bytes stored.
import { randomBytes } from 'node:crypto';
import { errors } from '../errors.js';
import type { FileStorage } from './storage.js';

export interface PatchOutcome {
  upload: TusUpload;
  offset: number;
  /** Present once the upload is complete: the final answer. */
  result?: Record<string, unknown>;
}

export const TUS_VERSION = '1.0.0';
export const TUS_EXTENSIONS = 'creation,termination,expiration';
const TTL_MS = 24 * 3600 * 1000;

export interface TusUpload {
  id: string;
  realmId: number;
  userId: number;
  length: number;
  metadata: Record<string, string>;
  /** Milliseconds since the epoch. */
  expiresAt: number;
  /** Set once the bytes became an attachment: what the final PATCH answered (answered again on a retry). */
  result?: Record<string, unknown>;
}

const infoKey = (id: string) => `tus/${id}.info`;
export const tusDataKey = (id: string) => `tus/${id}`;

/** Upload-Metadata: comma-separated `key base64value` pairs (the value may be absent). */
export function parseMetadata(header: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (header === undefined || header.trim() === '') return out;
  for (const pair of header.split(',')) {
    const [key, value, extra] = pair.trim().split(/\s+/);
    if (!key || extra !== undefined || key in out || (value !== undefined && !/^[A-Za-z0-9+/]*={0,2}$/.test(value))) {
      throw errors.badRequest('Invalid Upload-Metadata');
    }
    out[key] = value === undefined ? '' : Buffer.from(value, 'base64').toString('utf8');
  }
  return out;
}

async function readAll(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

export class TusUploads {
  /** Uploads being written to: the promise settles when the writer is done. */
  private busy = new Map<string, Promise<void>>();

  constructor(private storage: FileStorage, readonly ttlMs = TTL_MS) {}

  async create(realmId: number, userId: number, length: number, metadata: Record<string, string>, now = Date.now()): Promise<TusUpload> {
    const upload: TusUpload = { id: randomBytes(16).toString('hex'), realmId, userId, length, metadata, expiresAt: now + this.ttlMs };
    await this.storage.put(tusDataKey(upload.id), (async function* () {})());
    await this.save(upload);
    return upload;
  }

  /** An unexpired upload of this user in this realm; null otherwise (others' uploads do not exist for them). */
  async get(id: string, realmId: number, userId: number, now = Date.now()): Promise<TusUpload | null> {
    if (!/^[0-9a-f]{32}$/.test(id)) return null;
    const info = await this.load(id);
    if (!info || info.realmId !== realmId || info.userId !== userId || info.expiresAt <= now) return null;
    return info;
  }

  /** The upload's record; null when it is missing or unreadable. */
  private async load(id: string): Promise<TusUpload | null> {
    try {
      return JSON.parse((await readAll(this.storage.read(infoKey(id)))).toString('utf8')) as TusUpload;
    } catch {
      return null;
    }
  }

  /** The upload and the bytes received so far, once no PATCH is writing to it; null when there is none. */
  async status(id: string, owner: { realmId: number; userId: number }): Promise<{ upload: TusUpload; offset: number } | null> {
    while (this.busy.has(id)) await this.busy.get(id);
    const upload = await this.get(id, owner.realmId, owner.userId);
    return upload && { upload, offset: await this.stored(upload) };
  }

  private async stored(upload: TusUpload): Promise<number> {
    return upload.result ? upload.length : ((await this.storage.size(tusDataKey(upload.id))) ?? 0);
  }

  /**
   * One PATCH, alone on its upload from start to end: appends the body at `offset` (409 unless that is the current
   * offset; never past Upload-Length), keeping what arrived before an interruption. When the upload is then
   * complete, `finish` turns its bytes (at tusDataKey) into an attachment, once; its answer is kept for retries.
   */
  async patch(
    id: string,
    owner: { realmId: number; userId: number },
    offset: number,
    body: { chunks: AsyncIterable<Buffer>; declaredLength?: number },
    finish: (upload: TusUpload) => Promise<Record<string, unknown>>,
  ): Promise<PatchOutcome> {
    return this.exclusive(id, async () => {
      const upload = await this.get(id, owner.realmId, owner.userId);
      if (!upload) throw errors.notFound();
      const current = await this.stored(upload);
      if (offset !== current) throw errors.tusOffsetMismatch(current);
      if (!upload.result) {
        const room = upload.length - current;
        const pastEnd = () => errors.badRequest('The body goes past Upload-Length');
        if (body.declaredLength !== undefined && body.declaredLength > room) throw pastEnd();
        const bounded = (async function* () {
          let taken = 0;
          for await (const c of body.chunks) {
            taken += c.length;
            if (taken > room) throw pastEnd();
            yield c;
          }
        })();
        const r = await this.storage.append(tusDataKey(upload.id), current, bounded);
        if (r.error !== undefined) throw r.error;
        if (r.size < upload.length) return { upload, offset: r.size };
        upload.result = await finish(upload);
        await this.save(upload);
      }
      return { upload, offset: upload.length, result: upload.result };
    });
  }

  /** Termination: the upload and its bytes are gone. */
  async remove(id: string): Promise<void> {
    await this.exclusive(id, async () => {
      await this.storage.delete(tusDataKey(id));
      await this.storage.delete(infoKey(id));
    });
  }

  /** Expiration: removes uploads past their expiry. */
  async expire(now = Date.now()): Promise<void> {
    for (const name of await this.storage.list('tus')) {
      if (!name.endsWith('.info')) continue;
      const id = name.slice(0, -'.info'.length);
      // An unreadable record is removed with its bytes.
      const expiresAt = (await this.load(id))?.expiresAt ?? 0;
      if (expiresAt <= now && !this.busy.has(id)) await this.remove(id);
    }
  }

  private save(upload: TusUpload): Promise<number> {
    const bytes = Buffer.from(JSON.stringify(upload));
    return this.storage.put(infoKey(upload.id), (async function* () {
      yield bytes;
    })());
  }

  private async exclusive<T>(id: string, fn: () => Promise<T>): Promise<T> {
    // No await between seeing the upload free and taking it.
    while (this.busy.has(id)) await this.busy.get(id);
    let release!: () => void;
    this.busy.set(id, new Promise<void>((r) => (release = r)));
    try {
      return await fn();
    } finally {
      this.busy.delete(id);
      release();
    }
  }
}
