// Every realm command the server runs, by name (`noun.verb`). Each domain adds its commands here with one line.
// The registry is declared with `satisfies`, so its type keeps every command's input and result: dispatch is typed
// by kind from it (CommandInput, CommandResult).
import type { CommandRegistry, InputOf, ResultOf } from './commands.js';
import { channelCommands } from './channels/index.js';
import { coreCommands } from './commands.js';
import { filesCommands } from './files/index.js';
import { messageCommands } from './messages/index.js';
import { peopleCommands } from './people/index.js';
import { draftsCommands } from './drafts/index.js';
import { scheduledCommands } from './scheduled/index.js';
import { adminCommands } from './admin/index.js';

export const realmCommands = {
  ...coreCommands,
  ...filesCommands,
  ...channelCommands,
  ...peopleCommands,
  ...messageCommands,
  ...draftsCommands,
  ...scheduledCommands,
  ...adminCommands,
} satisfies CommandRegistry;

export type RealmCommands = typeof realmCommands;

/** A realm command's name. */
export type CommandKind = keyof RealmCommands;

/** What command `K` takes. */
export type CommandInput<K extends CommandKind> = InputOf<RealmCommands, K>;

/** What the caller of command `K` gets back. */
export type CommandResult<K extends CommandKind> = ResultOf<RealmCommands, K>;
