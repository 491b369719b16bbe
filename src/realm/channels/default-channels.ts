// Default channels: which channels new users join (POST/DELETE /default_streams), and joining them.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { Tx } from '../../persistence/db.js';
import type { CommandDef } from '../commands.js';
import { actor, requireAdmin } from '../access/roles.js';
import type { RealmState } from '../state.js';
import { defaultStreamsEvent, peerEvent } from './events.js';
import { pickColor } from './subscribing.js';
import type { Subscription } from '../../model/channels.js';

/** Subscriptions to the given default channels, by ID; each gets the next palette color (a new user has none). */
function defaultPairs(channelIds: number[], userId: number): { userId: number; channelId: number; color: string }[] {
  const used = new Set<string>();
  return [...channelIds]
    .sort((a, b) => a - b)
    .map((channelId) => {
      const color = pickColor(used, channelId);
      used.add(color);
      return { userId, channelId, color };
    });
}

/**
 * Inside the transaction that creates a (human) user: subscribes them to the realm's default channels.
 * After the commit, call applyDefaultSubscriptions (memory) and defaultSubscriptionEvents (peer_add).
 */
export async function subscribeToDefaultChannels(t: Tx, realmId: number, userId: number): Promise<Subscription[]> {
  const ids = await t.channels.defaultIds(realmId);
  return t.subscriptions.activate(realmId, defaultPairs(ids, userId));
}

/** Archived channels leave the default set when archived, so the stored set is the live one. */
function defaultIds(state: RealmState): number[] {
  return [...state.channels.defaultChannelIds];
}

/** The same subscriptions in the working set (the realm actor is the only writer, so memory matches the rows). */
export function applyDefaultSubscriptions(state: RealmState, userId: number): void {
  for (const p of defaultPairs(defaultIds(state), userId)) {
    state.channels.putSubscription({
      ...p,
      active: true,
      isMuted: false,
      pinToTop: false,
      notifications: {
        desktop_notifications: null,
        audible_notifications: null,
        push_notifications: null,
        email_notifications: null,
        wildcard_mentions_notify: null,
      },
    });
  }
}

/** peer_add for the new user's default channels, to those who see their subscribers. */
export function defaultSubscriptionEvents(state: RealmState, userId: number): RealmEvent[] {
  return defaultIds(state).flatMap((id) => peerEvent(state, 'peer_add', state.channels.byId.get(id)!, [userId]));
}

interface SetDefault {
  actorId: number;
  channelId: number;
  isDefault: boolean;
}

const setDefaultChannel: CommandDef<SetDefault, SetDefault & { changed: boolean }, SetDefault & { changed: boolean }> = {
  check(state, input) {
    requireAdmin(actor(state, input.actorId));
    const ch = state.channels.byId.get(input.channelId);
    if (!ch) throw errors.invalidChannelId();
    if (input.isDefault && ch.inviteOnly) throw errors.privateChannelNotDefault();
    if (input.isDefault && ch.isArchived) throw errors.archivedChannelNotDefault();
    return { ...input, changed: state.channels.defaultChannelIds.has(ch.id) !== input.isDefault };
  },
  async write(t, plan, state) {
    if (plan.changed && plan.isDefault) await t.channels.addDefault(state.realm.id, plan.channelId);
    if (plan.changed && !plan.isDefault) await t.channels.removeDefault(state.realm.id, plan.channelId);
    return plan;
  },
  apply(state, r) {
    if (r.isDefault) state.channels.defaultChannelIds.add(r.channelId);
    else state.channels.defaultChannelIds.delete(r.channelId);
  },
  events: (state, r) => (r.changed ? defaultStreamsEvent(state) : []),
};

export const defaultChannelCommands = { 'defaultChannels.set': setDefaultChannel };
