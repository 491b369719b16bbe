// A user's drafts (server-side draft synchronization).
import type { IDatabase } from 'pg-promise';
import { helpers } from '../sql.js';
import type { NewDraft, StoredDraft } from '../../model/drafts.js';

const COLUMNS = 'id, user_id, type, recipients, topic, content, last_edit_time';

function toDraft(r: Record<string, any>): StoredDraft {
  return {
    id: Number(r.id),
    userId: r.user_id,
    type: r.type,
    to: r.recipients,
    topic: r.topic,
    content: r.content,
    lastEditTime: Number(r.last_edit_time),
  };
}

const INSERT_COLUMNS = new helpers.ColumnSet(
  ['realm_id', 'user_id', 'type', { name: 'recipients', cast: 'int[]' }, 'topic', 'content', 'last_edit_time'],
  { table: 'drafts' },
);

export class DraftsRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Most recently edited first. */
  async forUser(userId: number, limit = 1000): Promise<StoredDraft[]> {
    const rows = await this.db.any(`SELECT ${COLUMNS} FROM drafts WHERE user_id = $1 ORDER BY last_edit_time DESC, id DESC LIMIT $2`, [
      userId,
      limit,
    ]);
    return rows.map(toDraft);
  }

  /** Inserts in order; the drafts come back with their IDs, in the same order. */
  async insert(realmId: number, drafts: NewDraft[]): Promise<StoredDraft[]> {
    if (drafts.length === 0) return [];
    const rows = drafts.map((d) => ({
      realm_id: realmId,
      user_id: d.userId,
      type: d.type,
      recipients: d.to,
      topic: d.topic,
      content: d.content,
      last_edit_time: d.lastEditTime,
    }));
    const inserted = await this.db.any(helpers.insert(rows, INSERT_COLUMNS) + ` RETURNING ${COLUMNS}`);
    return inserted.map(toDraft).sort((a, b) => a.id - b.id);
  }

  /** Replaces a draft of the user; null when the user has no draft with that ID. */
  async replace(draft: StoredDraft): Promise<StoredDraft | null> {
    const r = await this.db.oneOrNone(
      `UPDATE drafts SET type = $3, recipients = $4::int[], topic = $5, content = $6, last_edit_time = $7
        WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
      [draft.id, draft.userId, draft.type, draft.to, draft.topic, draft.content, draft.lastEditTime],
    );
    return r ? toDraft(r) : null;
  }

  /** Whether a draft of the user was deleted. */
  async delete(userId: number, draftId: number): Promise<boolean> {
    const r = await this.db.result('DELETE FROM drafts WHERE id = $1 AND user_id = $2', [draftId, userId]);
    return r.rowCount > 0;
  }

  deleteAllOf(userId: number): Promise<null> {
    return this.db.none('DELETE FROM drafts WHERE user_id = $1', [userId]);
  }
}
