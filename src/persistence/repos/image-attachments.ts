// Uploaded images: their header data and thumbnails (image_attachments), the messages still showing a placeholder
// for one, and the server's secrets (server_secrets).
import type { IDatabase } from 'pg-promise';
import type { ImageAttachment, StoredThumbnail } from '../../model/files.js';

const COLUMNS = 'path_id, realm_id, width, height, frames, content_type, thumbnails';

function toImage(r: any): ImageAttachment {
  return {
    pathId: r.path_id,
    realmId: r.realm_id,
    width: r.width,
    height: r.height,
    frames: r.frames,
    contentType: r.content_type,
    thumbnails: r.thumbnails as StoredThumbnail[],
  };
}

export class ImageAttachmentsRepository {
  constructor(private db: IDatabase<unknown>) {}

  add(img: ImageAttachment): Promise<null> {
    return this.db.none(
      `INSERT INTO image_attachments (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb)`,
      [img.pathId, img.realmId, img.width, img.height, img.frames, img.contentType, JSON.stringify(img.thumbnails)],
    );
  }

  byPathId(pathId: string): Promise<ImageAttachment | null> {
    return this.db.oneOrNone(`SELECT ${COLUMNS} FROM image_attachments WHERE path_id = $1`, [pathId], (r) => (r ? toImage(r) : null));
  }

  byPathIds(realmId: number, pathIds: string[]): Promise<ImageAttachment[]> {
    if (pathIds.length === 0) return Promise.resolve([]);
    return this.db.map(`SELECT ${COLUMNS} FROM image_attachments WHERE realm_id = $1 AND path_id = ANY($2::text[])`, [realmId, pathIds], toImage);
  }

  /** Images still without thumbnails (after a restart their jobs are queued again). */
  pending(limit: number): Promise<ImageAttachment[]> {
    return this.db.map(`SELECT ${COLUMNS} FROM image_attachments WHERE thumbnails = '[]' ORDER BY path_id LIMIT $1`, [limit], toImage);
  }

  setThumbnails(pathId: string, thumbnails: StoredThumbnail[]): Promise<null> {
    return this.db.none('UPDATE image_attachments SET thumbnails = $2::jsonb WHERE path_id = $1', [pathId, JSON.stringify(thumbnails)]);
  }

  delete(pathId: string): Promise<null> {
    return this.db.none('DELETE FROM image_attachments WHERE path_id = $1', [pathId]);
  }

  /** Messages linking the upload whose rendering still has a preview placeholder, locked for the rewrite. */
  placeholderMessages(realmId: number, pathId: string): Promise<{ id: number; channelId: number | null; content: string; renderedContent: string }[]> {
    return this.db.map(
      `SELECT m.id, m.stream_id, m.content, m.rendered_content FROM messages m
       JOIN attachment_messages am ON am.message_id = m.id
       JOIN attachments a ON a.id = am.attachment_id
       WHERE a.realm_id = $1 AND a.path_id = $2 AND m.rendered_content LIKE '%image-loading-placeholder%'
       ORDER BY m.id FOR UPDATE OF m`,
      [realmId, pathId],
      (r) => ({ id: Number(r.id), channelId: r.stream_id ?? null, content: r.content, renderedContent: r.rendered_content }),
    );
  }

  setRenderedContent(messageId: number, renderedContent: string): Promise<null> {
    return this.db.none('UPDATE messages SET rendered_content = $2 WHERE id = $1', [messageId, renderedContent]);
  }

  /** The secret called `name`, made from `fresh` the first time (every server process then shares it). */
  secret(name: string, fresh: string): Promise<string> {
    return this.db.one(
      `WITH ins AS (INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING RETURNING value)
       SELECT value FROM ins UNION ALL SELECT value FROM server_secrets WHERE name = $1 LIMIT 1`,
      [name, fresh],
      (r) => r.value as string,
    );
  }
}
