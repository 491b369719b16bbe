// The records of channels: channels, subscriptions, channel folders and topic visibility (as the repositories load them).
import type { GroupSettingValue } from './realm.js';

export const TOPICS_POLICIES = ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only'] as const;
export type TopicsPolicy = (typeof TOPICS_POLICIES)[number];

export const CHANNEL_GROUP_SETTING_NAMES = [
  'can_add_subscribers_group',
  'can_remove_subscribers_group',
  'can_administer_channel_group',
  'can_delete_any_message_group',
  'can_delete_own_message_group',
  'can_move_messages_out_of_channel_group',
  'can_move_messages_within_channel_group',
  'can_send_message_group',
  'can_subscribe_group',
  'can_resolve_topics_group',
] as const;
export type ChannelGroupSettingName = (typeof CHANNEL_GROUP_SETTING_NAMES)[number];
export type ChannelGroupSettings = Record<ChannelGroupSettingName, GroupSettingValue>;

export interface Channel {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  inviteOnly: boolean;
  isWebPublic: boolean;
  historyPublicToSubscribers: boolean;
  isArchived: boolean;
  /** null inherits the realm's setting; -1 keeps forever. */
  messageRetentionDays: number | null;
  topicsPolicy: TopicsPolicy;
  folderId: number | null;
  creatorId: number | null;
  /** UNIX seconds. */
  dateCreated: number;
  groupSettings: ChannelGroupSettings;
  /** Kept from the messages table: the oldest message's ID, null when there is none. */
  firstMessageId: number | null;
  /** UNIX seconds of the newest message, null when there is none. */
  lastMessageAt: number | null;
}

export const SUBSCRIPTION_NOTIFICATION_PROPERTIES = [
  'desktop_notifications',
  'audible_notifications',
  'push_notifications',
  'email_notifications',
  'wildcard_mentions_notify',
] as const;
export type SubscriptionNotificationProperty = (typeof SUBSCRIPTION_NOTIFICATION_PROPERTIES)[number];

/** A user's subscription; `active` false once unsubscribed (the personal settings are kept). */
export interface Subscription {
  userId: number;
  channelId: number;
  active: boolean;
  color: string;
  isMuted: boolean;
  pinToTop: boolean;
  /** null inherits the user's setting. */
  notifications: Record<SubscriptionNotificationProperty, boolean | null>;
}

export interface ChannelFolder {
  id: number;
  realmId: number;
  name: string;
  description: string;
  renderedDescription: string;
  order: number;
  isArchived: boolean;
  creatorId: number | null;
  dateCreated: number;
}

/** Visibility policies of a user's topic (POST /user_topics). */
export const VISIBILITY_POLICY = { INHERIT: 0, MUTED: 1, UNMUTED: 2, FOLLOWED: 3 } as const;
export type VisibilityPolicy = (typeof VISIBILITY_POLICY)[keyof typeof VISIBILITY_POLICY];

/** Zulip's palette for the colors of new subscriptions. */
export const SUBSCRIPTION_COLORS = [
  '#76ce90', '#fae589', '#a6c7e5', '#e79ab5', '#bfd56f', '#f4ae55', '#b0a5fd', '#addfe5',
  '#f5ce6e', '#c2726a', '#94c849', '#bd86e5', '#ee7e4a', '#a6dcbf', '#95a5fd', '#53a063',
  '#9987e1', '#e4523d', '#c2c2c2', '#4f8de4', '#c6a8ad', '#e7cc4d', '#c8bebf', '#a47462',
] as const;

export type FolderChanges = Partial<Pick<ChannelFolder, 'name' | 'description' | 'renderedDescription' | 'isArchived'>>;

export type NewChannel = Omit<Channel, 'id' | 'dateCreated' | 'firstMessageId' | 'lastMessageAt'>;
/** What PATCH may change on a channel. */
export type ChannelChanges = Partial<
  Pick<
    Channel,
    | 'name'
    | 'description'
    | 'renderedDescription'
    | 'inviteOnly'
    | 'isWebPublic'
    | 'historyPublicToSubscribers'
    | 'isArchived'
    | 'messageRetentionDays'
    | 'topicsPolicy'
    | 'folderId'
    | 'groupSettings'
  >
>;

/** Personal properties and their columns. */
export type SubscriptionColumn = 'color' | 'is_muted' | 'pin_to_top' | SubscriptionNotificationProperty;

export interface UserTopic {
  userId: number;
  channelId: number;
  topic: string;
  visibilityPolicy: number;
  /** UNIX seconds. */
  lastUpdated: number;
}
