// Every realm command the server runs, by name. Each domain adds its commands here with one line.
import type { CommandRegistry } from './commands.js';
import { channelCommands } from './channels/index.js';
import { coreCommands } from './commands.js';
import { filesCommands } from './files/index.js';
import { messageCommands } from './messages/index.js';
import { peopleCommands } from './people/index.js';
import { draftsCommands } from './drafts/index.js';
import { scheduledCommands } from './scheduled/index.js';
import { adminCommands } from './admin/index.js';

export const realmCommands: CommandRegistry = {
  ...coreCommands,
  ...filesCommands,
  ...channelCommands,
  ...peopleCommands,
  ...messageCommands,
  ...draftsCommands,
  ...scheduledCommands,
  ...adminCommands,
};
