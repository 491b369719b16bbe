// The server's file handling: the storage backend, the upload limit, storing uploads and custom emoji images
// before their rows are recorded, resumable uploads, and the periodic removal of unclaimed files.
import { randomBytes } from 'node:crypto';
import type { RealmHandle, Realms } from '../actors/realms.js';
import type { Config } from '../config.js';
import { errors } from '../errors.js';
import type { Logger } from '../log.js';
import type { Db } from '../persistence/db.js';
import type { Removed } from '../realm/files/attachments.commands.js';
import { attachmentKey, contentTypeFor, newPathId, storedName, uploadUrl } from './names.js';
import { LocalDiskStorage, type FileStorage } from './storage.js';
import { ImageProxy } from './image-proxy.js';
import { Thumbnailer } from './thumbnailer.js';
import { TusUploads } from './tus.js';

const MIB = 1024 * 1024;
const SWEEP_INTERVAL_MS = 3600 * 1000;
const SWEEP_BATCH = 500;

/** What the upload endpoints answer with. */
export interface StoredUpload {
  url: string;
  uri: string;
  filename: string;
}

export { attachmentKey };
export const emojiKey = (realmId: number, fileName: string) => `emoji/${realmId}/${fileName}`;

export class Files {
  readonly storage: FileStorage;
  readonly tus: TusUploads;
  readonly thumbnailer: Thumbnailer;
  /** Fetches external images for /external_content/. */
  readonly imageProxy: ImageProxy;
  readonly maxUploadBytes: number;
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private config: Config,
    private db: Db,
    private realms: Realms,
    private log: Logger,
  ) {
    this.storage = new LocalDiskStorage(config.files.dir);
    this.maxUploadBytes = config.files.maxUploadMib * MIB;
    this.tus = new TusUploads(this.storage);
    this.thumbnailer = new Thumbnailer(db, this.storage, realms, log);
    const { proxyMaxBytes: maxBytes, proxyTimeoutMs: timeoutMs, proxyMaxRedirects: maxRedirects, proxyAllowPrivate: allowPrivate } = config.images;
    this.imageProxy = new ImageProxy({ maxBytes, timeoutMs, maxRedirects, allowPrivate });
  }

  tooLarge = () => errors.fileTooLarge(this.config.files.maxUploadMib);

  /** Loads the image proxy's key (IMAGE_PROXY_KEY, else one made once and kept in the database), queues again the
   *  thumbnails an earlier run left pending, and starts the periodic sweep. */
  async start(): Promise<void> {
    this.thumbnailer.proxyKey = this.config.images.proxyKey ?? (await this.db.imageAttachments.secret('image_proxy_key', randomBytes(32).toString('hex')));
    await this.thumbnailer.start();
    this.timer = setInterval(() => {
      this.sweep().catch((err) => this.log.warn({ err }, 'file sweep failed'));
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  stop(): void {
    this.thumbnailer.stop();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** A fresh path ID for an upload called `name`, and its storage key. */
  newUpload(realmId: number, name: string): { pathId: string; key: string } {
    const pathId = newPathId(realmId, storedName(name));
    return { pathId, key: attachmentKey(pathId) };
  }

  /** Records an upload whose bytes are already at `attachmentKey(pathId)`; removes them if recording fails. */
  async record(realm: RealmHandle, userId: number, pathId: string, rawName: string, declaredType: string | undefined, size: number): Promise<StoredUpload> {
    const name = storedName(rawName);
    try {
      await realm.dispatch('attachments.add', { actorId: userId, pathId, name, contentType: contentTypeFor(name, declaredType), size });
    } catch (err) {
      await this.storage.delete(attachmentKey(pathId)).catch(() => undefined);
      throw err;
    }
    const contentType = contentTypeFor(name, declaredType);
    await this.thumbnailer.noteUpload(realm.id, pathId, contentType).catch((err) => this.log.warn({ err, pathId }, 'could not read an image header'));
    const url = uploadUrl(pathId);
    return { url, uri: url, filename: name };
  }

  /** A fresh file name for a custom emoji image of this extension. */
  newEmojiFileName(ext: string): string {
    return `${randomBytes(12).toString('base64url')}.${ext}`;
  }

  /** Removes the stored files of deleted attachment rows. */
  async removeStored(removed: Removed): Promise<void> {
    for (const d of removed.deleted) {
      await this.storage.delete(attachmentKey(d.pathId)).catch(() => undefined);
      await this.thumbnailer.removeStored(d.pathId);
    }
  }

  /** Removes attachments no message links once older than the grace period, and expired resumable uploads. */
  async sweep(now = Date.now()): Promise<number> {
    const before = now - this.config.files.unclaimedGraceMs;
    let count = 0;
    for (const realmId of await this.db.attachments.realmsWithUnclaimed(new Date(before))) {
      const realm = await this.realms.get(realmId);
      for (;;) {
        const removed = await realm.dispatch('attachments.deleteUnclaimed', { before, limit: SWEEP_BATCH });
        await this.removeStored(removed);
        count += removed.deleted.length;
        if (removed.deleted.length < SWEEP_BATCH) break;
      }
    }
    await this.tus.expire(now);
    return count;
  }
}
