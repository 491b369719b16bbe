// Every realm command of the files domain (attachments and custom emoji), and what other domains use of it.
import type { CommandRegistry } from '../commands.js';
import { attachmentCommands } from './attachments.commands.js';
import { emojiCommands } from './emoji.commands.js';
import { thumbnailCommands } from './thumbnails.commands.js';

export { linkAttachments } from './attachment-links.js';
export { uploadPathIds } from './links.js';
export { checkEmoji, customEmojiById, customEmojiByName, emojiForName } from './emoji.js';

export const filesCommands = {
  ...attachmentCommands,
  ...emojiCommands,
  ...thumbnailCommands,
} satisfies CommandRegistry;
