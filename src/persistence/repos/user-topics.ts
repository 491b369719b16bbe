// Per-user topic visibility policies (muted, unmuted, followed).
import type { IDatabase } from 'pg-promise';
import type { UserTopic } from '../../model/channels.js';

interface UserTopicRow {
  user_id: number;
  channel_id: number;
  topic: string;
  visibility_policy: number;
  last_updated: Date;
}

function toUserTopic(r: UserTopicRow): UserTopic {
  return {
    userId: r.user_id,
    channelId: r.channel_id,
    topic: r.topic,
    visibilityPolicy: r.visibility_policy,
    lastUpdated: Math.floor(r.last_updated.getTime() / 1000),
  };
}

export class UserTopicsRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forUser(userId: number): Promise<UserTopic[]> {
    const rows = await this.db.any<UserTopicRow>('SELECT * FROM user_topics WHERE user_id = $1 ORDER BY last_updated, channel_id', [userId]);
    return rows.map(toUserTopic);
  }

  /** The policy of a topic (case-insensitive); 0 when none is set. */
  async policy(userId: number, channelId: number, topic: string): Promise<number> {
    return (await this.policies([{ userId, channelId, topic }]))[0]!;
  }

  /** The policies of several topics (case-insensitive), in the order asked; 0 where none is set. One statement. */
  policies(topics: { userId: number; channelId: number; topic: string }[]): Promise<number[]> {
    if (topics.length === 0) return Promise.resolve([]);
    return this.db.map(
      `SELECT COALESCE(ut.visibility_policy, 0) AS p
         FROM unnest($1::int[], $2::int[], $3::text[]) WITH ORDINALITY AS u(user_id, channel_id, topic, ord)
         LEFT JOIN user_topics ut ON ut.user_id = u.user_id AND ut.channel_id = u.channel_id AND lower(ut.topic) = lower(u.topic)
        ORDER BY u.ord`,
      [topics.map((x) => x.userId), topics.map((x) => x.channelId), topics.map((x) => x.topic)],
      (r) => r.p as number,
    );
  }

  /** Sets non-zero policies in one statement; each user's topic (case-insensitive) at most once (a statement cannot change a row twice). */
  setMany(rows: { userId: number; channelId: number; topic: string; policy: number; at: Date }[]): Promise<null> {
    if (rows.length === 0) return Promise.resolve(null);
    return this.db.none(
      `INSERT INTO user_topics (user_id, channel_id, topic, visibility_policy, last_updated)
       SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::int[], $5::timestamptz[])
       ON CONFLICT (user_id, channel_id, lower(topic))
       DO UPDATE SET topic = EXCLUDED.topic, visibility_policy = EXCLUDED.visibility_policy, last_updated = EXCLUDED.last_updated`,
      [rows.map((r) => r.userId), rows.map((r) => r.channelId), rows.map((r) => r.topic), rows.map((r) => r.policy), rows.map((r) => r.at)],
    );
  }

  /** Sets a policy (0 removes it); returns the stored record, or null after a removal. */
  async set(userId: number, channelId: number, topic: string, policy: number, at: Date): Promise<UserTopic | null> {
    if (policy === 0) {
      await this.db.none('DELETE FROM user_topics WHERE user_id = $1 AND channel_id = $2 AND lower(topic) = lower($3)', [userId, channelId, topic]);
      return null;
    }
    const row = await this.db.one<UserTopicRow>(
      `INSERT INTO user_topics (user_id, channel_id, topic, visibility_policy, last_updated) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (user_id, channel_id, lower(topic))
       DO UPDATE SET topic = EXCLUDED.topic, visibility_policy = EXCLUDED.visibility_policy, last_updated = EXCLUDED.last_updated
       RETURNING *`,
      [userId, channelId, topic, policy, at],
    );
    return toUserTopic(row);
  }
}
