// The parameters that configure new channels, shared by POST /channels/create and POST /users/me/subscriptions.
import { CHANNEL_GROUP_SETTING_NAMES, TOPICS_POLICIES, type ChannelGroupSettingName } from '../model/channels.js';
import type { GroupSettingValue } from '../model/realm.js';
import { bool, enumOf, int, nullable, optional, withDefault, type Field, type ParamsOf } from '../params.js';
import type { NewChannelSettings } from '../realm/channels/creating.js';
import { groupSettingValue } from '../realm/channels/group-settings.js';
import { retentionParam } from '../realm/channels/validate.js';

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
