// Channels: POST /channels/create; the settings of new channels, shared with POST /users/me/subscriptions.
import { webPublicAllowed } from '../../realm/channels/access.js';
import type { CreateChannelInput } from '../../realm/channels/create.commands.js';
import type { NewChannelSettings, ServerContext } from '../../realm/channels/creating.js';
import { groupSettingValue } from '../../realm/channels/group-settings.js';
import { retentionParam } from '../../realm/channels/validate.js';
import { LIMITS, REQUEST_LIMITS } from '../../limits.js';
import { CHANNEL_GROUP_SETTING_NAMES, TOPICS_POLICIES, type ChannelGroupSettingName } from '../../model/channels.js';
import type { GroupSettingValue, User } from '../../model/realm.js';
import { endpoint, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, enumOf, int, list, nullable, optional, required, str, withDefault, type Field, type ParamsOf } from '../../params.js';
import { realmUrl } from '../../urls.js';

/** The realm URL of the request's realm (links into it render relative). */
export function requestRealmUrl(ctx: RequestContext): string {
  return realmUrl(ctx.services.config, ctx.realm.state.realm.stringId);
}

/** What the server knows that a realm's working set does not: its URL and WEB_PUBLIC_STREAMS_ENABLED. */
export function serverContext(ctx: RequestContext): ServerContext {
  return {
    realmUrl: requestRealmUrl(ctx),
    webPublicStreamsEnabled: ctx.services.config.webPublicStreamsEnabled,
  };
}

/** The viewer of a read that spectators may make: the user, or null for a spectator when the realm allows them. */
export function viewer(ctx: RequestContext): User | null {
  if (ctx.user) return ctx.user;
  if (!webPublicAllowed(ctx.realm.state, ctx.services.config.webPublicStreamsEnabled)) throw errors.notLoggedIn();
  return null;
}

const groupSettingParams = Object.fromEntries(
  CHANNEL_GROUP_SETTING_NAMES.map((name) => [name, optional(groupSettingValue())]),
) as Record<ChannelGroupSettingName, Field<GroupSettingValue> & { required: false }>;

/** Parameters that configure new channels. */
export const newChannelParams = {
  invite_only: withDefault(bool(), false),
  is_web_public: withDefault(bool(), false),
  is_default_stream: withDefault(bool(), false),
  history_public_to_subscribers: optional(bool()),
  message_retention_days: optional(retentionParam()),
  topics_policy: optional(enumOf(TOPICS_POLICIES)),
  folder_id: optional(nullable(int())),
  ...groupSettingParams,
};

export function newChannelSettings(p: ParamsOf<typeof newChannelParams>): NewChannelSettings {
  const groupSettings: NewChannelSettings['groupSettings'] = {};
  for (const name of CHANNEL_GROUP_SETTING_NAMES) if (p[name] !== undefined) groupSettings[name] = p[name];
  return {
    inviteOnly: p.invite_only,
    isWebPublic: p.is_web_public,
    isDefault: p.is_default_stream,
    historyPublicToSubscribers: p.history_public_to_subscribers,
    messageRetentionDays: p.message_retention_days,
    topicsPolicy: p.topics_policy,
    folderId: p.folder_id,
    groupSettings,
  };
}

export const createChannel = endpoint({
  method: 'POST',
  path: '/channels/create',
  auth: 'user',
  params: {
    name: required(str()),
    description: withDefault(str({ maxLength: LIMITS.max_stream_description_length }), ''),
    subscribers: required(list(int(), { maxItems: REQUEST_LIMITS.principals })),
    announce: withDefault(bool(), false),
    send_new_subscription_messages: withDefault(bool(), true),
    ...newChannelParams,
  },
  async handle(ctx, p) {
    const input: CreateChannelInput = {
      actorId: ctx.user.id,
      name: p.name,
      description: p.description,
      subscriberIds: p.subscribers,
      announce: p.announce,
      settings: newChannelSettings(p),
      server: serverContext(ctx),
    };
    const created = await ctx.realm.dispatch<{ channels: { id: number }[] }>('createChannel', input);
    return { id: created.channels[0]!.id };
  },
});
