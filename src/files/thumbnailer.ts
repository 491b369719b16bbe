// Thumbnails made in the background: an upload that reads as an image gets its image_attachments row when it is
// recorded; its thumbnails are then made one image at a time (libvips threads, off the event loop), stored next to
// the upload, and the messages showing its placeholder are re-rendered through the realm (finish_thumbnails).
import type { Realms } from '../actors/realms.js';
import type { Logger } from '../log.js';
import type { ImageRenderData, UploadPreview } from '../markdown/index.js';
import type { Db } from '../persistence/db.js';
import { makeThumbnail, readHeader } from './image-codec.js';
import { uploadPathIds } from '../realm/files/links.js';
import { attachmentKey } from '../realm/files/names.js';
import type { FileStorage, StoredFile } from './storage.js';
import {
  formatName,
  missingFormats,
  parseFormatName,
  sameFormat,
  THUMBNAIL_ACCEPT_IMAGE_TYPES,
  thumbnailKey,
  uploadPreview,
  wantedFormats,
} from '../realm/files/thumbnail-formats.js';
import type { StoredThumbnail, ThumbnailFormat } from '../model/files.js';

/** Uploads whose headers are read at once; more wait (each read holds the file in memory). */
const HEADER_READS = 2;
/** Images still pending after a restart that are queued again at start. */
const REQUEUE_AT_START = 1000;

async function readAll(chunks: AsyncIterable<Buffer>): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const c of chunks) parts.push(c);
  return Buffer.concat(parts);
}

async function* once(data: Buffer): AsyncIterable<Buffer> {
  yield data;
}

export class Thumbnailer {
  /** Queued jobs by path ID (their realm), in order; a path is queued at most once. */
  private readonly queue = new Map<string, number>();
  private readonly waiters = new Map<string, (() => void)[]>();
  /** The path ID whose job is running. */
  private active: string | null = null;
  private running = false;
  private stopped = false;
  private headerReads = 0;
  private readonly headerWaits: (() => void)[] = [];

  constructor(
    private db: Db,
    private storage: FileStorage,
    private realms: Realms,
    private log: Logger,
    /** The image proxy's signing key (see Files.start). */
    public proxyKey = '',
  ) {}

  /** Queues again the images left pending by an earlier run. */
  async start(): Promise<void> {
    for (const img of await this.db.imageAttachments.pending(REQUEUE_AT_START)) this.enqueue(img.realmId, img.pathId);
  }

  stop(): void {
    this.stopped = true;
  }

  /** After an upload is recorded: an image type whose header reads as an acceptable image gets its row and job. */
  async noteUpload(realmId: number, pathId: string, contentType: string): Promise<void> {
    if (!THUMBNAIL_ACCEPT_IMAGE_TYPES.has(contentType)) return;
    const header = await this.withHeaderSlot(async () => readHeader(await readAll(this.storage.read(attachmentKey(pathId)))));
    if (!header) return;
    await this.db.imageAttachments.add({ pathId, realmId, ...header, contentType, thumbnails: [] });
    this.enqueue(realmId, pathId);
  }

  /** The image data one render needs: the realm's setting, the proxy key and the previews of linked uploads. */
  async renderData(realmId: number, enabled: boolean, content: string): Promise<ImageRenderData> {
    const uploads: Record<string, UploadPreview> = {};
    if (enabled) for (const img of await this.db.imageAttachments.byPathIds(realmId, uploadPathIds(content))) uploads[img.pathId] = uploadPreview(img);
    return { enabled, proxyKey: this.proxyKey, uploads };
  }

  /** After a message showing placeholders is committed: its images' jobs run (again), so that it is re-rendered
   *  even when their thumbnails were finished while it was being sent. */
  refreshPending(realmId: number, data: ImageRenderData | undefined): void {
    for (const [pathId, p] of Object.entries(data?.uploads ?? {})) if (p.url === null) this.enqueue(realmId, pathId);
  }

  enqueue(realmId: number, pathId: string): void {
    if (this.stopped) return;
    this.queue.set(pathId, realmId);
    void this.drain();
  }

  /** Resolves when the image's queued or running job has run (at once when there is none). */
  settled(pathId: string): Promise<void> {
    if (!this.queue.has(pathId) && this.active !== pathId) return Promise.resolve();
    return new Promise((resolve) => this.waiters.set(pathId, [...(this.waiters.get(pathId) ?? []), resolve]));
  }

  private async drain(): Promise<void> {
    if (this.running) return;
    this.running = true;
    try {
      for (let next = this.queue.entries().next(); !next.done && !this.stopped; next = this.queue.entries().next()) {
        const [pathId, realmId] = next.value;
        this.queue.delete(pathId);
        this.active = pathId;
        await this.run(realmId, pathId).catch((err) => this.log.warn({ err, pathId }, 'thumbnailing failed'));
        this.active = null;
        // Waiters of a job queued again while it ran wait for that next run.
        if (this.queue.has(pathId)) continue;
        for (const w of this.waiters.get(pathId) ?? []) w();
        this.waiters.delete(pathId);
      }
    } finally {
      this.running = false;
    }
  }

  private async run(realmId: number, pathId: string): Promise<void> {
    const img = await this.db.imageAttachments.byPathId(pathId);
    if (!img) return;
    const missing = missingFormats(img);
    let thumbnails: StoredThumbnail[] | null | undefined;
    if (missing.length > 0) {
      const bytes = await readAll(this.storage.read(attachmentKey(pathId)));
      const made: StoredThumbnail[] = [];
      try {
        for (const format of missing) {
          const { data, stored } = await makeThumbnail(bytes, img, format);
          await this.storage.put(thumbnailKey(pathId, format), once(data));
          made.push(stored);
        }
      } catch (err) {
        this.log.warn({ err, pathId }, 'could not make a thumbnail');
      }
      // Never thumbnailed and nothing made now: the bytes were bad, so the previews go (as in the reference).
      thumbnails = made.length === 0 && img.thumbnails.length === 0 ? null : [...img.thumbnails, ...made];
    }
    const realm = await this.realms.get(realmId);
    await realm.dispatch('thumbnails.finish', { pathId, thumbnails });
  }

  private async withHeaderSlot<T>(work: () => Promise<T>): Promise<T> {
    while (this.headerReads >= HEADER_READS) await new Promise<void>((resolve) => this.headerWaits.push(resolve));
    this.headerReads++;
    try {
      return await work();
    } finally {
      this.headerReads--;
      this.headerWaits.shift()?.();
    }
  }

  /**
   * The stored thumbnail to serve for a request of format `name` (the reference's serve_file): one of the current
   * formats not made yet is made now (its job runs first); any other is served as the closest one made. Null when
   * the upload is no image or the name no format.
   */
  async thumbnailFile(realmId: number, pathId: string, name: string): Promise<StoredFile | null> {
    const requested = parseFormatName(name);
    let img = await this.db.imageAttachments.byPathId(pathId);
    if (!requested || !img) return null;
    if (wantedFormats(img).some((f) => sameFormat(f, requested)) && !img.thumbnails.some((f) => sameFormat(f, requested))) {
      this.enqueue(realmId, pathId);
      await this.settled(pathId);
      img = await this.db.imageAttachments.byPathId(pathId);
      if (!img) return null;
    }
    const chosen = img.thumbnails.find((f) => sameFormat(f, requested)) ?? closest(img.thumbnails, requested);
    return chosen ? { key: thumbnailKey(pathId, chosen), size: chosen.byteSize, contentType: chosen.contentType, name: formatName(chosen) } : null;
  }

  /** Removes the thumbnails stored for an upload. */
  async removeStored(pathId: string): Promise<void> {
    for (const name of await this.storage.list(`thumbnail/${pathId}`)) await this.storage.delete(`thumbnail/${pathId}/${name}`).catch(() => undefined);
  }
}

/** The made thumbnail nearest a requested format: same animation, then same type, then nearest width, then smallest. */
function closest(made: StoredThumbnail[], want: ThumbnailFormat): StoredThumbnail | undefined {
  const grade = (f: StoredThumbnail) => [Number(f.animated !== want.animated), Number(f.extension !== want.extension), Math.abs(f.maxWidth - want.maxWidth), f.byteSize];
  return [...made].sort((a, b) => {
    const ga = grade(a);
    const gb = grade(b);
    for (let i = 0; i < ga.length; i++) if (ga[i] !== gb[i]) return ga[i]! - gb[i]!;
    return 0;
  })[0];
}
