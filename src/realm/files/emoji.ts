// Custom emoji: the name rules, the API form, and the lookups and checks statuses, reactions and Markdown use.
import { errors } from '../../errors.js';
import { emojiByName, emojiCodeIsValid } from '../../markdown/index.js';
import type { RealmState } from '../state.js';
import type { CustomEmoji } from './files-state.js';

/** Emoji images are at most this large (the reference's MAX_EMOJI_FILE_SIZE_MIB). */
export const MAX_EMOJI_FILE_MIB = 5;

/** The stored form of a requested name: trimmed, lower case, spaces as underscores. */
export function normalizeEmojiName(raw: string): string {
  return raw.trim().replace(/ /g, '_').toLowerCase();
}

/** Lower-case letters, digits, `.`, `-` and `_`, ending with a letter or digit. */
export function checkEmojiName(name: string): void {
  if (name === '') throw errors.badRequest('Emoji name is missing');
  if (/^[0-9a-z._-]+$/.test(name)) {
    if (/[._-]$/.test(name)) throw errors.badRequest('Emoji names must end with either a letter or digit.');
    return;
  }
  throw errors.badRequest('Emoji names must contain only lowercase alphanumeric characters, dashes, underscores and periods.');
}

export function emojiImageUrl(realmId: number, fileName: string): string {
  return `/user_avatars/${realmId}/emoji/images/${encodeURIComponent(fileName)}`;
}

/** The API's RealmEmoji object. */
export function emojiRecord(realmId: number, e: CustomEmoji): Record<string, unknown> {
  return {
    id: String(e.id),
    name: e.name,
    source_url: emojiImageUrl(realmId, e.fileName),
    still_url: null,
    deactivated: e.deactivated,
    author_id: e.authorId,
  };
}

/** Every custom emoji of the realm, deactivated ones included, keyed by ID (register, events, GET /realm/emoji). */
export function realmEmojiDict(state: RealmState): Record<string, Record<string, unknown>> {
  const out: Record<string, Record<string, unknown>> = {};
  for (const e of state.files.emoji.values()) out[String(e.id)] = emojiRecord(state.realm.id, e);
  return out;
}

/** A custom emoji by the ID a client sends as emoji_code (for `realm_emoji` statuses and reactions); undefined when
 *  there is none. Deactivated emoji are returned: callers refuse them (see checkEmoji). */
export function customEmojiById(state: RealmState, id: string | number): CustomEmoji | undefined {
  const s = String(id);
  if (!/^\d{1,10}$/.test(s)) return undefined;
  return state.files.emoji.get(Number(s));
}

/** The active custom emoji of this name (Markdown's `:name:`). */
export function customEmojiByName(state: RealmState, name: string): CustomEmoji | undefined {
  return state.files.activeByName(name);
}


/** The special emoji of the `zulip_extra_emoji` namespace. */
const EXTRA_EMOJI = new Set(['zulip']);

/** Zulip's get_emoji_data: the code and type for a name (custom emoji first), or "Emoji '…' does not exist". */
export function emojiForName(state: RealmState, name: string): { code: string; type: string } {
  const custom = customEmojiByName(state, name);
  if (custom) return { code: String(custom.id), type: 'realm_emoji' };
  if (EXTRA_EMOJI.has(name)) return { code: name, type: 'zulip_extra_emoji' };
  const code = emojiByName(name);
  if (code === undefined) throw errors.reactionEmojiDoesNotExist(name);
  return { code, type: 'unicode_emoji' };
}

/** Zulip's check_emoji_request: name, code and type must agree. */
export function checkEmoji(state: RealmState, name: string, code: string, type: string): void {
  switch (type) {
    case 'unicode_emoji':
      if (!emojiCodeIsValid(code)) throw errors.invalidEmojiCode();
      if (emojiByName(name) !== code) throw errors.invalidEmojiName();
      return;
    case 'realm_emoji': {
      const custom = customEmojiById(state, code);
      if (!custom) throw errors.invalidCustomEmoji();
      if (custom.name !== name) throw errors.invalidCustomEmojiName();
      if (custom.deactivated) throw errors.customEmojiDeactivated();
      return;
    }
    case 'zulip_extra_emoji':
      if (!EXTRA_EMOJI.has(code)) throw errors.invalidEmojiCode();
      if (name !== code) throw errors.invalidEmojiName();
      return;
    default:
      throw errors.invalidEmojiType();
  }
}
