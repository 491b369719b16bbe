// Every realm command of the people domain (users, groups, statuses, settings, presence, invitations, push, typing).
import type { CommandRegistry } from '../commands.js';
import { botCommands } from './bots.commands.js';
import { groupCommands } from './groups.commands.js';
import { inviteCommands } from './invites.js';
import { emailInviteCommands } from './email-invites.js';
import { presenceCommands } from './presence.js';
import { botStorageCommands } from './bot-storage.js';
import { mutedUserCommands } from './muted-users.js';
import { profileFieldCommands } from './profile-fields.commands.js';
import { pushCommands } from './push.js';
import { settingsCommands } from './settings.commands.js';
import { statusCommands } from './status.js';
import { typingCommands } from './typing.js';
import { userCommands } from './users.commands.js';

export const peopleCommands = {
  ...userCommands,
  ...groupCommands,
  ...statusCommands,
  ...settingsCommands,
  ...presenceCommands,
  ...inviteCommands,
  ...emailInviteCommands,
  ...pushCommands,
  ...typingCommands,
  ...profileFieldCommands,
  ...mutedUserCommands,
  ...botStorageCommands,
  ...botCommands,
} satisfies CommandRegistry;
