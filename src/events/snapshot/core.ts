// Snapshot sections the foundation owns: the realm and its settings, users, groups, and the user's own record.
import { serverThumbnailFormats } from '../../realm/files/thumbnail-formats.js';
import { realmUrl } from '../../urls.js';
import { EMOJI_DATA_PATH } from '../../markdown/emoji.js';
import { deprecatedRealmPolicies, serverSupportedPermissionSettings } from '../../realm/permission-settings.js';
import { registerBranding } from '../../realm/admin/branding.js';
import { renderedRealmDescription } from '../../realm/admin/properties.js';
import { DEFAULT_EXTERNAL_ACCOUNTS } from '../../realm/people/profile-fields.js';
import { allRealmSettings } from '../../realm/realm-settings.js';
import { ROLE, type UserGroup } from '../../model/realm.js';
import { gravatarUrl } from '../../realm/user-format.js';
import { realmUserLists } from './realm-users.js';
import type { Section } from './types.js';

/** When this process started (register's server_generation). */
const SERVER_GENERATION = Math.floor(Date.now() / 1000);

/** The reference's GIPHY rating choices (GIPHY itself is not offered: no key). */
const GIPHY_RATING_OPTIONS = {
  disabled: { name: 'GIPHY integration disabled', id: 0 },
  y: { name: 'Allow GIFs rated Y (Very young audience)', id: 1 },
  g: { name: 'Allow GIFs rated G (General audience)', id: 2 },
  pg: { name: 'Allow GIFs rated PG (Parental guidance)', id: 3 },
  pg13: { name: 'Allow GIFs rated PG-13 (Parental guidance - under 13)', id: 4 },
  r: { name: 'Allow GIFs rated R (Restricted)', id: 5 },
};

function groupRecord(g: UserGroup) {
  return {
    id: g.id,
    name: g.name,
    description: g.description,
    members: [...g.directMembers].sort((a, b) => a - b),
    direct_subgroup_ids: [...g.directSubgroups].sort((a, b) => a - b),
    is_system_group: g.isSystemGroup,
    creator_id: g.creatorId,
    date_created: g.dateCreated,
    deactivated: g.deactivated,
    ...g.groupSettings,
  };
}

export const coreSections: Record<string, Section<'config' | 'db' | 'presence'>> = {
  realm: ({ state, config }) => {
    const realm = state.realm;
    const url = realmUrl(config, realm.stringId);
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(allRealmSettings(state))) out[`realm_${name}`] = value;
    for (const [name, value] of Object.entries(realm.groupSettings)) out[`realm_${name}`] = value;
    return {
      ...out,
      realm_name: realm.name,
      realm_description: renderedRealmDescription(realm.description),
      realm_url: url,
      realm_uri: url,
      realm_date_created: realm.dateCreated,
      ...registerBranding(state, url),
      realm_mandatory_topics: out.realm_topics_policy === 'disable_empty_topic',
      realm_allow_edit_history: out.realm_message_edit_history_visibility_policy !== 'none',
      realm_is_zephyr_mirror_realm: false,
      realm_email_auth_enabled: true,
      realm_password_auth_enabled: true,
      realm_push_notifications_enabled: false,
      realm_push_notifications_enabled_end_timestamp: null,
      realm_authentication_methods: { password: { enabled: true, available: true }, email: { enabled: true, available: true } },
      realm_default_external_accounts: DEFAULT_EXTERNAL_ACCOUNTS,
      realm_available_video_chat_providers: { disabled: { name: 'None', id: 0 }, jitsi_meet: { name: 'Jitsi Meet', id: 1 } },
      realm_bot_domain: state.emailDomain,
      server_web_public_streams_enabled: config.webPublicStreamsEnabled,
      server_avatar_changes_disabled: false,
      server_name_changes_disabled: false,
      server_inline_image_preview: true,
      server_thumbnail_formats: serverThumbnailFormats(),
      server_inline_url_embed_preview: false,
      server_needs_upgrade: false,
      server_presence_ping_interval_seconds: 60,
      server_presence_offline_threshold_seconds: 140,
      server_typing_started_expiry_period_milliseconds: 45000,
      server_typing_stopped_wait_period_milliseconds: 5000,
      server_typing_started_wait_period_milliseconds: 10000,
      development_environment: false,
      // Fields the reference documents for this section that no setting here changes.
      ...deprecatedRealmPolicies(state),
      realm_require_e2ee_push_notifications: false,
      server_min_deactivated_realm_deletion_days: 14,
      server_max_deactivated_realm_deletion_days: null,
      settings_send_digest_emails: false,
      zulip_plan_is_not_limited: true,
      upgrade_text_for_wide_organization_logo: '',
      server_jitsi_server_url: null,
      jitsi_server_url: out.realm_jitsi_server_url ?? '',
      server_generation: SERVER_GENERATION,
      giphy_rating_options: GIPHY_RATING_OPTIONS,
      server_emoji_data_url: `${url}${EMOJI_DATA_PATH}`,
      server_can_summarize_topics: false,
      server_supported_permission_settings: serverSupportedPermissionSettings(),
    };
  },

  realm_user: async (ctx) => {
    const { state, user } = ctx;
    const me: Record<string, unknown> = {};
    if (user) {
      Object.assign(me, {
        user_id: user.id,
        email: state.apiEmailOf(user),
        delivery_email: user.email,
        full_name: user.fullName,
        is_admin: user.role <= ROLE.ADMINISTRATOR,
        is_owner: user.role === ROLE.OWNER,
        is_moderator: user.role === ROLE.MODERATOR,
        is_guest: user.role === ROLE.GUEST,
        avatar_source: 'G',
        // The user's own avatar is always a URL, client_gravatar or not (as in the reference).
        avatar_url: gravatarUrl(state.apiEmailOf(user)),
        avatar_url_medium: gravatarUrl(state.apiEmailOf(user)),
        can_create_streams: state.userHasRealmPermission(user.id, 'can_create_public_channel_group') || state.userHasRealmPermission(user.id, 'can_create_private_channel_group'),
        can_create_public_streams: state.userHasRealmPermission(user.id, 'can_create_public_channel_group'),
        can_create_private_streams: state.userHasRealmPermission(user.id, 'can_create_private_channel_group'),
        can_create_web_public_streams: state.userHasRealmPermission(user.id, 'can_create_web_public_channel_group'),
        can_subscribe_other_users: state.userHasRealmPermission(user.id, 'can_add_subscribers_group'),
        can_invite_others_to_realm: state.userHasRealmPermission(user.id, 'can_invite_users_group'),
      });
    }
    return {
      ...me,
      ...(await realmUserLists(ctx)),
      cross_realm_bots: [],
    };
  },

  realm_user_groups: ({ state }) => ({
    realm_user_groups: [...state.groupsById.values()].map(groupRecord),
  }),
};
