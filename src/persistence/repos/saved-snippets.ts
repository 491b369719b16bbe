// A user's saved snippets: titled Markdown texts to insert into messages.
import type { IDatabase } from 'pg-promise';
import type { SavedSnippet } from '../../model/drafts.js';

const COLUMNS = 'id, user_id, title, content, extract(epoch FROM date_created)::bigint AS date_created';

function toSnippet(r: Record<string, any>): SavedSnippet {
  return { id: Number(r.id), userId: r.user_id, title: r.title, content: r.content, dateCreated: Number(r.date_created) };
}

export class SavedSnippetsRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forUser(userId: number): Promise<SavedSnippet[]> {
    return (await this.db.any(`SELECT ${COLUMNS} FROM saved_snippets WHERE user_id = $1 ORDER BY id`, [userId])).map(toSnippet);
  }

  async insert(realmId: number, userId: number, title: string, content: string): Promise<SavedSnippet> {
    const r = await this.db.one(
      `INSERT INTO saved_snippets (realm_id, user_id, title, content) VALUES ($1, $2, $3, $4) RETURNING ${COLUMNS}`,
      [realmId, userId, title, content],
    );
    return toSnippet(r);
  }

  /** Changes the given fields of a snippet of the user; null when the user has no snippet with that ID. */
  async update(userId: number, id: number, changes: { title?: string; content?: string }): Promise<SavedSnippet | null> {
    const r = await this.db.oneOrNone(
      `UPDATE saved_snippets SET title = coalesce($3, title), content = coalesce($4, content)
        WHERE id = $1 AND user_id = $2 RETURNING ${COLUMNS}`,
      [id, userId, changes.title ?? null, changes.content ?? null],
    );
    return r ? toSnippet(r) : null;
  }

  async delete(userId: number, id: number): Promise<boolean> {
    return (await this.db.result('DELETE FROM saved_snippets WHERE id = $1 AND user_id = $2', [id, userId])).rowCount > 0;
  }
}
