// Alert words: GET, POST and DELETE /users/me/alert_words.
import { endpoint, type Endpoint } from '../endpoint.js';
import { list, required, str } from '../../params.js';

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

/** POST adds the words, DELETE removes them; both answer with the user's words after the change. */
function changeAlertWords(method: 'POST' | 'DELETE', op: 'add' | 'remove'): Endpoint {
  return endpoint({
    method,
    path: '/users/me/alert_words',
    auth: 'user',
    params: { alert_words: words },
    async handle(ctx, p) {
      const r = await ctx.realm.dispatch('alertWords.change', { userId: ctx.user.id, op, words: p.alert_words });
      return { alert_words: r.words };
    },
  });
}

const addAlertWords = changeAlertWords('POST', 'add');
const removeAlertWords = changeAlertWords('DELETE', 'remove');

export const alertWordEndpoints: Endpoint[] = [getAlertWords, addAlertWords, removeAlertWords];
