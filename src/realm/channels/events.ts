// Builders for the channels domain's events (stream, subscription, default_streams), with their audiences.
import type { BusEvent, ChannelUpdateEvent, RealmEvent } from '../../bus/events.js';
import type { RealmState } from '../state.js';
import { ROLE } from '../../model/realm.js';
import { metadataAudience } from '../access/channels.js';
import { formatChannel, formatSubscription, NO_TRAFFIC, withInheritedNotifications, type TrafficLookup } from './format.js';
import type { Channel } from '../../model/channels.js';

function nonEmpty(events: RealmEvent[]): RealmEvent[] {
  return events.filter((e) => e.users.length > 0);
}

/** stream create: the channels' records, to the given users (by default, everyone who may see them). */
export function streamCreate(state: RealmState, channels: Channel[], users: number[], traffic: TrafficLookup = NO_TRAFFIC): RealmEvent[] {
  if (channels.length === 0) return [];
  return nonEmpty([{ event: { kind: 'channels_created', channels: channels.map((c) => formatChannel(state, c, traffic)) }, users }]);
}

/** stream delete: the users no longer see the channels. */
export function streamDelete(channelIds: number[], users: number[]): RealmEvent[] {
  if (channelIds.length === 0) return [];
  return nonEmpty([{ event: { kind: 'channels_deleted', channelIds }, users }]);
}

/** stream update of one property, to everyone who may see the channel (after the change). */
export function streamUpdate(
  state: RealmState,
  ch: Channel,
  property: string,
  value: unknown,
  extra: Record<string, unknown> = {},
  users: number[] = metadataAudience(state, ch),
): RealmEvent {
  const event: ChannelUpdateEvent = { kind: 'channel_update', channelId: ch.id, name: ch.name, property, value };
  if (Object.keys(extra).length > 0) event.extra = extra;
  return { event, users };
}

/**
 * Archiving and unarchiving: clients with the archived_channels capability get the is_archived update;
 * others lose the channel (delete) or get it back (create, and for its subscribers their subscription).
 */
export function archiveEvents(state: RealmState, ch: Channel, archived: boolean): RealmEvent[] {
  const users = metadataAudience(state, ch);
  const update = streamUpdate(state, ch, 'is_archived', archived, {}, users);
  if (archived) return nonEmpty([{ ...update, legacy: { archived_channels: streamDelete([ch.id], users).map((e) => e.event) } }]);
  const create: BusEvent = { kind: 'channels_created', channels: [formatChannel(state, ch, NO_TRAFFIC)] };
  const events: RealmEvent[] = [];
  const others: number[] = [];
  for (const id of users) {
    const sub = state.channels.subscription(id, ch.id);
    if (!sub?.active) {
      others.push(id);
      continue;
    }
    // Clients old enough to lack archived_channels lack notification_settings_null too.
    const record = withInheritedNotifications(formatSubscription(state, ch, sub, NO_TRAFFIC, { subscribers: true }), state.usersById.get(id)!);
    const add: BusEvent = { kind: 'subscription', op: 'add', subscriptions: [record] };
    events.push({ ...update, users: [id], legacy: { archived_channels: [create, add] } });
  }
  events.unshift({ ...update, users: others, legacy: { archived_channels: [create] } });
  return nonEmpty(events);
}

/** subscription add; clients without notification_settings_null get the inherited values instead of nulls. */
export function subscriptionAdd(state: RealmState, userId: number, records: Record<string, unknown>[]): RealmEvent[] {
  const user = state.usersById.get(userId);
  if (records.length === 0 || !user) return [];
  const inherited: BusEvent = { kind: 'subscription', op: 'add', subscriptions: records.map((r) => withInheritedNotifications(r, user)) };
  return [{ event: { kind: 'subscription', op: 'add', subscriptions: records }, users: [userId], legacy: { notification_settings_null: [inherited] } }];
}

export function subscriptionRemove(userId: number, channels: Channel[]): RealmEvent[] {
  if (channels.length === 0) return [];
  return [{ event: { kind: 'subscription', op: 'remove', channels: channels.map(({ id, name }) => ({ id, name })) }, users: [userId] }];
}

export function subscriptionUpdate(userId: number, channelId: number, property: string, value: unknown): RealmEvent {
  return { event: { kind: 'subscription', op: 'update', channelId, property, value }, users: [userId] };
}

/** peer_add / peer_remove: to those who may see the channel's subscribers, except the users concerned. */
export function peerEvent(state: RealmState, op: 'peer_add' | 'peer_remove', ch: Channel, userIds: number[]): RealmEvent[] {
  if (userIds.length === 0) return [];
  const concerned = new Set(userIds);
  const users = metadataAudience(state, ch).filter((id) => !concerned.has(id));
  return nonEmpty([{ event: { kind: 'subscription', op, channelIds: [ch.id], userIds }, users }]);
}

/** default_streams: the full list, to every active user but guests. */
export function defaultStreamsEvent(state: RealmState): RealmEvent[] {
  const users = [...state.usersById.values()].filter((u) => u.isActive && u.role !== ROLE.GUEST).map((u) => u.id);
  const ids = [...state.channels.defaultChannelIds].sort((a, b) => a - b);
  return nonEmpty([{ event: { kind: 'default_channels', channelIds: ids }, users }]);
}
