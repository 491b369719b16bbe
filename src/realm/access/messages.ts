// Who may read which messages: channel history access, access to one message, and who is told of a change.
import { ROLE, type User } from '../../model/realm.js';
import type { RealmState } from '../state.js';
import type { Channel } from '../../model/channels.js';
import { errors } from '../../errors.js';
import type { Repos } from '../../persistence/db.js';
import type { StoredMessage } from '../../model/messages.js';

/**
 * Zulip's can_access_stream_history: whether the user may read the channel's messages, including those sent
 * before they subscribed (web-public; public to non-guests; shared-history private channels to subscribers).
 */
export function canReadChannelHistory(state: RealmState, user: User, ch: Channel): boolean {
  if (!user.isActive) return false;
  if (ch.isWebPublic) return true;
  if (!ch.inviteOnly && user.role !== ROLE.GUEST) return true;
  return ch.historyPublicToSubscribers && state.channels.isSubscribed(user.id, ch.id);
}

/** Whether the user may see a message: they have a row for it, or it is in a channel whose history they may read. */
export function canSeeMessage(state: RealmState, user: User, m: Pick<StoredMessage, 'kind' | 'channelId'>, hasRow: boolean): boolean {
  if (hasRow) return true;
  if (m.kind !== 'stream') return false;
  const ch = state.channels.byId.get(m.channelId!);
  return ch !== undefined && canReadChannelHistory(state, user, ch);
}

/**
 * Who hears of a change to messages (edit, deletion, reaction): everyone holding a row, plus, for a channel
 * whose history subscribers may read, its current subscribers.
 */
export function changeAudience(state: RealmState, holders: Iterable<number>, channelId: number | null): number[] {
  const out = new Set(holders);
  const ch = channelId === null ? undefined : state.channels.byId.get(channelId);
  if (ch?.historyPublicToSubscribers) for (const id of state.channels.subscriberIds(ch.id)) out.add(id);
  return [...out].filter((id) => state.usersById.get(id)?.isActive).sort((a, b) => a - b);
}

/** A message the user may see, with their flags (undefined without a row); "Invalid message(s)" otherwise. */
export async function accessMessage(db: Repos, state: RealmState, user: User, messageId: number) {
  const message = await db.messages.byId(messageId);
  if (!message || message.realmId !== state.realm.id) throw errors.invalidMessage();
  const flags = (await db.userMessages.flagsFor(user.id, [messageId])).get(messageId);
  if (!canSeeMessage(state, user, message, flags !== undefined)) throw errors.invalidMessage();
  return { message, flags, hasRow: flags !== undefined };
}
