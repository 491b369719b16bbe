// The realm's events as the rest of the server receives them: typed plain data (serializable, so that they can
// cross processes), each with the users it concerns. Clients never see these: the event router makes each
// queue's wire form from them (src/events/wire.ts, src/events/queue-form.ts).
import type { NarrowMessage } from '../narrow/types.js';
import type { NavigationView, SavedSnippet, StoredDraft } from '../model/drafts.js';
import type { ScheduledMessage } from '../model/scheduled.js';
import type { RealmDomain } from '../model/realm.js';

/** An event as clients receive it, without its queue-specific `id`. */
export type WireEvent = Record<string, unknown> & { type: string };

/** A record inside an event in the API's own form (a message, a channel, a person): passed to clients as it is. */
export type ApiRecord = Record<string, unknown>;

/** What a message event's narrow filter reads about the message (the viewer's flags come with each recipient). */
export type MessageFacts = Omit<NarrowMessage, 'flags' | 'topicIsFollowed' | 'topicIsMuted'>;

/** A new message. */
export interface MessageEvent {
  kind: 'message';
  /**
   * The message in the API's form with Markdown `content`, plus `rendered_content`, `stream_is_public` and
   * `empty_topic_display_name`, from which each queue's form is made (src/events/queue-form.ts).
   */
  message: ApiRecord;
  facts: MessageFacts;
}

/** A scheduled message added, changed (e.g. failed) or removed (sent or deleted). */
export type ScheduledMessageEvent =
  | { kind: 'scheduled_message'; op: 'add' | 'update'; message: ScheduledMessage }
  | { kind: 'scheduled_message'; op: 'remove'; id: number };

/** A reminder added or removed (reminders have no update event). */
export type ReminderEvent = { kind: 'reminder'; op: 'add'; reminder: ScheduledMessage } | { kind: 'reminder'; op: 'remove'; id: number };

/** A user's synchronized drafts created, changed or deleted. */
export type DraftsEvent =
  | { kind: 'drafts'; op: 'add'; drafts: StoredDraft[] }
  | { kind: 'drafts'; op: 'update'; draft: StoredDraft }
  | { kind: 'drafts'; op: 'remove'; draftId: number };

export type SavedSnippetEvent =
  | { kind: 'saved_snippet'; op: 'add' | 'update'; snippet: SavedSnippet }
  | { kind: 'saved_snippet'; op: 'remove'; snippetId: number };

/** A navigation view added, changed (`data`: the changed fields in the API's form) or removed. */
export type NavigationViewEvent =
  | { kind: 'navigation_view'; op: 'add'; view: NavigationView }
  | { kind: 'navigation_view'; op: 'update'; fragment: string; data: ApiRecord }
  | { kind: 'navigation_view'; op: 'remove'; fragment: string };

/** A user as typing and reaction events name them. */
export interface UserRef {
  userId: number;
  email: string;
}

export type TypingEvent = {
  kind: 'typing';
  op: 'start' | 'stop';
  sender: UserRef;
} & ({ to: 'direct'; recipients: UserRef[] } | { to: 'stream'; channelId: number; topic: string });

/** Someone is editing a message, told to those who would see the edit. */
export interface EditTypingEvent {
  kind: 'typing_edit';
  op: 'start' | 'stop';
  senderId: number;
  messageId: number;
  to: { kind: 'direct'; userIds: number[] } | { kind: 'stream'; channelId: number; topic: string };
}

/** A user came online or became active; `form` is the one clients with (slim) or without (legacy) the
 *  simplified_presence_events capability receive. */
export interface PresenceEvent {
  kind: 'presence';
  form: 'slim' | 'legacy';
  userId: number;
  email: string;
  /** Seconds (0 when never), and when the user joined (in place of a time never reached). */
  lastActive: number;
  lastConnected: number;
  dateJoined: number;
  serverTimestamp: number;
}

/** What of a user's status changed. */
export interface UserStatusEvent {
  kind: 'user_status';
  userId: number;
  away?: boolean;
  statusText?: string;
  emoji?: { emojiName: string; emojiCode: string; reactionType: string };
}

export interface ReactionEvent {
  kind: 'reaction';
  op: 'add' | 'remove';
  user: UserRef & { fullName: string };
  messageId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
}

export interface MessageFlagsEvent {
  kind: 'message_flags';
  op: 'add' | 'remove';
  flag: string;
  messageIds: number[];
  /** For `read` removed: what clients need to know of each message (the reference's message_details). */
  details?: ApiRecord;
}

/** `subscriptions`: the subscription records in the API's form. */
export type SubscriptionEvent =
  | { kind: 'subscription'; op: 'add'; subscriptions: ApiRecord[] }
  | { kind: 'subscription'; op: 'update'; channelId: number; property: string; value: unknown }
  | { kind: 'subscription'; op: 'remove'; channels: { id: number; name: string }[] }
  | { kind: 'subscription'; op: 'peer_add' | 'peer_remove'; channelIds: number[]; userIds: number[] };

/** One property of a channel changed; `extra` carries the fields the API sends with some properties (e.g. a
 *  description's rendered_description), in its own form. */
export interface ChannelUpdateEvent {
  kind: 'channel_update';
  channelId: number;
  name: string;
  property: string;
  value: unknown;
  extra?: ApiRecord;
}

/** Channels the users now see (created, or made visible to them), as channel records in the API's form. */
export interface ChannelsCreatedEvent {
  kind: 'channels_created';
  channels: ApiRecord[];
}

export interface ChannelsDeletedEvent {
  kind: 'channels_deleted';
  channelIds: number[];
}

export interface DefaultChannelsEvent {
  kind: 'default_channels';
  channelIds: number[];
}

/** Members or subgroups added to or removed from a user group. */
export type GroupMembersEvent =
  | { kind: 'group_members'; op: 'add_members' | 'remove_members'; groupId: number; userIds: number[] }
  | { kind: 'group_members'; op: 'add_subgroups' | 'remove_subgroups'; groupId: number; subgroupIds: number[] };

/** A user group created (`group`: the group record in the API's form), changed (`data`: the changed fields in the
 *  API's form) or removed (for clients that do not know deactivated groups). */
export type UserGroupEvent =
  | { kind: 'user_group'; op: 'add'; group: ApiRecord }
  | { kind: 'user_group'; op: 'update'; groupId: number; data: ApiRecord }
  | { kind: 'user_group'; op: 'remove'; groupId: number };

/** A user added to the realm, or some fields of a user changed; `person` is the user record (or its changed
 *  fields, with `user_id`) in the API's form. */
export interface RealmUserEvent {
  kind: 'realm_user';
  op: 'add' | 'update';
  person: ApiRecord;
}

export interface UserSettingEvent {
  kind: 'user_setting';
  property: string;
  value: unknown;
}

/** A realm setting changed: one property (`update`), or related ones together (`update_dict`, `data` in the
 *  API's form); or the realm deactivated. */
export type RealmSettingsEvent =
  | { kind: 'realm'; op: 'update'; property: string; value: unknown }
  | { kind: 'realm'; op: 'update_dict'; property: string; data: ApiRecord }
  | { kind: 'realm'; op: 'deactivated'; realmId: number };

/** The realm's configuration lists and records, each record in the API's form. */
export type RealmConfigEvent =
  | { kind: 'realm_emoji'; emoji: ApiRecord }
  | { kind: 'realm_linkifiers'; linkifiers: ApiRecord[] }
  | { kind: 'realm_playgrounds'; playgrounds: ApiRecord[] }
  | { kind: 'realm_domains'; op: 'add' | 'change'; domain: RealmDomain }
  | { kind: 'realm_domains'; op: 'remove'; domain: string }
  | { kind: 'realm_bot'; op: 'add' | 'update' | 'delete'; bot: ApiRecord }
  | { kind: 'realm_export'; exports: ApiRecord[] }
  | { kind: 'realm_export_consent'; userId: number; consented: boolean }
  | { kind: 'realm_user_settings_defaults'; property: string; value: unknown }
  | { kind: 'custom_profile_fields'; fields: ApiRecord[] }
  | { kind: 'invites_changed' }
  | { kind: 'channel_folder'; op: 'add'; folder: ApiRecord }
  | { kind: 'channel_folder'; op: 'update'; folderId: number; data: ApiRecord }
  | { kind: 'channel_folder'; op: 'reorder'; order: number[] };

/** A user's own lists and records (records in the API's form); `spaceUsed` is the realm's upload space in bytes. */
export type UserDataEvent =
  | { kind: 'alert_words'; words: string[] }
  | { kind: 'muted_users'; mutedUsers: ApiRecord[] }
  | { kind: 'attachment'; op: 'add'; attachment: ApiRecord; spaceUsed: number }
  | { kind: 'attachment'; op: 'remove'; attachmentId: number; spaceUsed: number }
  | { kind: 'push_device'; pushAccountId: number; status: 'pending' };

/** A user setting changed, in the legacy form (update_display_settings or update_global_notifications) clients
 *  without the user_settings_object capability receive besides the modern one. */
export interface LegacyUserSettingEvent {
  kind: 'legacy_user_setting';
  group: 'display' | 'notification';
  email: string;
  property: string;
  value: unknown;
}

/** Where deleted messages were: a channel's topic (with the realm's name for the empty topic), or direct messages. */
export type DeletedFrom = { kind: 'direct' } | { kind: 'stream'; channelId: number; topic: string; emptyTopicDisplayName: string };

/** Messages deleted (or no longer visible to the users, after a move): sorted `messageIds` for queues with
 *  bulk_message_deletion, one event per message (`messageId`) for the others. */
export type DeleteMessageEvent = { kind: 'delete_message'; from: DeletedFrom } & ({ messageIds: number[] } | { messageId: number });

/** A message's content, or its rendering only, changed, and/or messages moved to another topic or channel. */
export interface UpdateMessageEvent {
  kind: 'update_message';
  /** Null when the server re-rendered the message (`renderingOnly`, e.g. a thumbnail finished). */
  editorId: number | null;
  editTime: number;
  messageId: number;
  /** Every message changed (the moved ones, for a move). */
  messageIds: number[];
  renderingOnly: boolean;
  /** The channel the message was in, for a channel message. */
  channel?: { id: number; name: string };
  content?: { content: string; rendered: string; before?: { content: string; rendered: string; }; isMeMessage?: boolean };
  move?: {
    propagateMode: string;
    origTopic: string;
    emptyTopicDisplayName: string;
    topic?: { name: string; links: { text: string; url: string }[] };
    newChannelId?: number;
  };
}

/** A user's visibility policy for a topic changed (0 none, 1 muted, 2 unmuted, 3 followed). */
export interface UserTopicEvent {
  kind: 'user_topic';
  channelId: number;
  topic: string;
  emptyTopicDisplayName: string;
  /** UNIX seconds. */
  lastUpdated: number;
  policy: number;
}

/** Events whose kind is not typed yet: published in their wire form and passed to clients as they are. */
export type UntypedEvent = WireEvent & { kind?: undefined };

export type BusEvent =
  | MessageEvent
  | ScheduledMessageEvent
  | ReminderEvent
  | DraftsEvent
  | SavedSnippetEvent
  | NavigationViewEvent
  | TypingEvent
  | EditTypingEvent
  | PresenceEvent
  | UserStatusEvent
  | ReactionEvent
  | MessageFlagsEvent
  | SubscriptionEvent
  | ChannelUpdateEvent
  | ChannelsCreatedEvent
  | ChannelsDeletedEvent
  | DefaultChannelsEvent
  | GroupMembersEvent
  | UserGroupEvent
  | RealmUserEvent
  | UserSettingEvent
  | DeleteMessageEvent
  | UpdateMessageEvent
  | UserTopicEvent
  | RealmSettingsEvent
  | RealmConfigEvent
  | UserDataEvent
  | LegacyUserSettingEvent
  | UntypedEvent;

/** The client_capabilities a queue may register with (POST /register). */
export const CLIENT_CAPABILITIES = [
  'notification_settings_null',
  'bulk_message_deletion',
  'user_avatar_url_field_optional',
  'stream_typing_notifications',
  'user_settings_object',
  'linkifier_url_template',
  'user_list_incomplete',
  'include_deactivated_groups',
  'archived_channels',
  'empty_topic_name',
  'simplified_presence_events',
] as const;
export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

/** A recipient: a user ID, or a user ID with the message flags only that user's copy carries. */
export type Recipient = number | { id: number; flags: string[] };

export function recipientId(r: Recipient): number {
  return typeof r === 'number' ? r : r.id;
}

/** One published event with its audience and the variants queues receive according to their capabilities. */
export interface RealmEvent {
  event: BusEvent;
  /** Users whose queues may receive it. */
  users: Recipient[];
  /**
   * What a queue registered without a client capability receives instead of `event` (e.g. without
   * `bulk_message_deletion`, one delete_message per message; an empty list sends nothing).
   */
  legacy?: Partial<Record<ClientCapability, BusEvent[]>>;
  /** Queues registered with this capability do not receive the event (e.g. with user_list_incomplete, the
   *  "Unknown user" added in place of a user the recipient cannot access). */
  skipWith?: ClientCapability;
  /** Also for queues registered with all_public_streams in the realm (a message to a public channel). */
  allPublicStreams?: boolean;
  /** The sending client's queue gets `local_message_id` on its copy (local echo). */
  senderQueue?: { queueId: string; localId: string };
}
