// Uploaded files: the attachment rows, the messages that link them, and the unclaimed ones due for removal.
import type { IDatabase } from 'pg-promise';
import type { Attachment, DeletedAttachment, LinkingMessage, NewAttachment } from '../../model/files.js';

const columns = (t: string) => `${t}id, ${t}realm_id, ${t}owner_id, ${t}path_id, ${t}name, ${t}content_type, ${t}size,
  floor(extract(epoch FROM ${t}create_time) * 1000)::bigint AS create_ms`;
const COLUMNS = columns('');

function toAttachment(r: any): Attachment {
  return {
    id: r.id,
    realmId: r.realm_id,
    ownerId: r.owner_id,
    pathId: r.path_id,
    name: r.name,
    contentType: r.content_type,
    size: Number(r.size),
    createTime: Number(r.create_ms),
  };
}

export class AttachmentsRepository {
  constructor(private db: IDatabase<unknown>) {}

  add(a: NewAttachment): Promise<Attachment> {
    return this.db.one(
      `INSERT INTO attachments (realm_id, owner_id, path_id, name, content_type, size)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLUMNS}`,
      [a.realmId, a.ownerId, a.pathId, a.name, a.contentType, a.size],
      toAttachment,
    );
  }

  byPathId(realmId: number, pathId: string): Promise<Attachment | null> {
    return this.db.oneOrNone(`SELECT ${COLUMNS} FROM attachments WHERE realm_id = $1 AND path_id = $2`, [realmId, pathId], (r) =>
      r ? toAttachment(r) : null,
    );
  }

  /** The rows of these path IDs in the realm. */
  byPathIds(realmId: number, pathIds: string[]): Promise<Attachment[]> {
    if (pathIds.length === 0) return Promise.resolve([]);
    return this.db.map(`SELECT ${COLUMNS} FROM attachments WHERE realm_id = $1 AND path_id = ANY($2::text[])`, [realmId, pathIds], toAttachment);
  }

  /** A user's uploads, oldest first, each with the messages linking it (IDs and send times in ms). */
  forOwner(ownerId: number): Promise<(Attachment & { messages: { id: number; date_sent: number }[] })[]> {
    return this.db.map(
      `SELECT ${columns('a.')},
         coalesce((SELECT json_agg(json_build_object('id', m.id, 'date_sent', floor(extract(epoch FROM m.date_sent) * 1000)::bigint) ORDER BY m.id)
                   FROM attachment_messages am JOIN messages m ON m.id = am.message_id WHERE am.attachment_id = a.id), '[]') AS messages
       FROM attachments a WHERE a.owner_id = $1 ORDER BY a.id`,
      [ownerId],
      (r) => ({ ...toAttachment(r), messages: (r.messages as { id: number | string; date_sent: number | string }[]).map((m) => ({ id: Number(m.id), date_sent: Number(m.date_sent) })) }),
    );
  }

  /** Bytes of all files uploaded in the realm. */
  spaceUsed(realmId: number): Promise<number> {
    return this.db.one('SELECT coalesce(sum(size), 0)::bigint AS n FROM attachments WHERE realm_id = $1', [realmId], (r) => Number(r.n));
  }

  /** The messages linking an attachment, with whether `userId` received each. */
  linkingMessages(attachmentId: number, userId: number): Promise<LinkingMessage[]> {
    return this.db.map(
      `SELECT m.id, m.stream_id,
              EXISTS (SELECT 1 FROM user_messages um WHERE um.user_id = $2 AND um.message_id = m.id) AS received
       FROM attachment_messages am JOIN messages m ON m.id = am.message_id
       WHERE am.attachment_id = $1`,
      [attachmentId, userId],
      (r) => ({ messageId: Number(r.id), channelId: r.stream_id ?? null, received: r.received }),
    );
  }

  /** Makes `attachmentIds` exactly the attachments the message links. */
  async setMessageLinks(messageId: number, attachmentIds: number[]): Promise<void> {
    await this.db.none('DELETE FROM attachment_messages WHERE message_id = $1', [messageId]);
    if (attachmentIds.length === 0) return;
    await this.db.none(
      'INSERT INTO attachment_messages (attachment_id, message_id) SELECT unnest($1::int[]), $2 ON CONFLICT DO NOTHING',
      [attachmentIds, messageId],
    );
  }

  /** Deletes the owner's rows among `ids`. */
  deleteOwned(ids: number[], ownerId: number): Promise<DeletedAttachment[]> {
    return this.db.map(
      'DELETE FROM attachments WHERE id = ANY($1::int[]) AND owner_id = $2 RETURNING id, owner_id, path_id',
      [ids, ownerId],
      (r) => ({ id: r.id, ownerId: r.owner_id, pathId: r.path_id }),
    );
  }

  /** Deletes the realm's attachments uploaded before `before` that no message links (at most `limit`). */
  deleteUnclaimed(realmId: number, before: Date, limit: number): Promise<DeletedAttachment[]> {
    return this.db.map(
      `DELETE FROM attachments WHERE id IN (
         SELECT a.id FROM attachments a
         WHERE a.realm_id = $1 AND a.create_time < $2
           AND NOT EXISTS (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id)
         ORDER BY a.id LIMIT $3)
       RETURNING id, owner_id, path_id`,
      [realmId, before, limit],
      (r) => ({ id: r.id, ownerId: r.owner_id, pathId: r.path_id }),
    );
  }

  /** Realms that have unclaimed attachments uploaded before `before`. */
  realmsWithUnclaimed(before: Date): Promise<number[]> {
    return this.db.map(
      `SELECT DISTINCT a.realm_id FROM attachments a
       WHERE a.create_time < $1 AND NOT EXISTS (SELECT 1 FROM attachment_messages am WHERE am.attachment_id = a.id)`,
      [before],
      (r) => r.realm_id as number,
    );
  }
}
