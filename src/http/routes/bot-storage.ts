// Bot storage: GET, PUT and DELETE /bot_storage, a bot's own key-value entries (bots only, as in the reference).
import { BOT_STORAGE_LIMIT, storageBot } from '../../realm/people/bot-storage.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { dict, list, optional, required, str } from '../../params.js';

const MAX_KEYS = 10_000;
const keys = optional(list(str({ maxLength: BOT_STORAGE_LIMIT }), { maxItems: MAX_KEYS }));
/** An empty or absent list means every key (the reference's rule). */
const keysOrAll = (k: string[] | undefined) => (k && k.length > 0 ? k : null);

export const getBotStorage = endpoint({
  method: 'GET',
  path: '/bot_storage',
  auth: 'user',
  params: { keys },
  async handle(ctx, p) {
    const user = storageBot(ctx.realm.state, ctx.user.id);
    const wanted = keysOrAll(p.keys);
    const found = await ctx.services.db.botStorage.get(user.id, wanted);
    if (wanted && wanted.some((k) => !found.has(k))) throw errors.botStorage('Key does not exist.');
    return { storage: Object.fromEntries(found) };
  },
});

export const putBotStorage = endpoint({
  method: 'PUT',
  path: '/bot_storage',
  auth: 'user',
  params: { storage: required(dict(str({ maxLength: BOT_STORAGE_LIMIT }))) },
  async handle(ctx, p) {
    const entries = Object.entries(p.storage);
    if (entries.length > MAX_KEYS) throw errors.botStorage(`storage has too many entries (limit: ${MAX_KEYS})`);
    await ctx.realm.dispatch('botStorage.put', { userId: ctx.user.id, entries });
    return {};
  },
});

export const removeBotStorage = endpoint({
  method: 'DELETE',
  path: '/bot_storage',
  auth: 'user',
  params: { keys },
  async handle(ctx, p) {
    await ctx.realm.dispatch('botStorage.remove', { userId: ctx.user.id, keys: keysOrAll(p.keys) });
    return {};
  },
});

export const botStorageEndpoints = [getBotStorage, putBotStorage, removeBotStorage];
