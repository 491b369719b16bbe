// Subscription rows: who is subscribed to which channel, with their personal settings for it.
import type { IDatabase } from 'pg-promise';
import type { Subscription, SubscriptionColumn } from '../../model/channels.js';

interface SubscriptionRow {
  user_id: number;
  channel_id: number;
  active: boolean;
  color: string;
  is_muted: boolean;
  pin_to_top: boolean;
  desktop_notifications: boolean | null;
  audible_notifications: boolean | null;
  push_notifications: boolean | null;
  email_notifications: boolean | null;
  wildcard_mentions_notify: boolean | null;
}

function toSubscription(r: SubscriptionRow): Subscription {
  return {
    userId: r.user_id,
    channelId: r.channel_id,
    active: r.active,
    color: r.color,
    isMuted: r.is_muted,
    pinToTop: r.pin_to_top,
    notifications: {
      desktop_notifications: r.desktop_notifications,
      audible_notifications: r.audible_notifications,
      push_notifications: r.push_notifications,
      email_notifications: r.email_notifications,
      wildcard_mentions_notify: r.wildcard_mentions_notify,
    },
  };
}

export class SubscriptionsRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forRealm(realmId: number): Promise<Subscription[]> {
    const rows = await this.db.any<SubscriptionRow>('SELECT * FROM subscriptions WHERE realm_id = $1', [realmId]);
    return rows.map(toSubscription);
  }

  async forUser(userId: number): Promise<Subscription[]> {
    const rows = await this.db.any<SubscriptionRow>('SELECT * FROM subscriptions WHERE user_id = $1', [userId]);
    return rows.map(toSubscription);
  }

  /** Subscribes (or re-subscribes, keeping the old settings) each user to each channel; returns the rows. */
  async activate(realmId: number, pairs: { userId: number; channelId: number; color: string }[]): Promise<Subscription[]> {
    if (pairs.length === 0) return [];
    const rows = await this.db.any<SubscriptionRow>(
      `INSERT INTO subscriptions (user_id, channel_id, realm_id, color)
       SELECT * FROM unnest($1::int[], $2::int[], array_fill($3::int, ARRAY[$5::int]), $4::text[])
       ON CONFLICT (user_id, channel_id) DO UPDATE SET active = true, date_subscribed = now()
       RETURNING *`,
      [pairs.map((p) => p.userId), pairs.map((p) => p.channelId), realmId, pairs.map((p) => p.color), pairs.length],
    );
    return rows.map(toSubscription);
  }

  deactivate(pairs: { userId: number; channelId: number }[]): Promise<null> {
    if (pairs.length === 0) return Promise.resolve(null);
    return this.db.none(
      `UPDATE subscriptions s SET active = false FROM unnest($1::int[], $2::int[]) AS p(user_id, channel_id)
       WHERE s.user_id = p.user_id AND s.channel_id = p.channel_id`,
      [pairs.map((p) => p.userId), pairs.map((p) => p.channelId)],
    );
  }

  setProperty(userId: number, channelId: number, column: SubscriptionColumn, value: unknown): Promise<null> {
    return this.db.none('UPDATE subscriptions SET $3:name = $4 WHERE user_id = $1 AND channel_id = $2', [userId, channelId, column, value]);
  }
}
