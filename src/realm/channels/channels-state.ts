// The channels domain's part of a realm's working set: channels, subscriptions, default channels and folders.
import type { Repos } from '../../persistence/db.js';
import type { Channel, ChannelFolder, Subscription } from '../../model/channels.js';

export class ChannelsState {
  readonly byId = new Map<number, Channel>();
  /** By lower-cased name. */
  readonly byName = new Map<string, Channel>();
  /** Channel ID → user ID → subscription (active or not). */
  readonly subsByChannel = new Map<number, Map<number, Subscription>>();
  /** User ID → channel ID → subscription (active or not). */
  readonly subsByUser = new Map<number, Map<number, Subscription>>();
  readonly defaultChannelIds = new Set<number>();
  readonly folders = new Map<number, ChannelFolder>();

  constructor(channels: Channel[] = [], subs: Subscription[] = [], defaults: number[] = [], folders: ChannelFolder[] = []) {
    for (const c of channels) this.putChannel(c);
    for (const s of subs) this.putSubscription(s);
    for (const id of defaults) this.defaultChannelIds.add(id);
    for (const f of folders) this.folders.set(f.id, f);
  }

  static async load(db: Repos, realmId: number): Promise<ChannelsState> {
    // Sequential: inside a transaction all share one connection.
    const channels = await db.channels.forRealm(realmId);
    const subs = await db.subscriptions.forRealm(realmId);
    const defaults = await db.channels.defaultIds(realmId);
    const folders = await db.channelFolders.forRealm(realmId);
    return new ChannelsState(channels, subs, defaults, folders);
  }

  putChannel(c: Channel): void {
    const previous = this.byId.get(c.id);
    if (previous) this.byName.delete(previous.name.toLowerCase());
    this.byId.set(c.id, c);
    this.byName.set(c.name.toLowerCase(), c);
  }

  channelByName(name: string): Channel | undefined {
    return this.byName.get(name.toLowerCase());
  }

  putSubscription(s: Subscription): void {
    let byUser = this.subsByChannel.get(s.channelId);
    if (!byUser) this.subsByChannel.set(s.channelId, (byUser = new Map()));
    byUser.set(s.userId, s);
    let byChannel = this.subsByUser.get(s.userId);
    if (!byChannel) this.subsByUser.set(s.userId, (byChannel = new Map()));
    byChannel.set(s.channelId, s);
  }

  /** The user's subscription record, active or not. */
  subscription(userId: number, channelId: number): Subscription | undefined {
    return this.subsByUser.get(userId)?.get(channelId);
  }

  isSubscribed(userId: number, channelId: number): boolean {
    return this.subscription(userId, channelId)?.active === true;
  }

  /** IDs of users with an active subscription (deactivated users included), ascending. */
  subscriberIds(channelId: number): number[] {
    const ids: number[] = [];
    for (const s of this.subsByChannel.get(channelId)?.values() ?? []) if (s.active) ids.push(s.userId);
    return ids.sort((a, b) => a - b);
  }

  /** The user's active subscriptions. */
  activeSubscriptions(userId: number): Subscription[] {
    return [...(this.subsByUser.get(userId)?.values() ?? [])].filter((s) => s.active);
  }

  /** Colors of the user's subscriptions, active or not (new ones avoid them). */
  usedColors(userId: number): Set<string> {
    return new Set([...(this.subsByUser.get(userId)?.values() ?? [])].map((s) => s.color));
  }

  /** Called after a message to a channel commits (the messages domain). */
  noteMessage(channelId: number, messageId: number, sentAt: number): void {
    const c = this.byId.get(channelId);
    if (!c) return;
    if (c.firstMessageId === null || messageId < c.firstMessageId) c.firstMessageId = messageId;
    if (c.lastMessageAt === null || sentAt > c.lastMessageAt) c.lastMessageAt = sentAt;
  }

  /** Folders in display order. */
  orderedFolders(): ChannelFolder[] {
    return [...this.folders.values()].sort((a, b) => a.order - b.order || a.id - b.id);
  }
}
