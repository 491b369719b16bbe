// Emoji reactions on messages.
import type { IDatabase } from 'pg-promise';
import type { Reaction } from '../../model/messages.js';

export class ReactionsRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Reactions of these messages, oldest first. */
  async forMessages(messageIds: number[]): Promise<Reaction[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.db.any(
      'SELECT message_id, user_id, emoji_name, emoji_code, reaction_type FROM reactions WHERE message_id = ANY($1::bigint[]) ORDER BY id',
      [messageIds],
    );
    return rows.map((r) => ({
      messageId: Number(r.message_id),
      userId: r.user_id,
      emojiName: r.emoji_name,
      emojiCode: r.emoji_code,
      reactionType: r.reaction_type,
    }));
  }

  /** Adds a reaction; false when the user already reacted with that emoji. */
  add(r: Reaction): Promise<boolean> {
    return this.db.result(
      `INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT DO NOTHING`,
      [r.messageId, r.userId, r.emojiName, r.emojiCode, r.reactionType],
      (res) => res.rowCount === 1,
    );
  }

  /** Removes a reaction by emoji code and type; the removed reaction (with its stored name), or null. */
  async remove(messageId: number, userId: number, emojiCode: string, reactionType: string): Promise<Reaction | null> {
    const row = await this.db.oneOrNone(
      `DELETE FROM reactions WHERE message_id = $1 AND user_id = $2 AND emoji_code = $3 AND reaction_type = $4
       RETURNING emoji_name`,
      [messageId, userId, emojiCode, reactionType],
    );
    return row ? { messageId, userId, emojiName: row.emoji_name, emojiCode, reactionType } : null;
  }
}
