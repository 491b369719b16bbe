// Every endpoint the server offers.
import type { Endpoint } from '../endpoint.js';
import { fetchApiKey } from './auth.js';
import { channelFolderEndpoints } from './channel-folders.js';
import { createChannel } from './channels.js';
import { defaultStreamEndpoints } from './default-streams.js';
import { streamEndpoints } from './streams.js';
import { subscriptionEndpoints } from './subscriptions.js';
import { topicEndpoints } from './topics.js';
import { userTopicEndpoints } from './user-topics.js';
import { deleteQueue, getEvents, register } from './events.js';
import { eventsSocket, eventsSocketTicket } from './events-socket.js';
import { emojiDataFile, serverSettings } from './server.js';
import { createBigBlueButtonCall } from './calls.js';
import { inviteEndpoints } from './invites.js';
import { alertWordEndpoints } from './alert-words.js';
import { linkifierEndpoints } from './linkifiers.js';
import { messageFlagEndpoints } from './message-flags.js';
import { reactionEndpoints } from './reactions.js';
import { messageEndpoints } from './messages.js';
import { presenceEndpoints } from './presence.js';
import { realmEmojiEndpoints } from './realm-emoji.js';
import { tusEndpoints } from './tus.js';
import { uploadEndpoints } from './uploads.js';
import { externalContent } from './external-content.js';
import { pushEndpoints } from './push.js';
import { settingsEndpoints } from './settings.js';
import { signupEndpoints } from './signup.js';
import { statusEndpoints } from './status.js';
import { typingEndpoints } from './typing.js';
import { userGroupEndpoints } from './user-groups.js';
import { userEndpoints } from './users.js';
import { draftEndpoints } from './drafts.js';
import { navigationViewEndpoints } from './navigation-views.js';
import { savedSnippetEndpoints } from './saved-snippets.js';
import { scheduledMessageEndpoints } from './scheduled-messages.js';
import { dashboardEndpoints } from './dashboard.js';
import { healthEndpoints } from './health.js';
import { operatorEndpoints } from './operators.js';
import { botEndpoints } from './bots.js';
import { realmAdminEndpoints } from './realm.js';
import { botStorageEndpoints } from './bot-storage.js';
import { channelEmailAddress } from './channel-email.js';
import { reportMessage } from './message-reports.js';
import { mutedUserEndpoints } from './muted-users.js';
import { playgroundEndpoints } from './playgrounds.js';
import { profileFieldEndpoints } from './profile-fields.js';
import { readReceipts } from './read-receipts.js';
import { reminderEndpoints } from './reminders.js';
import { realmExportEndpoints } from './realm-exports.js';

export const endpoints: Endpoint[] = [
  serverSettings,
  emojiDataFile,
  createBigBlueButtonCall,
  fetchApiKey,
  ...userEndpoints,
  ...botEndpoints,
  ...userGroupEndpoints,
  ...statusEndpoints,
  ...presenceEndpoints,
  ...uploadEndpoints,
  externalContent,
  ...tusEndpoints,
  ...realmEmojiEndpoints,
  ...realmExportEndpoints,
  ...settingsEndpoints,
  ...inviteEndpoints,
  ...messageEndpoints,
  ...messageFlagEndpoints,
  ...reactionEndpoints,
  ...alertWordEndpoints,
  ...linkifierEndpoints,
  ...signupEndpoints,
  ...pushEndpoints,
  ...typingEndpoints,
  register,
  getEvents,
  deleteQueue,
  eventsSocket,
  eventsSocketTicket,
  createChannel,
  ...streamEndpoints,
  ...subscriptionEndpoints,
  ...channelFolderEndpoints,
  ...defaultStreamEndpoints,
  ...userTopicEndpoints,
  ...topicEndpoints,
  ...draftEndpoints,
  ...savedSnippetEndpoints,
  ...navigationViewEndpoints,
  ...scheduledMessageEndpoints,
  ...healthEndpoints,
  ...operatorEndpoints,
  ...dashboardEndpoints,
  ...realmAdminEndpoints,
  ...profileFieldEndpoints,
  ...mutedUserEndpoints,
  readReceipts,
  reportMessage,
  ...playgroundEndpoints,
  channelEmailAddress,
  ...botStorageEndpoints,
  ...reminderEndpoints,
];
