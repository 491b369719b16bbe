// Per-user message rows and their flag bits: inserts, flag updates, unread and conversation summaries.
import type { IDatabase } from 'pg-promise';
import { helpers } from '../sql.js';
import type { UnreadRow, UserMessageRow } from '../../model/messages.js';

const INSERT_COLUMNS = new helpers.ColumnSet(['user_id', 'message_id', 'flags'], { table: 'user_messages' });

/** The key of a row in flagsForRows' answer. */
export const flagsKey = (userId: number, messageId: number): string => `${userId}:${messageId}`;

export class UserMessagesRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Inserts rows that do not exist yet (historical rows); existing rows are left alone. */
  insertMissing(rows: UserMessageRow[]): Promise<null> {
    if (rows.length === 0) return Promise.resolve(null);
    const data = rows.map((r) => ({ user_id: r.userId, message_id: r.messageId, flags: r.flags }));
    return this.db.none(helpers.insert(data, INSERT_COLUMNS) + ' ON CONFLICT DO NOTHING');
  }

  /** Removes these users' rows of these messages (they lost access). */
  deleteRows(userIds: number[], messageIds: number[]): Promise<null> {
    if (userIds.length === 0 || messageIds.length === 0) return Promise.resolve(null);
    return this.db.none('DELETE FROM user_messages WHERE user_id = ANY($1::int[]) AND message_id = ANY($2::bigint[])', [userIds, messageIds]);
  }

  /** The user's flags for these messages (only where a row exists). */
  async flagsFor(userId: number, messageIds: number[]): Promise<Map<number, number>> {
    if (messageIds.length === 0) return new Map();
    const rows = await this.db.any(
      'SELECT message_id, flags FROM user_messages WHERE user_id = $1 AND message_id = ANY($2::bigint[])',
      [userId, messageIds],
    );
    return new Map(rows.map((r) => [Number(r.message_id), r.flags as number]));
  }

  /** The flags of these (user, message) rows, keyed by flagsKey (only where a row exists). */
  async flagsForRows(rows: { userId: number; messageId: number }[]): Promise<Map<string, number>> {
    if (rows.length === 0) return new Map();
    const found = await this.db.any(
      `SELECT um.user_id, um.message_id, um.flags FROM user_messages um
       JOIN unnest($1::int[], $2::bigint[]) AS k(user_id, message_id) USING (user_id, message_id)`,
      [rows.map((r) => r.userId), rows.map((r) => r.messageId)],
    );
    return new Map(found.map((r) => [flagsKey(r.user_id, Number(r.message_id)), r.flags as number]));
  }

  /** Sets the bits `set` and clears the bits `clear` of each of these rows, in one statement. */
  updateBits(rows: { userId: number; messageId: number; set: number; clear: number }[]): Promise<null> {
    if (rows.length === 0) return Promise.resolve(null);
    return this.db.none(
      `UPDATE user_messages um SET flags = (um.flags | v.set) & ~v.clear
       FROM unnest($1::int[], $2::bigint[], $3::int[], $4::int[]) AS v(user_id, message_id, set, clear)
       WHERE um.user_id = v.user_id AND um.message_id = v.message_id`,
      [rows.map((r) => r.userId), rows.map((r) => r.messageId), rows.map((r) => r.set), rows.map((r) => r.clear)],
    );
  }

  /** Every row of these messages: who has them and with which flags. */
  async rowsFor(messageIds: number[]): Promise<UserMessageRow[]> {
    if (messageIds.length === 0) return [];
    const rows = await this.db.any('SELECT user_id, message_id, flags FROM user_messages WHERE message_id = ANY($1::bigint[])', [messageIds]);
    return rows.map((r) => ({ userId: r.user_id, messageId: Number(r.message_id), flags: r.flags }));
  }

  /** Sets (or clears) a bit on the user's rows for these messages; returns the IDs whose flags changed. */
  setBit(userId: number, messageIds: number[], bit: number, on: boolean): Promise<number[]> {
    if (messageIds.length === 0) return Promise.resolve([]);
    const sql = on
      ? `UPDATE user_messages SET flags = flags | $3 WHERE user_id = $1 AND message_id = ANY($2::bigint[]) AND (flags & $3) = 0 RETURNING message_id`
      : `UPDATE user_messages SET flags = flags & ~$3 WHERE user_id = $1 AND message_id = ANY($2::bigint[]) AND (flags & $3) <> 0 RETURNING message_id`;
    return this.db.map(sql, [userId, messageIds, bit], (r) => Number(r.message_id)).then((ids) => ids.sort((a, b) => a - b));
  }

  /** Marks the user's unread messages read: all of them, a channel's, or a topic's; returns their IDs. */
  markRead(userId: number, scope: { channelId?: number; topic?: string }): Promise<number[]> {
    return this.db
      .map(
        `UPDATE user_messages um SET flags = um.flags | 1 FROM messages m
         WHERE um.user_id = $1 AND (um.flags & 1) = 0 AND m.id = um.message_id
           AND ($2::int IS NULL OR m.stream_id = $2) AND ($3::text IS NULL OR lower(m.topic) = lower($3))
         RETURNING um.message_id`,
        [userId, scope.channelId ?? null, scope.topic ?? null],
        (r) => Number(r.message_id),
      )
      .then((ids) => ids.sort((a, b) => a - b));
  }

  /** Marks the user's unread messages from one sender read (muting the sender); returns their IDs. */
  markReadFrom(userId: number, senderId: number): Promise<number[]> {
    return this.db
      .map(
        `UPDATE user_messages um SET flags = um.flags | 1 FROM messages m
         WHERE um.user_id = $1 AND (um.flags & 1) = 0 AND m.id = um.message_id AND m.sender_id = $2
         RETURNING um.message_id`,
        [userId, senderId],
        (r) => Number(r.message_id),
      )
      .then((ids) => ids.sort((a, b) => a - b));
  }

  /** Users who have read the message (its read flag set), ascending. */
  readBy(messageId: number): Promise<number[]> {
    return this.db.map('SELECT user_id FROM user_messages WHERE message_id = $1 AND (flags & 1) <> 0 ORDER BY user_id', [messageId], (r) => r.user_id as number);
  }

  /** Whether the user has a message in the topic. */
  hasTopic(userId: number, channelId: number, topic: string): Promise<boolean> {
    return this.db.one(
      `SELECT EXISTS (SELECT 1 FROM user_messages um JOIN messages m ON m.id = um.message_id
         WHERE um.user_id = $1 AND m.stream_id = $2 AND lower(m.topic) = lower($3)) AS e`,
      [userId, channelId, topic],
      (r) => r.e as boolean,
    );
  }

  /** Replaces the bits in `mask` with `bits` for one user's row of one message. */
  setBits(userId: number, messageId: number, mask: number, bits: number): Promise<null> {
    return this.db.none('UPDATE user_messages SET flags = (flags & ~$3) | $4 WHERE user_id = $1 AND message_id = $2', [
      userId,
      messageId,
      mask,
      bits,
    ]);
  }

  /**
   * The user's newest `limit` unread messages up to ID `upTo` (register: later ones reach its queue as events),
   * oldest first, with their conversations.
   */
  async unread(userId: number, limit: number, upTo: number = Number.MAX_SAFE_INTEGER): Promise<UnreadRow[]> {
    const rows = await this.db.any(
      `SELECT m.id, m.sender_id, m.recipient_kind, m.stream_id, m.topic, m.direct_recipients, um.flags
       FROM user_messages um JOIN messages m ON m.id = um.message_id
       WHERE um.user_id = $1 AND (um.flags & 1) = 0 AND um.message_id <= $3
       ORDER BY um.message_id DESC LIMIT $2`,
      [userId, limit, upTo],
    );
    return rows
      .map((r) => ({
        id: Number(r.id),
        senderId: r.sender_id,
        kind: r.recipient_kind,
        channelId: r.stream_id,
        topic: r.topic,
        directRecipients: r.direct_recipients ?? [],
        flags: r.flags,
      }))
      .reverse();
  }

  /** The user's direct conversations by newest message up to ID `upTo`: participants (sorted, with the user) and that ID. */
  recentDirectConversations(userId: number, limit: number, upTo: number = Number.MAX_SAFE_INTEGER): Promise<{ members: number[]; maxId: number }[]> {
    return this.db.map(
      `SELECT m.direct_recipients AS members, max(m.id) AS max_id
       FROM user_messages um JOIN messages m ON m.id = um.message_id
       WHERE um.user_id = $1 AND (um.flags & 256) <> 0 AND um.message_id <= $3
       GROUP BY m.direct_recipients ORDER BY max(m.id) DESC LIMIT $2`,
      [userId, limit, upTo],
      (r) => ({ members: r.members ?? [], maxId: Number(r.max_id) }),
    );
  }

  /** The newest message ID the user has up to `upTo`, or -1. */
  maxMessageId(userId: number, upTo: number = Number.MAX_SAFE_INTEGER): Promise<number> {
    return this.db.one('SELECT max(message_id) AS id FROM user_messages WHERE user_id = $1 AND message_id <= $2', [userId, upTo], (r) =>
      r.id == null ? -1 : Number(r.id),
    );
  }

  /** IDs of the user's starred messages, ascending. */
  starred(userId: number): Promise<number[]> {
    return this.db.map('SELECT message_id FROM user_messages WHERE user_id = $1 AND (flags & 2) <> 0 ORDER BY message_id', [userId], (r) =>
      Number(r.message_id),
    );
  }
}
