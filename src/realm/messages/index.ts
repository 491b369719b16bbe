// The messages domain's realm commands, registered in src/realm/registry.ts.
import type { CommandRegistry } from '../commands.js';
import { markAsRead, updateFlags } from './flags.js';
import { sendMessage } from './send.js';

export const messageCommands: CommandRegistry = {
  sendMessage,
  updateFlags,
  markAsRead,
};
