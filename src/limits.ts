// Limits the server enforces and announces in register (the reference's values).
export const LIMITS = {
  max_message_length: 10_000,
  max_topic_length: 60,
  max_stream_name_length: 60,
  max_stream_description_length: 1024,
  max_channel_folder_name_length: 60,
  max_channel_folder_description_length: 1024,
  max_reminder_note_length: 1000,
  max_file_upload_size_mib: 25,
  max_avatar_file_size_mib: 5,
  max_icon_file_size_mib: 5,
  max_logo_file_size_mib: 5,
  max_bulk_new_subscription_messages: 100,
  password_min_length: 6,
  password_max_length: 100,
  /** The fewest guesses the strength estimator (zxcvbn) may put a new password at (src/auth/password-policy.ts). */
  password_min_guesses: 10_000,
} as const;

/**
 * Presence events go to an audience of at most this many users (the reference's
 * USER_LIMIT_FOR_SENDING_PRESENCE_UPDATE_EVENTS, 100): each one's coming online is news to every other, so above it
 * the events would cost the square of the realm's size; clients of larger realms learn presence from their own
 * presence requests' answers. The server's default for PRESENCE_EVENTS_USER_LIMIT.
 */
export const PRESENCE_EVENTS_USER_LIMIT = 100;

/** Clients time out a GET /events after this; above the heartbeat interval. */
export const EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS = 90;

/** Items one request may carry where the reference sets no limit of its own (issue #17); beyond them the request is
 *  refused with a 400 envelope. */
export const REQUEST_LIMITS = {
  /** Recipients of one direct message (or draft). */
  directRecipients: 1000,
  /** Channels named in one subscribe or unsubscribe call, and of those, channels one call may create. */
  subscribeChannels: 500,
  createdChannels: 100,
  /** Users named as principals (or subscribers of a new channel), and subscriptions one call may write (users × channels). */
  principals: 10_000,
  subscriptionPairs: 100_000,
  /** Property changes in one POST /users/me/subscriptions/properties, drafts in one POST /drafts, IDs in a reorder. */
  propertyChanges: 1000,
  drafts: 1000,
  reorderIds: 10_000,
  /** Characters of a navigation view's fragment and name. */
  navigationViewFragment: 1000,
  navigationViewName: 100,
} as const;
