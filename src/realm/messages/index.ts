// The messages domain's realm commands, registered in src/realm/registry.ts.
import type { CommandRegistry } from '../commands.js';
import { changeAlertWords } from './alert-words.js';
import { deleteMessage } from './delete.js';
import { editMessage } from './edit.js';
import { markAsRead, updateFlags } from './flags.js';
import { changeLinkifiers } from './linkifiers.js';
import { playgroundCommands } from './playgrounds.js';
import { reportCommands } from './report.js';
import { changeReaction } from './reactions.js';
import { sendMessage } from './send.js';

export const messageCommands = {
  'messages.send': sendMessage,
  'messages.edit': editMessage,
  'messages.delete': deleteMessage,
  'flags.update': updateFlags,
  'flags.markAllRead': markAsRead,
  'reactions.change': changeReaction,
  'alertWords.change': changeAlertWords,
  'linkifiers.change': changeLinkifiers,
  ...playgroundCommands,
  ...reportCommands,
} satisfies CommandRegistry;
