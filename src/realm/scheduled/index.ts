// Every realm command of scheduled messages and reminders: editing them and delivering them.
import type { CommandRegistry } from '../commands.js';
import { deliveryCommands } from './deliver.commands.js';
import { reminderCommands } from './reminders.js';
import { scheduledCrudCommands } from './scheduled.commands.js';

export const scheduledCommands = {
  ...scheduledCrudCommands,
  ...deliveryCommands,
  ...reminderCommands,
} satisfies CommandRegistry;
