// Channel access rules: metadata access (knowing a channel, its subscribers and settings), content access
// (its messages and topics), administering it, adding and removing subscribers; and the audiences of events.
import { errors } from '../../errors.js';
import { isAdmin } from './roles.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import { ROLE, type User } from '../../model/realm.js';
import type { Channel } from '../../model/channels.js';

/** Whether the user is in one of the channel's permission group settings. */
export function inChannelSetting(state: RealmState, user: User, ch: Channel, name: keyof Channel['groupSettings']): boolean {
  return state.userHasGroupSetting(user.id, ch.groupSettings[name]);
}

/** Whether the user may know the channel exists, see its settings and subscribers. */
export function hasMetadataAccess(state: RealmState, user: User, ch: Channel): boolean {
  if (!user.isActive) return false;
  if (ch.isWebPublic || state.channels.isSubscribed(user.id, ch.id)) return true;
  if (user.role === ROLE.GUEST) return false;
  if (!ch.inviteOnly || isAdmin(user)) return true;
  return (
    inChannelSetting(state, user, ch, 'can_administer_channel_group') ||
    inChannelSetting(state, user, ch, 'can_add_subscribers_group') ||
    inChannelSetting(state, user, ch, 'can_subscribe_group')
  );
}

/** Whether the user may read the channel's messages and topics. */
export function hasContentAccess(state: RealmState, user: User, ch: Channel): boolean {
  if (!user.isActive) return false;
  if (ch.isWebPublic || state.channels.isSubscribed(user.id, ch.id)) return true;
  if (user.role === ROLE.GUEST) return false;
  if (!ch.inviteOnly) return true;
  return inChannelSetting(state, user, ch, 'can_add_subscribers_group') || inChannelSetting(state, user, ch, 'can_subscribe_group');
}

/** Organization administrators administer every channel; others through can_administer_channel_group. */
export function canAdminister(state: RealmState, user: User, ch: Channel): boolean {
  return isAdmin(user) || inChannelSetting(state, user, ch, 'can_administer_channel_group');
}

/** Whether the user may subscribe others (or themselves) to the channel: by the channel's
 *  can_add_subscribers_group; as its administrator when it is public; or by the realm's
 *  can_add_subscribers_group where they have content access. */
export function canAddSubscribers(state: RealmState, user: User, ch: Channel): boolean {
  if (!user.isActive || user.role === ROLE.GUEST) return false;
  if (inChannelSetting(state, user, ch, 'can_add_subscribers_group')) return true;
  if (!ch.inviteOnly && canAdminister(state, user, ch)) return true;
  return state.userHasRealmPermission(user.id, 'can_add_subscribers_group') && hasContentAccess(state, user, ch);
}

/** Whether the user may subscribe themselves: anyone (guests too, as in Zulip's filter_stream_authorization) to a
 *  web-public channel, anyone but guests to a public one, or by permission. */
export function canSubscribeSelf(state: RealmState, user: User, ch: Channel): boolean {
  if (state.channels.isSubscribed(user.id, ch.id) || ch.isWebPublic) return true;
  if (user.role !== ROLE.GUEST && !ch.inviteOnly) return true;
  return inChannelSetting(state, user, ch, 'can_subscribe_group') || canAddSubscribers(state, user, ch);
}

/** Whether the user may unsubscribe `target` from the channel. */
export function canRemoveSubscriber(state: RealmState, user: User, ch: Channel, target: User): boolean {
  if (target.id === user.id) return true;
  if (!hasMetadataAccess(state, user, ch)) return false;
  if (canAdminister(state, user, ch) || inChannelSetting(state, user, ch, 'can_remove_subscribers_group')) return true;
  return target.isBot && target.botOwnerId === user.id;
}

/** Active users who may see the channel exist: the audience of its stream events. */
export function metadataAudience(state: RealmState, ch: Channel): number[] {
  const ids: number[] = [];
  for (const u of state.usersById.values()) if (hasMetadataAccess(state, u, ch)) ids.push(u.id);
  return ids;
}

/** Whether web-public channels are possible in this realm (and spectators may see them): the server's
 *  WEB_PUBLIC_STREAMS_ENABLED and the realm's enable_spectator_access. */
export function webPublicAllowed(state: RealmState, serverEnabled: boolean): boolean {
  return serverEnabled && realmSetting(state, 'enable_spectator_access') === true;
}

/** A channel by ID that the viewer (null: a spectator) may see, else "Invalid channel ID". */
export function visibleChannel(state: RealmState, viewer: User | null, channelId: number, need: 'metadata' | 'content'): Channel {
  const ch = state.channels.byId.get(channelId);
  if (!ch) throw errors.invalidChannelId();
  const ok = viewer === null ? ch.isWebPublic : need === 'metadata' ? hasMetadataAccess(state, viewer, ch) : hasContentAccess(state, viewer, ch);
  if (!ok) throw errors.invalidChannelId();
  return ch;
}
