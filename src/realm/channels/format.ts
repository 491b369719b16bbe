// Channel, subscription and channel folder records as the API returns them.
import { userSetting } from '../people/user-settings.js';
import type { RealmState } from '../state.js';
import { SYSTEM_GROUP } from '../system-groups.js';
import type { User } from '../../model/realm.js';
import {
  CHANNEL_GROUP_SETTING_NAMES,
  type Channel,
  type ChannelFolder,
  type Subscription,
  type SubscriptionNotificationProperty,
} from '../../model/channels.js';

/** A channel counts as recently active while it is this young, or had a message this recently. */
export const RECENTLY_ACTIVE_DAYS = 180;
/** stream_weekly_traffic: null for channels younger than a week; estimated from the last four weeks. */
export const TRAFFIC_MIN_AGE_DAYS = 7;
export const TRAFFIC_WINDOW_DAYS = 28;
const DAY = 86_400;

/** The deprecated stream_post_policy, derived from can_send_message_group: 1 any, 2 admins, 3 full members, 4 moderators. */
export function streamPostPolicy(state: RealmState, ch: Channel): number {
  const value = ch.groupSettings.can_send_message_group;
  if (typeof value !== 'number') return 1;
  const g = state.groupsById.get(value);
  if (!g?.isSystemGroup) return 1;
  switch (g.name) {
    case SYSTEM_GROUP.ADMINISTRATORS:
      return 2;
    case SYSTEM_GROUP.FULL_MEMBERS:
      return 3;
    case SYSTEM_GROUP.MODERATORS:
      return 4;
    default:
      return 1;
  }
}

/** Non-deactivated subscribers, bots included. */
export function subscriberCount(state: RealmState, ch: Channel): number {
  return activeSubscriberIds(state, ch.id).length;
}

/** Active subscribers' IDs, ascending. */
export function activeSubscriberIds(state: RealmState, channelId: number): number[] {
  return state.channels.subscriberIds(channelId).filter((id) => state.usersById.get(id)?.isActive);
}

export function isRecentlyActive(ch: Channel, now = Date.now() / 1000): boolean {
  const since = now - RECENTLY_ACTIVE_DAYS * DAY;
  return ch.dateCreated >= since || (ch.lastMessageAt !== null && ch.lastMessageAt >= since);
}

/** Whether the channel is old enough for stream_weekly_traffic to be estimated. */
export function trafficEstimable(ch: Channel, now = Date.now() / 1000): boolean {
  return now - ch.dateCreated >= TRAFFIC_MIN_AGE_DAYS * DAY;
}

/** Zulip's estimate: a quarter of the last four weeks' messages (scaled for younger channels), two significant digits. */
export function weeklyTraffic(ch: Channel, recentMessages: number, now = Date.now() / 1000): number | null {
  if (!trafficEstimable(ch, now)) return null;
  const ageDays = Math.floor((now - ch.dateCreated) / DAY);
  let avg = ageDays >= TRAFFIC_WINDOW_DAYS ? Math.floor(recentMessages / 4) : Math.floor((recentMessages * 7) / ageDays);
  if (avg === 0 && recentMessages > 0) avg = 1;
  const digits = String(avg).length;
  return digits <= 2 ? avg : Math.round(avg / 10 ** (digits - 2)) * 10 ** (digits - 2);
}

/** Weekly traffic of channels by ID, for formatting: null (too new) or the estimate. */
export type TrafficLookup = (ch: Channel) => number | null;
export const NO_TRAFFIC: TrafficLookup = () => null;

export function formatChannel(state: RealmState, ch: Channel, traffic: TrafficLookup): Record<string, unknown> {
  const policy = streamPostPolicy(state, ch);
  const out: Record<string, unknown> = {
    stream_id: ch.id,
    name: ch.name,
    is_archived: ch.isArchived,
    description: ch.description,
    date_created: ch.dateCreated,
    creator_id: ch.creatorId,
    invite_only: ch.inviteOnly,
    rendered_description: ch.renderedDescription,
    is_web_public: ch.isWebPublic,
    stream_post_policy: policy,
    message_retention_days: ch.messageRetentionDays,
    history_public_to_subscribers: ch.historyPublicToSubscribers,
    topics_policy: ch.topicsPolicy,
    first_message_id: ch.firstMessageId,
    folder_id: ch.folderId,
    is_recently_active: isRecentlyActive(ch),
    is_announcement_only: policy === 2,
  };
  for (const name of CHANNEL_GROUP_SETTING_NAMES) out[name] = ch.groupSettings[name];
  out.subscriber_count = subscriberCount(state, ch);
  out.stream_weekly_traffic = traffic(ch);
  return out;
}

/** A subscription record: the channel's fields plus the subscriber's own; `subscribers` when asked for. */
export function formatSubscription(
  state: RealmState,
  ch: Channel,
  sub: Subscription,
  traffic: TrafficLookup,
  opts: { subscribers?: boolean } = {},
): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...formatChannel(state, ch, traffic),
    ...sub.notifications,
    pin_to_top: sub.pinToTop,
    is_muted: sub.isMuted,
    in_home_view: !sub.isMuted,
    color: sub.color,
  };
  if (opts.subscribers) out.subscribers = activeSubscriberIds(state, ch.id);
  return out;
}

/** The personal setting a null notification setting of a subscription inherits. */
const INHERITED_FROM: Record<SubscriptionNotificationProperty, string> = {
  desktop_notifications: 'enable_stream_desktop_notifications',
  audible_notifications: 'enable_stream_audible_notifications',
  push_notifications: 'enable_stream_push_notifications',
  email_notifications: 'enable_stream_email_notifications',
  wildcard_mentions_notify: 'wildcard_mentions_notify',
};

/** For clients without the notification_settings_null capability: nulls replaced by what they inherit. */
export function withInheritedNotifications(record: Record<string, unknown>, user: User): Record<string, unknown> {
  const out = { ...record };
  for (const [property, setting] of Object.entries(INHERITED_FROM)) {
    if (out[property] === null) out[property] = userSetting(user, setting);
  }
  return out;
}

export function formatFolder(f: ChannelFolder): Record<string, unknown> {
  return {
    id: f.id,
    name: f.name,
    description: f.description,
    rendered_description: f.renderedDescription,
    order: f.order,
    date_created: f.dateCreated,
    creator_id: f.creatorId,
    is_archived: f.isArchived,
  };
}
