// Message rows: inserts (one multi-row statement per kind), reads by ID, edits, deletions and conversation IDs.
import type { IDatabase } from 'pg-promise';
import { ParameterizedQuery, scalarArray } from '../sql.js';
import type { InsertedMessage, MessageChange, NewMessage, StoredMessage } from '../../model/messages.js';

/** The columns every message read selects (alias `m`). */
export const MESSAGE_COLUMNS = `m.id, m.realm_id, m.sender_id, m.recipient_kind, m.stream_id, m.topic, m.direct_recipients,
  m.content, m.rendered_content, extract(epoch FROM m.date_sent)::bigint AS date_sent,
  extract(epoch FROM m.last_edit_time)::bigint AS last_edit_time, extract(epoch FROM m.last_moved_time)::bigint AS last_moved_time,
  m.has_link, m.has_attachment, m.has_image, m.recipient_id, m.sending_client, m.is_me_message, m.edit_history`;

export function toStoredMessage(r: Record<string, any>): StoredMessage {
  return {
    id: Number(r.id),
    realmId: r.realm_id,
    senderId: r.sender_id,
    kind: r.recipient_kind,
    channelId: r.stream_id,
    topic: r.topic,
    directRecipients: r.direct_recipients ?? [],
    content: r.content,
    renderedContent: r.rendered_content,
    dateSent: Number(r.date_sent),
    lastEditTime: r.last_edit_time == null ? null : Number(r.last_edit_time),
    lastMovedTime: r.last_moved_time == null ? null : Number(r.last_moved_time),
    hasLink: r.has_link,
    hasAttachment: r.has_attachment,
    hasImage: r.has_image,
    recipientId: r.recipient_id,
    client: r.sending_client,
    isMeMessage: r.is_me_message,
    editHistory: r.edit_history ?? null,
  };
}

const MESSAGE_INSERT = `INSERT INTO messages (id, realm_id, sender_id, recipient_kind, stream_id, topic, direct_recipients, content, rendered_content,
                        date_sent, has_link, has_attachment, has_image, recipient_id, sending_client, is_me_message)
  SELECT id, realm_id, sender_id, recipient_kind, stream_id, topic, direct_recipients::int[], content, rendered_content,
         to_timestamp(date_sent), has_link, has_attachment, has_image, recipient_id, sending_client, is_me_message`;
const COLUMN_ARRAYS = `$1::int[], $2::int[], $3::text[], $4::int[], $5::text[], $6::text[], $7::text[], $8::text[], $9::float8[],
              $10::bool[], $11::bool[], $12::bool[], $13::int[], $14::text[], $15::bool[]`;
const COLUMN_NAMES = `realm_id, sender_id, recipient_kind, stream_id, topic, direct_recipients, content, rendered_content,
                         date_sent, has_link, has_attachment, has_image, recipient_id, sending_client, is_me_message`;
/** Whether the channel message `v` names a topic that had a message before the statement. */
const existed = (v: string) =>
  `${v}.stream_id IS NOT NULL AND EXISTS (SELECT 1 FROM messages x WHERE x.stream_id = ${v}.stream_id AND lower(x.topic) = lower(${v}.topic))`;

/**
 * See insertWithRecipients. `v` is materialized, so each row takes its ID once, as unnest yields the rows (in order):
 * the one given ($19), else drawn from the sequence; the recipients' rows ($16–$18) name their message by its
 * ordinal. Every topic lookup sees the table as it was before the statement (one snapshot for all its parts).
 */
const INSERT_WITH_RECIPIENTS = `
WITH v AS MATERIALIZED (
  SELECT coalesce(($19::bigint[])[v.ord], nextval('messages_id_seq')) AS id, v.*
  FROM unnest(${COLUMN_ARRAYS})
    WITH ORDINALITY AS v(${COLUMN_NAMES}, ord)
), m AS (
  ${MESSAGE_INSERT}
  FROM v
), um AS (
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT r.user_id, v.id, r.flags FROM unnest($16::int[], $17::int[], $18::int[]) AS r(ord, user_id, flags) JOIN v ON v.ord = r.ord
)
SELECT v.id, lower(v.topic) AS topic_key, ${existed('v')} AS topic_existed FROM v ORDER BY v.ord`;

/**
 * See insertIfTopicsExist. Every ID is given ($19, beside the columns), and the recipients' rows ($16–$18) name their
 * message by its ID, so each table's rows come straight from unnest: no CTE of the messages, no join. The rows are
 * inserted only if every channel message's topic already had a message and no message of the realm ($20) has an ID
 * from the first given on; both checks see the table as it was before the statement.
 */
const INSERT_IF_TOPICS_EXIST = `
WITH e AS MATERIALIZED (
  SELECT (SELECT coalesce(bool_and(t.stream_id IS NULL OR (${existed('t')})), true) FROM unnest($4::int[], $5::text[]) AS t(stream_id, topic)) AS topics,
         NOT EXISTS (SELECT 1 FROM messages x WHERE x.realm_id = $20 AND x.id >= ($19::bigint[])[1]) AS ids_above
), m AS (
  ${MESSAGE_INSERT}
  FROM unnest($19::bigint[], ${COLUMN_ARRAYS})
    AS v(id, ${COLUMN_NAMES})
  WHERE (SELECT topics AND ids_above FROM e)
), um AS (
  INSERT INTO user_messages (user_id, message_id, flags)
  SELECT r.user_id, r.message_id, r.flags FROM unnest($16::bigint[], $17::int[], $18::int[]) AS r(message_id, user_id, flags)
  WHERE (SELECT topics AND ids_above FROM e)
)
SELECT topics, ids_above FROM e`;

/**
 * The parameters of both inserts: one array per column, the recipients' rows as (message, user, flags) — the message
 * by its ordinal, or by its ID when `byId` (every ID given) — then the messages' IDs (null for one drawn by the
 * statement; no array: all drawn).
 */
function insertValues(
  messages: NewMessage[],
  recipients: { userId: number; flags: number }[][],
  ids: readonly (number | null)[] | null,
  byId = false,
): unknown[] {
  const col = <T>(f: (m: NewMessage) => T) => messages.map(f);
  const scalars = (f: (m: NewMessage) => number | boolean | null) => scalarArray(messages.map(f));
  const keys: number[] = [];
  const users: number[] = [];
  const flags: number[] = [];
  recipients.forEach((list, i) => {
    const key = byId ? ids![i]! : i + 1;
    for (const r of list) {
      keys.push(key);
      users.push(r.userId);
      flags.push(r.flags);
    }
  });
  return [
    scalars((m) => m.realmId),
    scalars((m) => m.senderId),
    col((m) => m.kind),
    scalars((m) => m.channelId),
    col((m) => m.topic),
    col((m) => (m.kind === 'direct' ? `{${m.directRecipients.join(',')}}` : null)),
    col((m) => m.content),
    col((m) => m.renderedContent),
    scalars((m) => m.dateSent),
    scalars((m) => m.hasLink),
    scalars((m) => m.hasAttachment),
    scalars((m) => m.hasImage),
    scalars((m) => m.recipientId),
    col((m) => m.client),
    scalars((m) => m.isMeMessage),
    scalarArray(keys),
    scalarArray(users),
    scalarArray(flags),
    ids && scalarArray(ids),
  ];
}

export class MessagesRepository {
  constructor(private db: IDatabase<unknown>) {}

  /**
   * Inserts messages and their recipients' user_messages rows in one statement (one round trip); `recipients[i]`
   * are the rows of `messages[i]`. Returns, in order, each message's ID and, for channel messages, its topic's
   * case-folded key (PostgreSQL's lower, as topics compare) and whether the topic had a message before this
   * statement. Column arrays bound as parameters (no client-side formatting of the texts). `ids[i]` is message i's
   * ID (drawn earlier: drawIds), or null for one the statement draws; those are drawn in the messages' order. (Named
   * prepared statements were measured and not kept: bench/README.md, lane sqlcost.)
   */
  insertWithRecipients(
    messages: NewMessage[],
    recipients: { userId: number; flags: number }[][],
    ids: readonly (number | null)[] | null = null,
  ): Promise<InsertedMessage[]> {
    if (messages.length === 0) return Promise.resolve([]);
    const values = insertValues(messages, recipients, ids);
    return this.db.map(new ParameterizedQuery({ text: INSERT_WITH_RECIPIENTS, values }), undefined, (r) => ({
      id: Number(r.id),
      topicKey: r.topic_key as string,
      topicExisted: r.topic_existed as boolean,
    }));
  }

  /**
   * insertWithRecipients of messages of one realm whose IDs are given (ascending), all or nothing: the rows are
   * inserted only if every channel message's topic already had a message before the statement (none of them starts
   * its topic) and every message of the realm before it has a lower ID than these (IDs reserved earlier are still
   * above the realm's newest: no insert that drew from the sequence since has committed in the realm). 'written', or
   * which condition failed: then nothing was written ('topic-start' when only the topics').
   */
  async insertIfTopicsExist(
    messages: NewMessage[],
    recipients: { userId: number; flags: number }[][],
    ids: readonly number[],
  ): Promise<'written' | 'topic-start' | 'ids-below'> {
    if (messages.length === 0) return 'written';
    const values = [...insertValues(messages, recipients, ids, true), messages[0]!.realmId];
    const row = await this.db.one(new ParameterizedQuery({ text: INSERT_IF_TOPICS_EXIST, values }));
    if (!row.ids_above) return 'ids-below';
    return row.topics ? 'written' : 'topic-start';
  }

  /**
   * `n` new message IDs drawn from the sequence, ascending (a realm actor's block of them: realm/message-ids.ts).
   */
  drawIds(n: number): Promise<number[]> {
    return this.db.map('SELECT nextval(\'messages_id_seq\') AS id FROM generate_series(1, $1) ORDER BY 1', [n], (r) => Number(r.id));
  }

  async byIds(ids: number[]): Promise<StoredMessage[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.any(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.id = ANY($1::bigint[]) ORDER BY m.id`, [ids]);
    return rows.map(toStoredMessage);
  }

  async byId(id: number): Promise<StoredMessage | null> {
    const row = await this.db.oneOrNone(`SELECT ${MESSAGE_COLUMNS} FROM messages m WHERE m.id = $1`, [id]);
    return row ? toStoredMessage(row) : null;
  }

  /** IDs of a topic's messages (case-insensitive), optionally only from `fromId` on, ascending. */
  topicMessageIds(channelId: number, topic: string, fromId: number | null): Promise<number[]> {
    return this.db.map(
      `SELECT id FROM messages WHERE stream_id = $1 AND lower(topic) = lower($2) AND ($3::bigint IS NULL OR id >= $3)
       ORDER BY id`,
      [channelId, topic, fromId],
      (r) => Number(r.id),
    );
  }

  /** A topic's participants: who sent a message to it or reacted to one of its messages. */
  topicParticipantIds(channelId: number, topic: string): Promise<number[]> {
    return this.db.map(
      `SELECT sender_id AS id FROM messages WHERE stream_id = $1 AND lower(topic) = lower($2)
       UNION SELECT r.user_id FROM reactions r JOIN messages m ON m.id = r.message_id
       WHERE m.stream_id = $1 AND lower(m.topic) = lower($2)`,
      [channelId, topic],
      (r) => r.id as number,
    );
  }

  /**
   * Per topic (case-insensitive): its newest message, or with `userId` its newest the user received (a private
   * history), or null. One statement; each topic is a backward step on messages_stream_topic (with `userId`, a walk
   * back to the newest received message, bounded by the pool's query timeout).
   */
  latestInTopics(topics: { channelId: number; topic: string; userId: number | null }[]): Promise<(number | null)[]> {
    if (topics.length === 0) return Promise.resolve([]);
    return this.db.map(
      `SELECT (SELECT m.id FROM messages m WHERE m.stream_id = t.s AND lower(m.topic) = lower(t.topic)
                 AND (t.u IS NULL OR EXISTS (SELECT 1 FROM user_messages um WHERE um.user_id = t.u AND um.message_id = m.id))
               ORDER BY m.id DESC LIMIT 1) AS id
       FROM unnest($1::int[], $2::text[], $3::int[]) WITH ORDINALITY AS t(s, topic, u, i) ORDER BY t.i`,
      [topics.map((t) => t.channelId), topics.map((t) => t.topic), topics.map((t) => t.userId)],
      (r) => (r.id == null ? null : Number(r.id)),
    );
  }

  /** Whether the topic has any message. */
  /**
   * For each topic (`topicKey`: its lower()), whether a message before `beforeId` is in it, waiting first for any
   * other transaction that asked about the same topic and has not ended: a topic started by a write batch still
   * committing (the realm actor's pipeline) is seen as started once that batch commits, and as not started if it
   * rolls back. The locks (per channel and topic, held until this transaction ends, taken in a fixed order) come in
   * their own statement, so the check's snapshot is taken after the wait.
   */
  async topicsStartedBefore(topics: { channelId: number; topicKey: string; beforeId: number }[]): Promise<boolean[]> {
    if (topics.length === 0) return [];
    const channels = topics.map((x) => x.channelId);
    const keys = topics.map((x) => x.topicKey);
    await this.db.any(
      `SELECT pg_advisory_xact_lock(c, hashtext(k)) FROM (SELECT DISTINCT c, k FROM unnest($1::int[], $2::text[]) AS u(c, k) ORDER BY c, k) s`,
      [channels, keys],
    );
    return this.db.map(
      `SELECT EXISTS (SELECT 1 FROM messages WHERE stream_id = u.c AND lower(topic) = u.k AND id < u.b) AS e
         FROM unnest($1::int[], $2::text[], $3::bigint[]) WITH ORDINALITY AS u(c, k, b, ord) ORDER BY u.ord`,
      [channels, keys, topics.map((x) => x.beforeId)],
      (r) => r.e as boolean,
    );
  }

  /** Applies an edit to one message. */
  update(c: MessageChange): Promise<null> {
    const sets: string[] = ['edit_history = $2::jsonb'];
    const values: unknown[] = [c.id, JSON.stringify(c.editHistory)];
    const add = (sql: string, v: unknown) => {
      values.push(v);
      sets.push(sql.replace('?', `$${values.length}`));
    };
    if (c.content) {
      add('content = ?', c.content.content);
      add('rendered_content = ?', c.content.renderedContent);
      add('has_link = ?', c.content.hasLink);
      add('has_attachment = ?', c.content.hasAttachment);
      add('has_image = ?', c.content.hasImage);
      add('is_me_message = ?', c.content.isMeMessage);
      add('last_edit_time = ?', c.editTime);
    }
    if (c.topic !== undefined) add('topic = ?', c.topic);
    if (c.channelId !== undefined) add('stream_id = ?', c.channelId);
    if (c.recipientId !== undefined) add('recipient_id = ?', c.recipientId);
    if (c.moved) add('last_moved_time = ?', c.editTime);
    return this.db.none(`UPDATE messages SET ${sets.join(', ')} WHERE id = $1`, values);
  }

  delete(ids: number[]): Promise<null> {
    return this.db.none('DELETE FROM messages WHERE id = ANY($1::bigint[])', [ids]);
  }

  /** The realm's newest message ID, or -1. */
  lastIdInRealm(realmId: number): Promise<number> {
    return this.db.one('SELECT max(id) AS id FROM messages WHERE realm_id = $1', [realmId], (r) => (r.id == null ? -1 : Number(r.id)));
  }

  /** The ID of the direct conversation among these participants (sorted, distinct), created when new. */
  directConversationId(realmId: number, memberIds: number[]): Promise<number> {
    return this.db.one(
      `INSERT INTO direct_conversations (realm_id, member_ids) VALUES ($1, $2::int[])
       ON CONFLICT (realm_id, member_ids) DO UPDATE SET member_ids = EXCLUDED.member_ids RETURNING id`,
      [realmId, memberIds],
      (r) => r.id as number,
    );
  }

  /** Whether a message was ever sent in this direct conversation. */
  directConversationExists(realmId: number, memberIds: number[]): Promise<boolean> {
    return this.db.one(
      'SELECT EXISTS (SELECT 1 FROM direct_conversations WHERE realm_id = $1 AND member_ids = $2::int[]) AS e',
      [realmId, memberIds],
      (r) => r.e as boolean,
    );
  }
}
