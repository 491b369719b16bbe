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

  /** Adds reactions in one statement, in order (none of them there yet). */
  addMany(rs: Reaction[]): Promise<null> {
    if (rs.length === 0) return Promise.resolve(null);
    return this.db.none(
      `INSERT INTO reactions (message_id, user_id, emoji_name, emoji_code, reaction_type)
       SELECT m, u, n, c, t FROM unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS v(m, u, n, c, t, i)
       ORDER BY i`,
      [rs.map((r) => r.messageId), rs.map((r) => r.userId), rs.map((r) => r.emojiName), rs.map((r) => r.emojiCode), rs.map((r) => r.reactionType)],
    );
  }

  /** Removes reactions (each there) in one statement. */
  removeMany(rs: Reaction[]): Promise<null> {
    if (rs.length === 0) return Promise.resolve(null);
    return this.db.none(
      `DELETE FROM reactions r USING unnest($1::bigint[], $2::int[], $3::text[], $4::text[]) AS v(m, u, c, t)
       WHERE r.message_id = v.m AND r.user_id = v.u AND r.emoji_code = v.c AND r.reaction_type = v.t`,
      [rs.map((r) => r.messageId), rs.map((r) => r.userId), rs.map((r) => r.emojiCode), rs.map((r) => r.reactionType)],
    );
  }
}
