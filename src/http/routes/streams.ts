// Channels by ID and as a list: GET /streams, GET/PATCH/DELETE /streams/{stream_id}, GET /get_stream_id,
// GET /streams/{stream_id}/members.
import { hasContentAccess, hasMetadataAccess, visibleChannel } from '../../realm/access/channels.js';
import { activeSubscriberIds, formatChannel } from '../../realm/channels/format.js';
import { groupSettingChange, type GroupSettingChange } from '../../realm/channels/group-settings.js';
import { trafficFor } from '../../realm/channels/traffic.js';
import { CHANNEL_GROUP_SETTING_NAMES, TOPICS_POLICIES, type Channel, type ChannelGroupSettingName } from '../../model/channels.js';
import type { UpdateChannelInput } from '../../realm/channels/update.commands.js';
import { retentionParam } from '../../realm/channels/validate.js';
import { isAdmin } from '../../realm/access/roles.js';
import type { RealmState } from '../../realm/state.js';
import { ROLE, type User } from '../../model/realm.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, enumOf, int, nullable, optional, required, str, withDefault, type Field } from '../../params.js';
import { serverContext, viewer } from '../context.js';

interface ListFilters {
  include_public: boolean;
  include_web_public: boolean;
  include_subscribed: boolean;
  exclude_archived: boolean;
  include_all: boolean;
  include_default: boolean;
  include_owner_subscribed: boolean;
  include_can_access_content: boolean;
  include_all_active: boolean;
}

/** The channels a viewer asked for (null: a spectator, who sees web-public channels only). */
function listChannels(state: RealmState, user: User | null, f: ListFilters): Channel[] {
  const owner = user?.isBot && user.botOwnerId !== null ? state.usersById.get(user.botOwnerId) : undefined;
  const wanted = (ch: Channel): boolean => {
    if (user === null) return ch.isWebPublic;
    if (!hasMetadataAccess(state, user, ch)) return false;
    if (f.include_all || f.include_all_active) return true;
    if (f.include_public && !ch.inviteOnly && user.role !== ROLE.GUEST) return true;
    if (f.include_web_public && ch.isWebPublic) return true;
    if (f.include_subscribed && state.channels.isSubscribed(user.id, ch.id)) return true;
    if (f.include_default && state.channels.defaultChannelIds.has(ch.id)) return true;
    if (f.include_can_access_content && hasContentAccess(state, user, ch)) return true;
    return f.include_owner_subscribed && owner !== undefined && state.channels.isSubscribed(owner.id, ch.id);
  };
  return [...state.channels.byId.values()]
    .filter((ch) => !(f.exclude_archived && ch.isArchived) && wanted(ch))
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export const getStreams = endpoint({
  method: 'GET',
  path: '/streams',
  auth: 'optional',
  params: {
    include_public: withDefault(bool(), true),
    include_web_public: withDefault(bool(), false),
    include_subscribed: withDefault(bool(), true),
    exclude_archived: withDefault(bool(), true),
    include_all: withDefault(bool(), false),
    include_default: withDefault(bool(), false),
    include_owner_subscribed: withDefault(bool(), false),
    include_can_access_content: withDefault(bool(), false),
    include_all_active: withDefault(bool(), false),
  },
  async handle(ctx, p) {
    const user = viewer(ctx);
    if (p.include_all_active && (user === null || !isAdmin(user))) throw errors.notAuthorizedForQuery();
    const state = ctx.realm.state;
    const channels = listChannels(state, user, p);
    const traffic = await trafficFor(ctx.services.db, channels);
    const streams = channels.map((ch) => {
      const out = formatChannel(state, ch, traffic);
      if (p.include_default) out.is_default = state.channels.defaultChannelIds.has(ch.id);
      return out;
    });
    return { streams };
  },
});

export const getStream = endpoint({
  method: 'GET',
  path: '/streams/{stream_id}',
  auth: 'optional',
  params: { stream_id: required(int()) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const ch = visibleChannel(state, viewer(ctx), p.stream_id, 'metadata');
    return { stream: formatChannel(state, ch, await trafficFor(ctx.services.db, [ch])) };
  },
});

export const getStreamId = endpoint({
  method: 'GET',
  path: '/get_stream_id',
  auth: 'user',
  params: { stream: required(str()) },
  handle(ctx, p) {
    const state = ctx.realm.state;
    const ch = state.channels.channelByName(p.stream.trim());
    if (!ch || !hasMetadataAccess(state, ctx.user, ch)) throw errors.invalidChannelName(p.stream);
    return { stream_id: ch.id };
  },
});

export const getStreamMembers = endpoint({
  method: 'GET',
  path: '/streams/{stream_id}/members',
  auth: 'user',
  params: { stream_id: required(int()) },
  handle(ctx, p) {
    const state = ctx.realm.state;
    const ch = visibleChannel(state, ctx.user, p.stream_id, 'metadata');
    return { subscribers: activeSubscriberIds(state, ch.id) };
  },
});

const groupChangeParams = Object.fromEntries(
  CHANNEL_GROUP_SETTING_NAMES.map((name) => [name, optional(groupSettingChange())]),
) as Record<ChannelGroupSettingName, Field<GroupSettingChange> & { required: false }>;

export const updateStream = endpoint({
  method: 'PATCH',
  path: '/streams/{stream_id}',
  auth: 'user',
  params: {
    stream_id: required(int()),
    new_name: optional(str()),
    description: optional(str()),
    is_private: optional(bool()),
    is_web_public: optional(bool()),
    history_public_to_subscribers: optional(bool()),
    is_default_stream: optional(bool()),
    message_retention_days: optional(retentionParam()),
    is_archived: optional(bool()),
    folder_id: optional(nullable(int())),
    topics_policy: optional(enumOf(TOPICS_POLICIES)),
    ...groupChangeParams,
  },
  async handle(ctx, p) {
    const groupSettings: UpdateChannelInput['groupSettings'] = {};
    for (const name of CHANNEL_GROUP_SETTING_NAMES) if (p[name] !== undefined) groupSettings[name] = p[name];
    const input: UpdateChannelInput = {
      actorId: ctx.user.id,
      channelId: p.stream_id,
      newName: p.new_name,
      description: p.description,
      isPrivate: p.is_private,
      isWebPublic: p.is_web_public,
      historyPublicToSubscribers: p.history_public_to_subscribers,
      isDefault: p.is_default_stream,
      messageRetentionDays: p.message_retention_days,
      isArchived: p.is_archived,
      folderId: p.folder_id,
      topicsPolicy: p.topics_policy,
      groupSettings: Object.keys(groupSettings).length > 0 ? groupSettings : undefined,
      server: serverContext(ctx),
    };
    await ctx.realm.dispatch('channels.update', input);
    return {};
  },
});

export const archiveStream = endpoint({
  method: 'DELETE',
  path: '/streams/{stream_id}',
  auth: 'user',
  params: { stream_id: required(int()) },
  async handle(ctx, p) {
    const input: UpdateChannelInput = { actorId: ctx.user.id, channelId: p.stream_id, isArchived: true, server: serverContext(ctx) };
    await ctx.realm.dispatch('channels.update', input);
    return {};
  },
});

export const streamEndpoints = [getStreams, getStream, getStreamId, getStreamMembers, updateStream, archiveStream];
