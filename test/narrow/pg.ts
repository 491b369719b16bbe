// A real PostgreSQL for narrow tests (a throwaway database, see helpers/database.ts) with temporary fixture tables.
import {
  FLAG_BITS,
  compileSql,
  searchVectorSql,
  type NarrowColumns,
  type NarrowMessage,
  type NarrowViewer,
  type ResolvedTerm,
} from '../../src/narrow/index.js';
import { CHANNELS } from './fixtures.js';
import { createTestDatabase } from '../helpers/database.js';

/** Per-process table names, as test files run in parallel. */
const T = {
  streams: `narrow_test_streams_${process.pid}`,
  messages: `narrow_test_messages_${process.pid}`,
  userMessages: `narrow_test_user_messages_${process.pid}`,
  reactions: `narrow_test_reactions_${process.pid}`,
};
export const MESSAGES_TABLE = T.messages;

export interface TestDb {
  label: string;
  query(sql: string, params?: unknown[]): Promise<Record<string, unknown>[]>;
  close(): Promise<void>;
}

/** One connection to a throwaway database, so the temporary tables stay visible. */
export async function openDb(): Promise<TestDb> {
  const scratch = await createTestDatabase();
  const pgp = (await import('pg-promise')).default();
  const pool = pgp(scratch.url);
  // Dropping the database at close terminates backends whose clients may not have closed yet: no error here.
  pool.$pool.on('error', () => undefined);
  const conn = await pool.connect();
  // One query at a time on the one connection; tests in a file run concurrently.
  let queue: Promise<unknown> = Promise.resolve();
  return {
    label: process.env.DATABASE_URL ? 'DATABASE_URL' : 'embedded PostgreSQL',
    // ParameterizedQuery sends the values as protocol parameters, as the server would.
    query: (text, values = []) => {
      const run = queue.then(() => conn.any(new pgp.ParameterizedQuery({ text, values })));
      queue = run.catch(() => undefined);
      return run;
    },
    close: async () => {
      conn.client.on('error', () => undefined);
      conn.done(true);
      await pool.$pool.end();
      await scratch.drop();
    },
  };
}

export const COLUMNS: NarrowColumns = {
  id: 'm.id',
  senderId: 'm.sender_id',
  kind: 'm.recipient_kind',
  channelId: 'm.stream_id',
  topic: 'm.topic',
  directRecipients: 'm.direct_recipients',
  flags: 'um.flags',
  hasLink: 'm.has_link',
  hasAttachment: 'm.has_attachment',
  hasImage: 'm.has_image',
  hasReaction: `EXISTS (SELECT 1 FROM ${T.reactions} r WHERE r.message_id = m.id)`,
  // NULL for direct messages: the compiler must treat NULL as false.
  channelIsPublic: `(SELECT s.is_public FROM ${T.streams} s WHERE s.id = m.stream_id)`,
  topicFollowed: 'm.topic_followed',
  topicMuted: 'm.topic_muted',
  searchVector: 'm.search_tsv',
  content: 'm.content',
};

const SCHEMA = [
  `CREATE TEMP TABLE ${T.streams} (id integer PRIMARY KEY, is_public boolean NOT NULL)`,
  `CREATE TEMP TABLE ${T.messages} (
     id integer PRIMARY KEY,
     sender_id integer NOT NULL,
     recipient_kind text NOT NULL,
     stream_id integer,
     topic text NOT NULL,
     direct_recipients integer[] NOT NULL,
     content text NOT NULL,
     rendered_content text NOT NULL,
     has_link boolean NOT NULL,
     has_attachment boolean NOT NULL,
     has_image boolean NOT NULL,
     topic_followed boolean NOT NULL,
     topic_muted boolean NOT NULL,
     search_tsv tsvector GENERATED ALWAYS AS (${searchVectorSql('topic', 'rendered_content')}) STORED
   )`,
  `CREATE TEMP TABLE ${T.userMessages} (
     user_id integer NOT NULL, message_id integer NOT NULL, flags integer NOT NULL, PRIMARY KEY (user_id, message_id))`,
  `CREATE TEMP TABLE ${T.reactions} (message_id integer NOT NULL, emoji text NOT NULL)`,
];

export async function createSchema(db: TestDb): Promise<void> {
  await dropSchema(db);
  for (const sql of SCHEMA) await db.query(sql);
  for (const c of CHANNELS) await db.query(`INSERT INTO ${T.streams} VALUES ($1, $2)`, [c.id, c.isPublic]);
}

export async function dropSchema(db: TestDb): Promise<void> {
  for (const table of Object.values(T)) await db.query(`DROP TABLE IF EXISTS ${table}`);
}

function flagBits(flags: ReadonlySet<string>): number {
  let bits = 0;
  for (const [name, bit] of Object.entries(FLAG_BITS)) if (flags.has(name)) bits |= bit;
  return bits;
}

/** Replaces the fixture messages (with the viewer's flags and the reactions) by these. */
export async function loadMessages(db: TestDb, messages: readonly NarrowMessage[], viewer: NarrowViewer): Promise<void> {
  await db.query(`DELETE FROM ${T.reactions}`);
  await db.query(`DELETE FROM ${T.userMessages}`);
  await db.query(`DELETE FROM ${T.messages}`);
  const rows = messages.map((m) => ({
    id: m.id,
    sender_id: m.senderId,
    recipient_kind: m.kind,
    stream_id: m.channelId,
    topic: m.topic,
    direct_recipients: m.directRecipients,
    content: m.content,
    rendered_content: m.renderedContent,
    has_link: m.hasLink,
    has_attachment: m.hasAttachment,
    has_image: m.hasImage,
    topic_followed: m.topicIsFollowed,
    topic_muted: m.topicIsMuted,
  }));
  await db.query(
    `INSERT INTO ${T.messages} (id, sender_id, recipient_kind, stream_id, topic, direct_recipients, content,
       rendered_content, has_link, has_attachment, has_image, topic_followed, topic_muted)
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id integer, sender_id integer, recipient_kind text,
       stream_id integer, topic text, direct_recipients integer[], content text, rendered_content text,
       has_link boolean, has_attachment boolean, has_image boolean, topic_followed boolean, topic_muted boolean)`,
    [JSON.stringify(rows)],
  );
  const flags = messages.map((m) => ({ user_id: viewer.id, message_id: m.id, flags: flagBits(m.flags) }));
  await db.query(
    `INSERT INTO ${T.userMessages}
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(user_id integer, message_id integer, flags integer)`,
    [JSON.stringify(flags)],
  );
  const reactions = messages.filter((m) => m.hasReaction).map((m) => ({ message_id: m.id, emoji: 'tada' }));
  await db.query(
    `INSERT INTO ${T.reactions} SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(message_id integer, emoji text)`,
    [JSON.stringify(reactions)],
  );
}

/** The IDs the compiled WHERE fragment selects, ascending. The viewer is $1, so the fragment starts at $2. */
export async function sqlMatches(db: TestDb, resolved: readonly ResolvedTerm[], viewer: NarrowViewer): Promise<number[]> {
  const { where, params } = compileSql(resolved, viewer, COLUMNS, 1);
  const rows = await db.query(
    `SELECT m.id FROM ${T.messages} m
     JOIN ${T.userMessages} um ON um.message_id = m.id AND um.user_id = $1
     WHERE ${where} ORDER BY m.id`,
    [viewer.id, ...params],
  );
  return rows.map((r) => Number(r.id));
}
