// Who a message is addressed to: `to` in every form clients send it (name, ID, JSON, list, comma list),
// resolved against the working set with Zulip's errors.
import { errors } from '../../errors.js';
import { REQUEST_LIMITS } from '../../limits.js';
import { hasMetadataAccess } from '../access/channels.js';
import type { Channel } from '../../model/channels.js';
import type { RealmState } from '../state.js';
import { ROLE, type User } from '../../model/realm.js';
import { userByEmailFor } from '../user-format.js';

/** `to` as received: the raw form string, or a value an internal caller already has. */
export type RawTo = string | number | (string | number)[];

/** What a JSON text can start with (after whitespace): anything else is a plain name, without a costly throw. */
const JSON_START = /^\s*(?:[[{"\-0-9]|true|false|null)/;

function decode(raw: RawTo): unknown {
  if (typeof raw !== 'string' || !JSON_START.test(raw)) return raw;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** Zulip's extract_stream_indicator: a channel name (plain or JSON) or ID, possibly in a one-element list. */
export function channelIndicator(raw: RawTo): string | number {
  let data = decode(raw);
  if (Array.isArray(data)) {
    if (data.length !== 1) throw errors.expectedOneChannel();
    data = data[0];
  }
  if (typeof data === 'string') return data;
  if (typeof data === 'number' && Number.isSafeInteger(data)) return data;
  throw errors.invalidChannelType();
}

/** Zulip's extract_private_recipients, also taking a single ID and comma lists of IDs. */
export function directIndicators(raw: RawTo): string[] | number[] {
  let data = decode(raw);
  if (typeof data === 'number') data = [data];
  if (typeof data === 'string') {
    const parts = data.split(',');
    data = parts.every((p) => /^\s*\d{1,10}\s*$/.test(p)) ? parts.map(Number) : parts;
  }
  if (!Array.isArray(data)) throw errors.invalidRecipientsType();
  if (data.length === 0) return [];
  if (data.length > REQUEST_LIMITS.directRecipients) throw errors.tooManyItems('recipients', REQUEST_LIMITS.directRecipients);
  if (typeof data[0] === 'string') {
    if (!data.every((x) => typeof x === 'string')) throw errors.mixedRecipients();
    return [...new Set((data as string[]).map((e) => e.trim()))].filter((e) => e !== '');
  }
  if (typeof data[0] !== 'number') throw errors.invalidRecipientsType();
  if (!data.every((x) => typeof x === 'number' && Number.isSafeInteger(x))) throw errors.mixedRecipients();
  return [...new Set(data as number[])];
}

/** The other participants of a direct message: active users of the realm, by an email the sender may use or ID. */
export function directRecipients(state: RealmState, sender: User, raw: RawTo): User[] {
  const keys = directIndicators(raw);
  if (keys.length === 0) throw errors.noRecipients();
  const users = keys.map((k) => {
    const u = typeof k === 'number' ? state.usersById.get(k) : userByEmailFor(state, sender, k);
    if (!u) throw typeof k === 'number' ? errors.invalidRecipientUserId(k) : errors.invalidRecipientEmail(k);
    return u;
  });
  for (const u of users) if (!u.isActive) throw errors.recipientDeactivated(state.apiEmailOf(u));
  return users;
}

/** The channel a message goes to, by name or ID (access is the sender's check, as in Zulip). */
export function targetChannel(state: RealmState, raw: RawTo): Channel {
  const key = channelIndicator(raw);
  const ch = typeof key === 'number' ? state.channels.byId.get(key) : state.channels.channelByName(key);
  if (!ch) throw typeof key === 'number' ? errors.channelIdDoesNotExist(key) : errors.channelDoesNotExist(key);
  return ch;
}

/**
 * Zulip's access_stream_for_send_message: can_send_message_group, archived channels, private channels, and guests
 * only where they are subscribed (or the channel is web-public). A channel neither the sender nor a bot's owner
 * may know of is answered like a missing one (`asked`: how the sender named it), so its existence and name stay hidden.
 */
export function checkCanPost(state: RealmState, sender: User, ch: Channel, asked: RawTo = ch.id): void {
  const allowed = (u: User) => state.userHasGroupSetting(u.id, ch.groupSettings.can_send_message_group);
  const owner = sender.isBot && sender.botOwnerId !== null ? state.usersById.get(sender.botOwnerId) : undefined;
  if (!hasMetadataAccess(state, sender, ch) && !(owner && hasMetadataAccess(state, owner, ch))) {
    const key = channelIndicator(asked);
    throw typeof key === 'number' ? errors.channelIdDoesNotExist(key) : errors.channelDoesNotExist(key);
  }
  if (!allowed(sender) && !(owner && allowed(owner))) throw errors.cannotPostInChannel();
  if (ch.isArchived) throw errors.notAuthorizedToSend(ch.name);
  if (ch.isWebPublic) return;
  if ((!ch.inviteOnly && sender.role !== ROLE.GUEST) || state.channels.isSubscribed(sender.id, ch.id)) return;
  if (owner && state.channels.isSubscribed(owner.id, ch.id)) return;
  throw errors.notAuthorizedToSend(ch.name);
}
