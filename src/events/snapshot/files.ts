// Snapshot sections of the files domain: the realm's custom emoji.
import { realmEmojiDict } from '../../realm/files/emoji.js';
import type { Section } from './types.js';

export const filesSections: Record<string, Section> = {
  realm_emoji: ({ state }) => ({ realm_emoji: realmEmojiDict(state) }),
};
