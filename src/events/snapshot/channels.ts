// Register snapshot sections of the channels domain: subscriptions (with unsubscribed and never_subscribed),
// streams, realm_default_streams, channel_folders and user_topics.
import { ROLE } from '../../model/realm.js';
import { topicForClient } from '../../realm/topics.js';
import { hasMetadataAccess } from '../../realm/access/channels.js';
import { activeSubscriberIds, formatChannel, formatFolder, formatSubscription, withInheritedNotifications, type TrafficLookup } from '../../realm/channels/format.js';
import { trafficFor } from '../../realm/channels/traffic.js';
import type { Channel } from '../../model/channels.js';
import type { Db } from '../../persistence/db.js';
import type { Section, SnapshotContext, SnapshotRequest } from './types.js';

const byName = (a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

/** Channels the viewer may see; archived ones only for clients with the archived_channels capability. */
function visibleChannels({ state, user, registration }: SnapshotRequest): Channel[] {
  const archived = registration.capabilities.archived_channels;
  return [...state.channels.byId.values()]
    .filter((ch) => (archived || !ch.isArchived) && (user ? hasMetadataAccess(state, user, ch) : ch.isWebPublic))
    .sort(byName);
}

/** The channels and their traffic, once per snapshot: the subscription and stream sections show the same ones. */
const withTraffic = new WeakMap<SnapshotRequest, Promise<{ channels: Channel[]; traffic: TrafficLookup }>>();

function visibleWithTraffic(ctx: SnapshotContext<'db'>): Promise<{ channels: Channel[]; traffic: TrafficLookup }> {
  let found = withTraffic.get(ctx);
  if (!found) {
    const channels = visibleChannels(ctx);
    found = trafficFor(ctx.db, channels).then((traffic) => ({ channels, traffic }));
    withTraffic.set(ctx, found);
  }
  return found;
}

/** The viewer's topic settings, asked of the database once per snapshot (user_topic and muted_topics show them). */
const topicsByContext = new WeakMap<SnapshotRequest, ReturnType<Db['userTopics']['forUser']>>();

export function snapshotUserTopics(ctx: SnapshotContext<'db'>, userId: number): ReturnType<Db['userTopics']['forUser']> {
  let known = topicsByContext.get(ctx);
  if (!known) topicsByContext.set(ctx, (known = ctx.db.userTopics.forUser(userId)));
  return known;
}

export const channelSections: Record<string, Section<'db'>> = {
  subscription: async (ctx) => {
    const { state, user, registration } = ctx;
    const { channels, traffic } = await visibleWithTraffic(ctx);
    const withSubscribers = user !== null && registration.includeSubscribers !== 'false';
    const nullsAllowed = registration.capabilities.notification_settings_null;
    const subscriptions: Record<string, unknown>[] = [];
    const unsubscribed: Record<string, unknown>[] = [];
    const neverSubscribed: Record<string, unknown>[] = [];
    for (const ch of channels) {
      const sub = user ? state.channels.subscription(user.id, ch.id) : undefined;
      if (sub) {
        const record = formatSubscription(state, ch, sub, traffic, { subscribers: withSubscribers });
        (sub.active ? subscriptions : unsubscribed).push(nullsAllowed ? record : withInheritedNotifications(record, user!));
      }
      else {
        const record = formatChannel(state, ch, traffic);
        if (withSubscribers) record.subscribers = activeSubscriberIds(state, ch.id);
        neverSubscribed.push(record);
      }
    }
    return { subscriptions, unsubscribed, never_subscribed: neverSubscribed };
  },

  stream: async (ctx) => {
    const { channels, traffic } = await visibleWithTraffic(ctx);
    return { streams: channels.map((ch) => formatChannel(ctx.state, ch, traffic)) };
  },

  // Guests and spectators are not told the default channels (default_streams events skip guests too).
  default_streams: ({ state, user }) => ({
    realm_default_streams: user && user.role !== ROLE.GUEST ? [...state.channels.defaultChannelIds].sort((a, b) => a - b) : [],
  }),

  channel_folder: ({ state, user }) => {
    const webPublic = new Set([...state.channels.byId.values()].filter((c) => c.isWebPublic && !c.isArchived).map((c) => c.folderId));
    const folders = state.channels.orderedFolders().filter((f) => user !== null || webPublic.has(f.id));
    return { channel_folders: folders.map(formatFolder) };
  },

  user_topic: async (ctx) => {
    const { state, user, registration } = ctx;
    if (!user) return { user_topics: [] };
    const allowEmpty = registration.capabilities.empty_topic_name;
    const topics = await snapshotUserTopics(ctx, user.id);
    return {
      user_topics: topics
        .filter((t) => state.channels.byId.has(t.channelId))
        .map((t) => ({
          stream_id: t.channelId,
          topic_name: topicForClient(state, t.topic, allowEmpty),
          last_updated: t.lastUpdated,
          visibility_policy: t.visibilityPolicy,
        })),
    };
  },
};
