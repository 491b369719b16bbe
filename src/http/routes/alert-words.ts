// Alert words: GET, POST and DELETE /users/me/alert_words.
import type { AlertWordsResult } from '../../realm/messages/alert-words.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { list, required, str } from '../params.js';

const words = required(list(str({ maxLength: 1000 }), { maxItems: 1000 }));

const getAlertWords = endpoint({
  method: 'GET',
  path: '/users/me/alert_words',
  auth: 'user',
  params: {},
  handle(ctx) {
    return { alert_words: [...ctx.realm.state.messages.wordsOf(ctx.user.id)] };
  },
});

const addAlertWords = endpoint({
  method: 'POST',
  path: '/users/me/alert_words',
  auth: 'user',
  params: { alert_words: words },
  async handle(ctx, p) {
    const r = await ctx.realm.dispatch<AlertWordsResult>('changeAlertWords', { userId: ctx.user.id, op: 'add', words: p.alert_words });
    return { alert_words: r.words };
  },
});

const removeAlertWords = endpoint({
  method: 'DELETE',
  path: '/users/me/alert_words',
  auth: 'user',
  params: { alert_words: words },
  async handle(ctx, p) {
    const r = await ctx.realm.dispatch<AlertWordsResult>('changeAlertWords', { userId: ctx.user.id, op: 'remove', words: p.alert_words });
    return { alert_words: r.words };
  },
});

export const alertWordEndpoints: Endpoint[] = [getAlertWords, addAlertWords, removeAlertWords];
