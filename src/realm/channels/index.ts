// The channels domain's realm commands, for the registry.
import type { CommandRegistry } from '../commands.js';
import { createCommands } from './create.commands.js';
import { defaultChannelCommands } from './default-channels.js';
import { folderCommands } from './folders.commands.js';
import { propertyCommands } from './properties.commands.js';
import { subscriptionCommands } from './subscriptions.commands.js';
import { topicCommands } from './topics.commands.js';
import { updateCommands } from './update.commands.js';

export const channelCommands = {
  ...createCommands,
  ...subscriptionCommands,
  ...propertyCommands,
  ...updateCommands,
  ...folderCommands,
  ...defaultChannelCommands,
  ...topicCommands,
} satisfies CommandRegistry;
