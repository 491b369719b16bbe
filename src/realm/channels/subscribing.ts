// Adding and removing subscriptions, shared by channel creation, POST/DELETE subscriptions and default
// channels: planning (colors, who gains or loses access), applying to memory, and the resulting events.
import type { RealmEvent } from '../../bus/events.js';
import type { Tx } from '../../persistence/db.js';
import type { RealmState } from '../state.js';
import { hasMetadataAccess } from '../access/channels.js';
import { peerEvent, streamCreate, streamDelete, subscriptionAdd, subscriptionRemove } from './events.js';
import { formatSubscription, NO_TRAFFIC, type TrafficLookup } from './format.js';
import { SUBSCRIPTION_COLORS, type Channel, type Subscription } from '../../model/channels.js';

export interface NewSubscription {
  userId: number;
  channelId: number;
  color: string;
  /** Whether the user could already see the channel (a stream create is sent to those who could not). */
  hadAccess: boolean;
}

/** The first palette color the user does not use yet; once all are used, one by channel ID. */
export function pickColor(used: Set<string>, channelId: number): string {
  return SUBSCRIPTION_COLORS.find((c) => !used.has(c)) ?? SUBSCRIPTION_COLORS[channelId % SUBSCRIPTION_COLORS.length]!;
}

/** Plans subscribing each user to each channel; pairs already subscribed are skipped. Existing channels only
 *  have `hadAccess` computed; for channels created in the same command pass `created`. */
export function planSubscriptions(
  state: RealmState,
  pairs: { userId: number; channelId: number }[],
  created: Set<number> = new Set(),
): NewSubscription[] {
  const usedByUser = new Map<number, Set<string>>();
  const seen = new Set<string>();
  const out: NewSubscription[] = [];
  for (const { userId, channelId } of pairs) {
    const key = `${userId}:${channelId}`;
    if (seen.has(key) || state.channels.isSubscribed(userId, channelId)) continue;
    seen.add(key);
    let used = usedByUser.get(userId);
    if (!used) usedByUser.set(userId, (used = state.channels.usedColors(userId)));
    const previous = state.channels.subscription(userId, channelId);
    const color = previous?.color ?? pickColor(used, channelId);
    used.add(color);
    const ch = state.channels.byId.get(channelId);
    const user = state.usersById.get(userId);
    const hadAccess = created.has(channelId) || (ch !== undefined && user !== undefined && hasMetadataAccess(state, user, ch));
    out.push({ userId, channelId, color, hadAccess });
  }
  return out;
}

export function writeSubscriptions(t: Tx, realmId: number, plan: NewSubscription[]): Promise<Subscription[]> {
  return t.subscriptions.activate(realmId, plan);
}

export function applySubscriptions(state: RealmState, rows: Subscription[]): void {
  for (const s of rows) state.channels.putSubscription(s);
}

/** stream create for users who newly see a channel, subscription add for each subscriber, peer_add for the rest. */
export function subscriptionAddedEvents(state: RealmState, plan: NewSubscription[], traffic: TrafficLookup = NO_TRAFFIC): RealmEvent[] {
  const events: RealmEvent[] = [];
  const byUser = new Map<number, NewSubscription[]>();
  const byChannel = new Map<number, number[]>();
  for (const p of plan) {
    byUser.set(p.userId, [...(byUser.get(p.userId) ?? []), p]);
    byChannel.set(p.channelId, [...(byChannel.get(p.channelId) ?? []), p.userId]);
  }
  for (const [userId, subs] of byUser) {
    const newlyVisible = subs.filter((s) => !s.hadAccess).map((s) => state.channels.byId.get(s.channelId)!);
    events.push(...streamCreate(state, newlyVisible, [userId], traffic));
    const records = subs.map((s) => {
      const ch = state.channels.byId.get(s.channelId)!;
      return formatSubscription(state, ch, state.channels.subscription(userId, ch.id)!, traffic, { subscribers: true });
    });
    events.push(...subscriptionAdd(state, userId, records));
  }
  for (const [channelId, userIds] of byChannel) {
    events.push(...peerEvent(state, 'peer_add', state.channels.byId.get(channelId)!, userIds));
  }
  return events;
}

export interface RemovedSubscription {
  userId: number;
  channelId: number;
}

export function applyUnsubscriptions(state: RealmState, removed: RemovedSubscription[]): void {
  for (const r of removed) {
    const sub = state.channels.subscription(r.userId, r.channelId);
    if (sub) state.channels.putSubscription({ ...sub, active: false });
  }
}

/** subscription remove for each user, peer_remove for the rest, stream delete for those who lost sight of a channel. */
export function subscriptionRemovedEvents(state: RealmState, removed: RemovedSubscription[]): RealmEvent[] {
  const events: RealmEvent[] = [];
  const byUser = new Map<number, Channel[]>();
  const byChannel = new Map<number, number[]>();
  for (const r of removed) {
    const ch = state.channels.byId.get(r.channelId)!;
    byUser.set(r.userId, [...(byUser.get(r.userId) ?? []), ch]);
    byChannel.set(r.channelId, [...(byChannel.get(r.channelId) ?? []), r.userId]);
  }
  for (const [userId, channels] of byUser) {
    events.push(...subscriptionRemove(userId, channels));
    const user = state.usersById.get(userId)!;
    const lost = channels.filter((c) => !hasMetadataAccess(state, user, c)).map((c) => c.id);
    events.push(...streamDelete(lost, [userId]));
  }
  for (const [channelId, userIds] of byChannel) {
    events.push(...peerEvent(state, 'peer_remove', state.channels.byId.get(channelId)!, userIds));
  }
  return events;
}
