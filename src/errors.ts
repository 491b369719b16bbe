// The one error type of the API and the catalogue of errors it raises.
export class ApiError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number = 400,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

/** Why a write never ran, so that it may be sent again without repeating it: `fenced`, refused by the fencing check
 *  because this process no longer owns the realm; `refused`, turned away by a stopping realm actor. */
export type NotRun = 'fenced' | 'refused';

const notRunReasons = new WeakMap<ApiError, NotRun>();

/** Marks `err` as the error of a write that never ran, for `why`. */
export function notRun(why: NotRun, err: ApiError): ApiError {
  notRunReasons.set(err, why);
  return err;
}

/** Why the write that failed with `err` never ran, or undefined when it may have run (or is no such error). */
export function notRunReason(err: unknown): NotRun | undefined {
  return err instanceof ApiError ? notRunReasons.get(err) : undefined;
}

const BASIC_CHALLENGE = { 'WWW-Authenticate': 'Basic realm="palaver"' };
const BEARER_CHALLENGE = { 'WWW-Authenticate': 'Bearer realm="palaver-operator"' };

/** Every error the server answers with is built here, so codes, texts and statuses stay consistent. */
export const errors = {
  badRequest: (msg: string, extra: Record<string, unknown> = {}) => new ApiError('BAD_REQUEST', msg, 400, extra),
  missingArgument: (name: string) =>
    new ApiError('REQUEST_VARIABLE_MISSING', `Missing '${name}' argument`, 400, { var_name: name }),
  invalidParam: (msg: string) => new ApiError('BAD_REQUEST', msg, 400),
  noNewValues: () => new ApiError('BAD_REQUEST', 'Client did not pass any new values.', 400),
  insufficientPermission: () => new ApiError('BAD_REQUEST', 'Insufficient permission', 400),
  notFound: (msg = 'Not Found') => new ApiError('NOT_FOUND', msg, 404),
  endpointNotFound: () => new ApiError('NOT_FOUND', 'Not Found', 404),
  methodNotAllowed: (allowed: string[]) =>
    new ApiError('METHOD_NOT_ALLOWED', 'Method Not Allowed', 405, {}, { Allow: allowed.join(', ') }),
  bodyTooLarge: (limit: number) =>
    new ApiError('REQUEST_TOO_LARGE', `Request body is too large (limit: ${limit} bytes)`, 413),
  unsupportedMediaType: (type: string) =>
    new ApiError('BAD_REQUEST', `Unsupported content type: ${type}`, 415),
  malformedBody: (msg: string) => new ApiError('BAD_REQUEST', `Malformed request body: ${msg}`, 400),
  invalidSubdomain: () => new ApiError('INVALID_SUBDOMAIN', 'Invalid subdomain', 404),

  // Authentication (401 with a Basic challenge).
  notLoggedIn: () =>
    new ApiError('UNAUTHORIZED', 'Not logged in: API authentication or user session required', 401, {}, BASIC_CHALLENGE),
  basicAuthRequired: () =>
    new ApiError('UNAUTHORIZED', 'This endpoint requires HTTP basic authentication.', 401, {}, BASIC_CHALLENGE),
  invalidBasicHeader: () =>
    new ApiError('UNAUTHORIZED', 'Invalid authorization header for basic auth', 401, {}, BASIC_CHALLENGE),
  invalidApiKey: () => new ApiError('INVALID_API_KEY', 'Invalid API key', 401, {}, BASIC_CHALLENGE),
  userDeactivated: () => new ApiError('USER_DEACTIVATED', 'Account is deactivated', 401, {}, BASIC_CHALLENGE),
  realmDeactivated: () =>
    new ApiError('REALM_DEACTIVATED', 'This organization has been deactivated', 401, {}, BASIC_CHALLENGE),
  authenticationFailed: () =>
    new ApiError('AUTHENTICATION_FAILED', 'Your username or password is incorrect', 401),

  // Operators (metrics, actor inspection): the operator token as a Bearer credential.
  operatorTokenRequired: () =>
    new ApiError('UNAUTHORIZED', 'This endpoint requires the operator token (Authorization: Bearer).', 401, {}, BEARER_CHALLENGE),
  invalidOperatorToken: () => new ApiError('UNAUTHORIZED', 'Invalid operator token', 401, {}, BEARER_CHALLENGE),
  operatorAccessDisabled: () =>
    new ApiError('OPERATOR_ACCESS_DISABLED', 'Operator access is not configured on this server (OPERATOR_TOKEN).', 403),

  badEventQueueId: (queueId: string) =>
    new ApiError('BAD_EVENT_QUEUE_ID', `Bad event queue ID: ${queueId}`, 400, { queue_id: queueId }),
  anonymousParameter: (name: string) => new ApiError('BAD_REQUEST', `Invalid '${name}' parameter for anonymous request`, 400),

  // People and the organization.
  mustBeAdmin: () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization administrator', 400),
  mustBeOwner: () => new ApiError('UNAUTHORIZED_PRINCIPAL', 'Must be an organization owner', 400),
  noSuchUser: () => new ApiError('BAD_REQUEST', 'No such user', 400),
  invalidUserId: (id: number) => new ApiError('BAD_REQUEST', `Invalid user ID: ${id}`, 400),
  emailInUse: () => new ApiError('BAD_REQUEST', 'Email is already in use.', 400),
  cannotDeactivateOnlyOwner: () => new ApiError('BAD_REQUEST', 'Cannot deactivate the only organization owner', 400),
  cannotDeactivateLastUser: (isLastOwner: boolean) =>
    new ApiError(
      'CANNOT_DEACTIVATE_LAST_USER',
      isLastOwner ? 'Cannot deactivate the only organization owner' : 'Cannot deactivate the only user.',
      400,
      { entity: isLastOwner ? 'organization owner' : 'user', is_last_owner: isLastOwner },
    ),
  invalidUserGroup: () => new ApiError('BAD_REQUEST', 'Invalid user group', 400),
  groupInUse: (objections: Record<string, unknown>[]) =>
    new ApiError('CANNOT_DEACTIVATE_GROUP_IN_USE', 'Cannot deactivate user group in use.', 400, { objections }),
  noSuchInvitation: () => new ApiError('BAD_REQUEST', 'No such invitation', 400),
  invitationRevoked: () => new ApiError('BAD_REQUEST', 'Invitation has already been revoked', 400),
  // Email invitations (POST /invites): per-address reasons are [email, reason, is_deactivated] triples.
  notForGuests: () => new ApiError('BAD_REQUEST', 'Not allowed for guest users', 400),
  noInviteeEmails: () => new ApiError('BAD_REQUEST', 'You must specify at least one email address.', 400),
  invitationFailed: (msg: string, failures: [string, string, boolean][], opts: { sent: boolean; dailyLimit?: boolean }) =>
    new ApiError('INVITATION_FAILED', msg, 400, {
      errors: failures,
      sent_invitations: opts.sent,
      license_limit_reached: false,
      daily_limit_reached: opts.dailyLimit ?? false,
    }),
  pushServiceNotConfigured: () =>
    new ApiError('PUSH_SERVICE_NOT_CONFIGURED', 'Server is not configured to use push notification service.', 400),
  // Video calls: no BigBlueButton server is configured.
  bigBlueButtonNotConfigured: () => new ApiError('BAD_REQUEST', 'BigBlueButton is not configured.', 400),

  // Channels, subscriptions, folders and topics.
  invalidChannelId: () => new ApiError('BAD_REQUEST', 'Invalid channel ID', 400),
  invalidChannelName: (name: string) => new ApiError('BAD_REQUEST', `Invalid channel name '${name}'`, 400),
  channelDoesNotExist: (name: string) =>
    new ApiError('STREAM_DOES_NOT_EXIST', `Channel '${name}' does not exist`, 400, { stream: name }),
  channelExists: (name: string) => new ApiError('CHANNEL_ALREADY_EXISTS', `Channel '${name}' already exists`, 409),
  channelNameInUse: () => new ApiError('BAD_REQUEST', 'Channel name already in use.', 400),
  channelNameEmpty: () => new ApiError('BAD_REQUEST', "Channel name can't be empty.", 400),
  channelNameTooLong: (limit: number) => new ApiError('BAD_REQUEST', `Channel name too long (limit: ${limit} characters).`, 400),
  channelNameInvalidCharacter: (position: number) =>
    new ApiError('BAD_REQUEST', `Invalid character in channel name, at position ${position}.`, 400),
  cannotAdministerChannel: () => new ApiError('BAD_REQUEST', 'You do not have permission to administer this channel.', 400),
  channelAlreadyArchived: () => new ApiError('BAD_REQUEST', 'Channel is already deactivated', 400),
  channelArchived: () => new ApiError('BAD_REQUEST', 'Channel is archived.', 400),
  webPublicChannelsDisabled: () => new ApiError('BAD_REQUEST', 'Web-public channels are not enabled.', 400),
  privateChannelNotDefault: () => new ApiError('BAD_REQUEST', 'Private channels cannot be made default.', 400),
  archivedChannelNotDefault: () => new ApiError('BAD_REQUEST', 'Archived channels cannot be made default.', 400),
  webPublicChannelPrivate: () => new ApiError('BAD_REQUEST', 'A web-public channel cannot be private.', 400),
  nothingToDoForSubscriptions: () => new ApiError('BAD_REQUEST', 'Nothing to do. Specify at least one of "add" or "delete".', 400),
  emptyTopicOnlyNeedsEmptyTopic: () =>
    new ApiError(
      'BAD_REQUEST',
      'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.',
      400,
    ),
  badParamValue: (name: string, value: unknown) => new ApiError('BAD_REQUEST', `Bad value for '${name}': ${value}`, 400),
  groupSettingNotAllowed: (setting: string, group: string) =>
    new ApiError('BAD_REQUEST', `'${setting}' setting cannot be set to '${group}' group.`, 400),
  groupSettingOldMismatch: () => new ApiError('BAD_REQUEST', "'old' value does not match the expected value.", 400),
  unableToAccessChannel: (name: string) => new ApiError('BAD_REQUEST', `Unable to access channel (${name}).`, 400),
  notSubscribedToChannel: (id: number) => new ApiError('BAD_REQUEST', `Not subscribed to channel ID ${id}`, 400),
  unknownSubscriptionProperty: (property: string) => new ApiError('BAD_REQUEST', `Unknown subscription property: ${property}`, 400),
  invalidChannelFolderId: () => new ApiError('BAD_REQUEST', 'Invalid channel folder ID', 400),
  channelFolderNameEmpty: () => new ApiError('BAD_REQUEST', "Channel folder name can't be empty.", 400),
  channelFolderNameInUse: () => new ApiError('BAD_REQUEST', 'Channel folder name already in use', 400),
  channelFolderNotEmpty: () =>
    new ApiError('BAD_REQUEST', 'You need to remove all the channels from this folder to archive it.', 400),
  channelFolderOrderIncomplete: () =>
    new ApiError('BAD_REQUEST', 'Order must list the IDs of all the channel folders of the organization.', 400),
  incompatibleParameters: (names: string[]) =>
    new ApiError('BAD_REQUEST', `Unsupported parameter combination: ${names.join(', ')}`, 400),
  missingArgumentText: (name: string) => new ApiError('BAD_REQUEST', `Missing '${name}' argument`, 400),
  notAuthorizedForQuery: () => new ApiError('BAD_REQUEST', 'User not authorized for this query', 400),
  topicRequired: () => new ApiError('BAD_REQUEST', "Topic can't be empty!", 400),

  // Messages: sending, reading, flags, editing, deleting, reactions, linkifiers.
  messageEmpty: () => new ApiError('BAD_REQUEST', 'Message must not be empty', 400),
  messageNullBytes: () => new ApiError('BAD_REQUEST', 'Message must not contain null bytes', 400),
  missingTopic: () => new ApiError('BAD_REQUEST', 'Missing topic', 400),
  invalidTopicCharacter: (position: number) => new ApiError('BAD_REQUEST', `Invalid character in topic, at position ${position}!`, 400),
  topicsRequiredInChannel: () => new ApiError('BAD_REQUEST', 'Topics are required in this channel.', 400),
  topicsNotAllowed: (emptyTopicName: string) =>
    new ApiError('TOPICS_NOT_ALLOWED', `Only the ${emptyTopicName} topic is allowed in this channel.`, 400),
  noRecipients: () => new ApiError('BAD_REQUEST', 'Message must have recipients', 400),
  invalidRecipientEmail: (email: string) => new ApiError('BAD_REQUEST', `Invalid email '${email}'`, 400),
  invalidRecipientUserId: (id: number) => new ApiError('BAD_REQUEST', `Invalid user ID ${id}`, 400),
  mixedRecipients: () => new ApiError('BAD_REQUEST', 'Recipient lists may contain emails or user IDs, but not both.', 400),
  invalidRecipientsType: () => new ApiError('BAD_REQUEST', 'Invalid data type for recipients', 400),
  invalidChannelType: () => new ApiError('BAD_REQUEST', 'Invalid data type for channel', 400),
  expectedOneChannel: () => new ApiError('BAD_REQUEST', 'Expected exactly one channel', 400),
  recipientDeactivated: (email: string) => new ApiError('BAD_REQUEST', `'${email}' is no longer using Palaver.`, 400),
  channelIdDoesNotExist: (id: number) =>
    new ApiError('STREAM_DOES_NOT_EXIST', `Channel with ID '${id}' does not exist`, 400, { stream_id: id }),
  notAuthorizedToSend: (name: string) => new ApiError('BAD_REQUEST', `Not authorized to send to channel '${name}'`, 400),
  cannotPostInChannel: () => new ApiError('BAD_REQUEST', 'You do not have permission to post in this channel.', 400),
  streamWildcardNotAllowed: () =>
    new ApiError('STREAM_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use channel wildcard mentions in this channel.', 400),
  topicWildcardNotAllowed: () =>
    new ApiError('TOPIC_WILDCARD_MENTION_NOT_ALLOWED', 'You do not have permission to use topic wildcard mentions in this topic.', 400),
  cannotInitiateDirectMessages: () =>
    new ApiError('BAD_REQUEST', 'You do not have permission to initiate direct message conversations.', 400),
  directMessageNotAuthorized: () =>
    new ApiError('BAD_REQUEST', 'This conversation does not include any users who can authorize it.', 400),
  invalidMessage: () => new ApiError('BAD_REQUEST', 'Invalid message(s)', 400),
  tooManyMessagesRequested: (max: number) => new ApiError('BAD_REQUEST', `Too many messages requested (maximum ${max}).`, 400),
  invalidAnchor: () => new ApiError('BAD_REQUEST', 'Invalid anchor', 400),
  missingAnchor: () => new ApiError('BAD_REQUEST', "Missing 'anchor' argument.", 400),
  anchorExcludedInMiddle: () => new ApiError('BAD_REQUEST', 'The anchor can only be excluded at an end of the range', 400),
  noSuchTopic: (topic: string) => new ApiError('BAD_REQUEST', `No such topic '${topic}'`, 400),
  invalidFlag: (flag: string) => new ApiError('BAD_REQUEST', `Invalid flag: '${flag}'`, 400),
  flagNotEditable: (flag: string) => new ApiError('BAD_REQUEST', `Flag not editable: '${flag}'`, 400),
  editHistoryDisabled: () => new ApiError('BAD_REQUEST', 'Message edit history is disabled in this organization', 400),
  prevContentMismatch: () => new ApiError('BAD_REQUEST', "'prev_content_sha256' value does not match the expected value.", 400),
  nothingToChange: () => new ApiError('BAD_REQUEST', 'Nothing to change', 400),
  messageEditingDisabled: () => new ApiError('BAD_REQUEST', 'Your organization has turned off message editing', 400),
  cannotEditMessage: () => new ApiError('BAD_REQUEST', "You don't have permission to edit this message", 400),
  editTimeLimitPassed: () => new ApiError('BAD_REQUEST', 'The time limit for editing this message has past', 400),
  topicEmptyOnEdit: () => new ApiError('BAD_REQUEST', "Topic can't be empty", 400),
  propagateModeWithoutMove: () => new ApiError('BAD_REQUEST', 'Invalid propagate_mode without topic edit', 400),
  directMessageTopic: () => new ApiError('BAD_REQUEST', 'Direct messages cannot have topics.', 400),
  directMessageMove: () => new ApiError('BAD_REQUEST', 'Direct messages cannot be moved to channels.', 400),
  contentAndChannelEdit: () => new ApiError('BAD_REQUEST', 'Cannot change message content while changing channel', 400),
  cannotMoveMessage: () => new ApiError('BAD_REQUEST', "You don't have permission to move this message", 400),
  cannotResolveTopic: () => new ApiError('BAD_REQUEST', "You don't have permission to resolve topics in this channel.", 400),
  moveTimeLimitExceeded: (allowed: number, total: number, firstAllowed: number | null) =>
    new ApiError(
      'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      `You only have permission to move the ${allowed}/${total} most recent messages in this topic.`,
      400,
      { first_message_id_allowed_to_move: firstAllowed, total_messages_allowed_to_move: allowed, total_messages_in_topic: total },
    ),
  topicMoveTimeLimitPassed: () => new ApiError('BAD_REQUEST', "The time limit for editing this message's topic has passed.", 400),
  channelMoveTimeLimitPassed: () => new ApiError('BAD_REQUEST', "The time limit for editing this message's channel has passed.", 400),
  cannotDeleteMessage: () => new ApiError('BAD_REQUEST', "You don't have permission to delete this message", 400),
  deleteTimeLimitPassed: () => new ApiError('BAD_REQUEST', 'The time limit for deleting this message has passed', 400),
  reactionExists: () => new ApiError('BAD_REQUEST', 'Reaction already exists.', 400),
  reactionDoesNotExist: () => new ApiError('BAD_REQUEST', "Reaction doesn't exist.", 400),
  reactionEmojiDoesNotExist: (name: string) => new ApiError('BAD_REQUEST', `Emoji '${name}' does not exist`, 400),
  invalidEmojiCode: () => new ApiError('BAD_REQUEST', 'Invalid emoji code.', 400),
  invalidEmojiName: () => new ApiError('BAD_REQUEST', 'Invalid emoji name.', 400),
  invalidCustomEmoji: () => new ApiError('BAD_REQUEST', 'Invalid custom emoji.', 400),
  invalidCustomEmojiName: () => new ApiError('BAD_REQUEST', 'Invalid custom emoji name.', 400),
  customEmojiDeactivated: () => new ApiError('BAD_REQUEST', 'This custom emoji has been deactivated.', 400),
  invalidEmojiType: () => new ApiError('BAD_REQUEST', 'Invalid emoji type.', 400),
  reactionNeedsEmoji: () =>
    new ApiError('BAD_REQUEST', 'At least one of the following arguments must be present: emoji_name, emoji_code', 400),
  alertWordTooLong: (index: number, limit: number) =>
    new ApiError('BAD_REQUEST', `alert_words[${index}] is too long (limit: ${limit} characters)`, 400),
  linkifierInvalid: (field: 'pattern' | 'url_template' | '__all__', msg: string) =>
    new ApiError('BAD_REQUEST', msg, 400, { errors: { [field]: [msg] } }),
  linkifierNotFound: () => new ApiError('BAD_REQUEST', 'Linkifier not found.', 400),
  linkifierOrderDuplicates: () => new ApiError('BAD_REQUEST', 'The ordered list must not contain duplicated linkifiers', 400),
  linkifierOrderIncomplete: () =>
    new ApiError('BAD_REQUEST', 'The ordered list must enumerate all existing linkifiers exactly once', 400),

  // Drafts, saved snippets, navigation views and scheduled messages (a missing one is a 404 with BAD_REQUEST).
  draftsSyncDisabled: () => new ApiError('BAD_REQUEST', 'User has disabled synchronizing drafts.', 400),
  draftNotFound: () => new ApiError('BAD_REQUEST', 'Draft does not exist', 404),
  draftNeedsOneChannel: () => new ApiError('BAD_REQUEST', 'Must specify exactly 1 channel ID for channel messages', 400),
  nullBytes: (what: 'Topic' | 'Content') => new ApiError('BAD_REQUEST', `${what} must not contain null bytes`, 400),
  negativeTimestamp: () => new ApiError('BAD_REQUEST', 'Timestamp must not be negative.', 400),
  snippetNotFound: () => new ApiError('BAD_REQUEST', 'Saved snippet does not exist.', 404),
  snippetFieldEmpty: (field: 'Title' | 'Content') => new ApiError('BAD_REQUEST', `${field} cannot be empty.`, 400),
  navigationViewNotFound: () => new ApiError('BAD_REQUEST', 'Navigation view does not exist.', 404),
  navigationViewExists: () => new ApiError('BAD_REQUEST', 'Navigation view already exists.', 400),
  navigationViewBuiltInName: () => new ApiError('BAD_REQUEST', 'Built-in views cannot have a custom name.', 400),
  navigationViewNeedsName: () => new ApiError('BAD_REQUEST', 'Custom views must have a valid name.', 400),
  blankParam: (name: string) => new ApiError('BAD_REQUEST', `${name} cannot be blank`, 400),
  scheduledNotFound: () => new ApiError('BAD_REQUEST', 'Scheduled message does not exist', 404),
  scheduledAlreadySent: () => new ApiError('BAD_REQUEST', 'Scheduled message was already sent', 400),
  scheduledTimeInPast: () => new ApiError('BAD_REQUEST', 'Scheduled delivery time must be in the future.', 400),
  scheduledTypeNeedsTo: () => new ApiError('BAD_REQUEST', 'Recipient required when updating type of scheduled message.', 400),
  scheduledTypeNeedsTopic: () => new ApiError('BAD_REQUEST', 'Topic required when updating scheduled message type to channel.', 400),
  scheduledRecipientIds: () =>
    new ApiError('BAD_REQUEST', 'Scheduled messages take a channel ID or a list of user IDs, not names or email addresses.', 400),

  // Files, resumable uploads and custom emoji.
  fileTooLarge: (mib: number) => new ApiError('BAD_REQUEST', `Uploaded file is larger than the allowed limit of ${mib} MiB`, 413),
  invalidAttachment: () => new ApiError('BAD_REQUEST', 'Invalid attachment', 400),
  emojiDoesNotExist: (name: string) => new ApiError('BAD_REQUEST', `Emoji '${name}' does not exist`, 404),
  tusVersionUnsupported: () => new ApiError('BAD_REQUEST', 'Unsupported Tus-Resumable version', 412, {}, { 'Tus-Version': '1.0.0' }),
  /** Never sent (the client is gone): what a handler reading the body of an abandoned request sees. */
  clientClosedRequest: () => new ApiError('CLIENT_CLOSED_REQUEST', 'Client closed the request', 499),
  tusOffsetMismatch: (offset: number) => new ApiError('BAD_REQUEST', `Upload-Offset does not match the upload's offset (${offset})`, 409),

  // Limits of the HTTP layer (issue #17): slow or oversized requests, malformed heads.
  bodyStalled: (ms: number) => new ApiError('REQUEST_TIMEOUT', `No part of the request body arrived for ${ms / 1000} seconds`, 408),
  uriTooLong: (limit: number) => new ApiError('BAD_REQUEST', `Request URL is too long (limit: ${limit} bytes)`, 414),
  headersTooLarge: (limit: number) => new ApiError('BAD_REQUEST', `Request headers are too large (limit: ${limit} bytes)`, 431),
  narrowTooSlow: (ms: number) =>
    new ApiError('SERVICE_UNAVAILABLE', `The search took longer than ${ms / 1000} seconds and was cancelled; try a narrower search`, 503, {}, { 'Retry-After': '5' }),
  tooManyItems: (what: string, limit: number) => new ApiError('BAD_REQUEST', `Too many ${what} in one request (limit: ${limit})`, 400),
  duplicateHost: () => new ApiError('BAD_REQUEST', 'Request has more than one Host header', 400),

  // Endpoints real clients call (custom profile fields, muted users, read receipts, reports, reminders,
  // playgrounds, bot storage, legacy push tokens).
  notForBots: () => new ApiError('BAD_REQUEST', 'This endpoint does not accept bot requests.', 400),
  mustBeBot: () => new ApiError('BAD_REQUEST', 'Must be a bot user', 400),
  cannotMuteSelf: () => new ApiError('BAD_REQUEST', 'Cannot mute self', 400),
  alreadyMuted: () => new ApiError('BAD_REQUEST', 'User already muted', 400),
  notMuted: () => new ApiError('BAD_REQUEST', 'User is not muted', 400),
  readReceiptsDisabled: () => new ApiError('BAD_REQUEST', 'Read receipts are disabled in this organization.', 400),
  reportNeedsExplanation: () => new ApiError('BAD_REQUEST', 'An explanation is required.', 400),
  reportingDisabled: () => new ApiError('BAD_REQUEST', 'Moderation request channel must be specified to enable message reporting.', 400),
  reminderNotFound: () => new ApiError('BAD_REQUEST', 'Reminder does not exist', 404),
  reminderNoteTooLong: (max: number) => new ApiError('BAD_REQUEST', `Maximum reminder note length: ${max} characters`, 400),
  invalidPlayground: () => new ApiError('BAD_REQUEST', 'Invalid playground', 400),
  playgroundInvalid: (field: 'name' | 'pygments_language' | 'url_template' | '__all__', msg: string) =>
    new ApiError('BAD_REQUEST', msg, 400, { errors: { [field]: [msg] } }),
  botStorage: (msg: string) => new ApiError('BAD_REQUEST', msg, 400),
  pushTokenLength: () => new ApiError('BAD_REQUEST', 'Empty or invalid length token', 400),
  invalidApnsToken: () => new ApiError('BAD_REQUEST', 'Invalid APNS token', 400),
  pushTokenMissing: () => new ApiError('BAD_REQUEST', 'Token does not exist', 400),

  // Realm exports (#16, export lane).
  exportRateLimited: () => new ApiError('BAD_REQUEST', 'Exceeded rate limit.', 400),
  invalidExportId: () => new ApiError('BAD_REQUEST', 'Invalid data export ID', 400),
  exportAlreadyDeleted: () => new ApiError('BAD_REQUEST', 'Export already deleted', 400),
  exportFailed: () => new ApiError('BAD_REQUEST', 'Export failed, nothing to delete', 400),
  exportInProgress: () => new ApiError('BAD_REQUEST', 'Export still in progress', 400),
  rateLimited: (retryAfter: number) =>
    new ApiError('RATE_LIMIT_HIT', 'API usage exceeded rate limit', 429, { 'retry-after': retryAfter }),
  unavailable: (msg = 'Service temporarily unavailable') => new ApiError('SERVICE_UNAVAILABLE', msg, 503),
  shuttingDown: () => new ApiError('SERVICE_UNAVAILABLE', 'The server is shutting down', 503),
  /** Load shed: the server is too busy for this request now; the client may retry after the given seconds. */
  busy: (msg: string, retryAfterSeconds: number) =>
    new ApiError('SERVICE_UNAVAILABLE', msg, 503, {}, { 'Retry-After': String(retryAfterSeconds) }),
  internal: () => new ApiError('INTERNAL_SERVER_ERROR', 'Internal server error', 500),

  // Accounts and permissions (issue #17).
  passwordTooWeak: () => new ApiError('BAD_REQUEST', 'The password is too weak.', 400),
  cannotAccessRecipients: () => new ApiError('BAD_REQUEST', 'You do not have permission to access some of the recipients.', 400),

  // Markdown rendering on the worker pool: a render past its time limit (or failing) is abandoned, as Zulip's is.
  renderFailed: () => new ApiError('BAD_REQUEST', 'Unable to render message', 400),
  renderQueueFull: () => new ApiError('SERVICE_UNAVAILABLE', 'Too many messages are being rendered; try again shortly', 503, {}, { 'Retry-After': '1' }),

  // The image proxy (/external_content/): like camo, 403 for a URL this server did not sign, 404 when the image
  // cannot be had (upstream error, not an image, too large, too slow, a refused address).
  imageProxyBadSignature: () => new ApiError('BAD_REQUEST', 'Bad signature', 403),
  imageProxyFailed: (msg: string) => new ApiError('NOT_FOUND', msg, 404),
  // Bots (POST/PATCH /bots, and what a bot's requests may do), with the reference's texts.
  notForIncomingWebhookBots: () => new ApiError('BAD_REQUEST', 'This API is not available to incoming webhook bots.', 400),
  noSuchBot: () => new ApiError('BAD_REQUEST', 'No such bot', 400),
  badBotName: () => new ApiError('BAD_REQUEST', 'Bad name or username', 400),
  botUsernameInUse: () => new ApiError('BAD_REQUEST', 'Username already in use', 400),
  botNameInUse: () => new ApiError('BAD_REQUEST', 'Name is already in use!', 400),
  invalidBotType: () => new ApiError('BAD_REQUEST', 'Invalid bot type', 400),
  embeddedBotsDisabled: () => new ApiError('BAD_REQUEST', 'Embedded bots are not enabled.', 400),
  invalidInterfaceType: () => new ApiError('BAD_REQUEST', 'Invalid interface type', 400),
  botOwnerRefused: (why: string) => new ApiError('BAD_REQUEST', `Failed to change owner, ${why}`, 400),

  // Running the organization: PATCH /realm, its email domains, icon and logos.
  systemGroupRequired: (setting: string) => new ApiError('BAD_REQUEST', `'${setting}' must be a system user group.`, 400),
  invalidDomain: (reason: string) => new ApiError('BAD_REQUEST', `Invalid domain: ${reason}`, 400),
  domainExists: (domain: string) => new ApiError('BAD_REQUEST', `The domain ${domain} is already a part of your organization.`, 400),
  noSuchDomain: (domain: string) => new ApiError('BAD_REQUEST', `No entry found for domain ${domain}.`, 400),
  uploadExactlyOne: (what: 'icon' | 'logo') => new ApiError('BAD_REQUEST', `You must upload exactly one ${what}.`, 400),
} as const;
