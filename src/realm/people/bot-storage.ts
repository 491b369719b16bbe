// Bot storage (bots only): a bot's own key-value entries, bounded by the reference's size limit. No events.
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { actor } from '../access/roles.js';

/** The reference's USER_STATE_SIZE_LIMIT: characters of keys and values one bot may store. */
export const BOT_STORAGE_LIMIT = 10_000_000;

export function storageBot(state: RealmState, userId: number): User {
  const user = actor(state, userId);
  if (!user.isBot) throw errors.mustBeBot();
  return user;
}

const chars = (s: string) => [...s].length;

const put: CommandDef<{ userId: number; entries: [string, string][] }, { userId: number; entries: [string, string][] }, void> = {
  batchable: true,
  check(state, input) {
    storageBot(state, input.userId);
    return input;
  },
  async write(t, p) {
    const added = p.entries.reduce((n, [k, v]) => n + chars(k) + chars(v), 0);
    const size = (await t.botStorage.size(p.userId, p.entries.map((e) => e[0]))) + added;
    if (size > BOT_STORAGE_LIMIT) {
      throw errors.botStorage(`Request exceeds storage limit by ${size - BOT_STORAGE_LIMIT} characters. The limit is ${BOT_STORAGE_LIMIT} characters.`);
    }
    await t.botStorage.put(p.userId, p.entries);
  },
};

/** Removes the entries of `keys` (all entries when null); all or nothing when a key is missing. */
const remove: CommandDef<{ userId: number; keys: string[] | null }, { userId: number; keys: string[] | null }, void> = {
  batchable: true,
  check(state, input) {
    storageBot(state, input.userId);
    return { userId: input.userId, keys: input.keys && [...new Set(input.keys)] };
  },
  async write(t, p) {
    const removed = await t.botStorage.remove(p.userId, p.keys);
    if (p.keys && removed < p.keys.length) throw errors.botStorage('Key does not exist.');
  },
};

export const botStorageCommands = { 'botStorage.put': put, 'botStorage.remove': remove };
