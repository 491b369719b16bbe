// Every realm command the server runs, by name. Each domain adds its commands here with one line.
import type { CommandRegistry } from './commands.js';
import { coreCommands } from './commands.js';

export const realmCommands: CommandRegistry = {
  ...coreCommands,
};
