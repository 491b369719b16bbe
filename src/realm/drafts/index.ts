// Every realm command of a user's compose aids: drafts, saved snippets and navigation views.
import type { CommandRegistry } from '../commands.js';
import { draftCommands } from './drafts.commands.js';
import { navigationViewCommands } from './navigation-views.commands.js';
import { snippetCommands } from './snippets.commands.js';

export const draftsCommands = {
  ...draftCommands,
  ...snippetCommands,
  ...navigationViewCommands,
} satisfies CommandRegistry;
