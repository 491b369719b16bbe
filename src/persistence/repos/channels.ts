// Channel rows, the realm's default channels, and the per-channel facts read from messages.
import type { IDatabase } from 'pg-promise';
import { as, helpers } from '../sql.js';
import type { Channel, ChannelGroupSettings, TopicsPolicy, NewChannel, ChannelChanges } from '../../model/channels.js';

interface ChannelRow {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  invite_only: boolean;
  is_web_public: boolean;
  history_public_to_subscribers: boolean;
  is_archived: boolean;
  message_retention_days: number | null;
  topics_policy: TopicsPolicy;
  folder_id: number | null;
  creator_id: number | null;
  date_created: Date;
  group_settings: ChannelGroupSettings;
  first_message_id?: string | null;
  last_message_at?: Date | null;
}

function toChannel(r: ChannelRow): Channel {
  return {
    id: r.id,
    realmId: r.realm_id,
    name: r.name,
    description: r.description,
    renderedDescription: r.rendered_description,
    inviteOnly: r.invite_only,
    isWebPublic: r.is_web_public,
    historyPublicToSubscribers: r.history_public_to_subscribers,
    isArchived: r.is_archived,
    messageRetentionDays: r.message_retention_days,
    topicsPolicy: r.topics_policy,
    folderId: r.folder_id,
    creatorId: r.creator_id,
    dateCreated: Math.floor(r.date_created.getTime() / 1000),
    groupSettings: r.group_settings,
    firstMessageId: r.first_message_id == null ? null : Number(r.first_message_id),
    lastMessageAt: r.last_message_at ? Math.floor(r.last_message_at.getTime() / 1000) : null,
  };
}

/** Columns PATCH may change, by their Channel field. */
const COLUMNS: Record<keyof ChannelChanges, string> = {
  name: 'name',
  description: 'description',
  renderedDescription: 'rendered_description',
  inviteOnly: 'invite_only',
  isWebPublic: 'is_web_public',
  historyPublicToSubscribers: 'history_public_to_subscribers',
  isArchived: 'is_archived',
  messageRetentionDays: 'message_retention_days',
  topicsPolicy: 'topics_policy',
  folderId: 'folder_id',
  groupSettings: 'group_settings',
};

export class ChannelsRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** The realm's channels, with their oldest message's ID and newest message's time (index lookups). */
  async forRealm(realmId: number): Promise<Channel[]> {
    const rows = await this.db.any<ChannelRow>(
      `SELECT c.*, f.first_message_id, l.last_message_at
       FROM channels c
       LEFT JOIN LATERAL (SELECT id AS first_message_id FROM messages WHERE stream_id = c.id ORDER BY id LIMIT 1) f ON true
       LEFT JOIN LATERAL (SELECT date_sent AS last_message_at FROM messages WHERE stream_id = c.id ORDER BY id DESC LIMIT 1) l ON true
       WHERE c.realm_id = $1 ORDER BY c.id`,
      [realmId],
    );
    return rows.map(toChannel);
  }

  async insert(c: NewChannel): Promise<Channel> {
    const row = await this.db.one<ChannelRow>(
      `INSERT INTO channels (realm_id, name, description, rendered_description, invite_only, is_web_public,
                             history_public_to_subscribers, is_archived, message_retention_days, topics_policy,
                             folder_id, creator_id, group_settings)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) RETURNING *`,
      [c.realmId, c.name, c.description, c.renderedDescription, c.inviteOnly, c.isWebPublic,
        c.historyPublicToSubscribers, c.isArchived, c.messageRetentionDays, c.topicsPolicy, c.folderId,
        c.creatorId, c.groupSettings],
    );
    return toChannel(row);
  }

  update(id: number, changes: ChannelChanges): Promise<null> {
    const data: Record<string, unknown> = {};
    for (const [field, column] of Object.entries(COLUMNS)) {
      if (field in changes) data[column] = (changes as Record<string, unknown>)[field];
    }
    if (Object.keys(data).length === 0) return Promise.resolve(null);
    const sql = helpers.update(data, Object.keys(data), 'channels') + as.format(' WHERE id = $1', [id]);
    return this.db.none(sql);
  }

  defaultIds(realmId: number): Promise<number[]> {
    return this.db.map('SELECT channel_id FROM default_channels WHERE realm_id = $1 ORDER BY channel_id', [realmId], (r) => r.channel_id);
  }

  addDefault(realmId: number, channelId: number): Promise<null> {
    return this.db.none('INSERT INTO default_channels (realm_id, channel_id) VALUES ($1, $2) ON CONFLICT DO NOTHING', [realmId, channelId]);
  }

  removeDefault(realmId: number, channelId: number): Promise<null> {
    return this.db.none('DELETE FROM default_channels WHERE realm_id = $1 AND channel_id = $2', [realmId, channelId]);
  }

  /** Messages sent to each channel in the last `days` days. */
  recentMessageCounts(channelIds: number[], days: number): Promise<Map<number, number>> {
    if (channelIds.length === 0) return Promise.resolve(new Map());
    return this.db
      .any<{ stream_id: number; n: number }>(
        `SELECT stream_id, count(*)::int AS n FROM messages
         WHERE stream_id = ANY($1::int[]) AND date_sent > now() - make_interval(days => $2) GROUP BY stream_id`,
        [channelIds, days],
      )
      .then((rows) => new Map(rows.map((r) => [r.stream_id, r.n])));
  }

  // Channel history: what the channels domain reads and deletes in the messages table.

  /** Topics newest first, one per case-insensitive name (the newest spelling); only messages the user
   *  received when `receivedBy` is set (private channels with protected history). */
  topics(channelId: number, receivedBy: number | null): Promise<{ name: string; maxId: number }[]> {
    return this.db.map(
      `SELECT (array_agg(m.topic ORDER BY m.id DESC))[1] AS name, max(m.id) AS max_id
       FROM messages m
       WHERE m.stream_id = $1
         AND ($2::int IS NULL OR EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = $2))
       GROUP BY lower(m.topic) ORDER BY max(m.id) DESC`,
      [channelId, receivedBy],
      (r) => ({ name: r.name as string, maxId: Number(r.max_id) }),
    );
  }

  hasMessagesOutsideEmptyTopic(channelId: number): Promise<boolean> {
    return this.db.one("SELECT EXISTS (SELECT 1 FROM messages WHERE stream_id = $1 AND topic <> '') AS x", [channelId], (r) => r.x);
  }

  /** IDs of up to `limit` messages of a topic, newest first. */
  topicMessageIds(channelId: number, topic: string, limit: number, receivedBy: number | null): Promise<number[]> {
    return this.db.map(
      `SELECT m.id FROM messages m
       WHERE m.stream_id = $1 AND lower(m.topic) = lower($2)
         AND ($4::int IS NULL OR EXISTS (SELECT 1 FROM user_messages um WHERE um.message_id = m.id AND um.user_id = $4))
       ORDER BY m.id DESC LIMIT $3`,
      [channelId, topic, limit, receivedBy],
      (r) => Number(r.id),
    );
  }

  /** IDs of up to `limit` channel messages sent more than `days` days ago, oldest first. */
  expiredMessageIds(channelId: number, days: number, limit: number): Promise<number[]> {
    return this.db.map(
      `SELECT id FROM messages WHERE stream_id = $1 AND date_sent < now() - make_interval(days => $2)
       ORDER BY id LIMIT $3`,
      [channelId, days, limit],
      (r) => Number(r.id),
    );
  }

  /** The same for the realm's direct messages. */
  expiredDirectMessageIds(realmId: number, days: number, limit: number): Promise<number[]> {
    return this.db.map(
      `SELECT id FROM messages WHERE realm_id = $1 AND recipient_kind = 'direct'
         AND date_sent < now() - make_interval(days => $2)
       ORDER BY id LIMIT $3`,
      [realmId, days, limit],
      (r) => Number(r.id),
    );
  }

  /** Deletes messages (their user_messages rows go with them). */
  deleteMessages(messageIds: number[]): Promise<null> {
    if (messageIds.length === 0) return Promise.resolve(null);
    return this.db.none('DELETE FROM messages WHERE id = ANY($1::bigint[])', [messageIds]);
  }

  firstMessageId(channelId: number): Promise<number | null> {
    return this.db.one('SELECT min(id) AS id FROM messages WHERE stream_id = $1', [channelId], (r) => (r.id == null ? null : Number(r.id)));
  }

  /** Realms where some messages expire: a channel or the realm itself has a positive retention period. */
  realmsWithRetention(): Promise<number[]> {
    return this.db.map(
      `SELECT realm_id AS id FROM channels WHERE message_retention_days > 0
       UNION
       SELECT id FROM realms WHERE jsonb_typeof(settings->'message_retention_days') = 'number'
         AND (settings->>'message_retention_days')::numeric > 0
       ORDER BY id`,
      [],
      (r) => r.id as number,
    );
  }
}
