// Every realm command of scheduled messages: editing them and delivering them.
import type { CommandRegistry } from '../commands.js';
import { deliveryCommands } from './deliver.commands.js';
import { scheduledCrudCommands } from './scheduled.commands.js';

export const scheduledCommands: CommandRegistry = {
  ...scheduledCrudCommands,
  ...deliveryCommands,
};
