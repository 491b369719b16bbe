// Code playgrounds: POST /realm/playgrounds and DELETE /realm/playgrounds/{playground_id} (administrators).
import { MAX_PYGMENTS_LANGUAGE_LENGTH } from '../../realm/messages/playgrounds.js';
import { endpoint } from '../endpoint.js';
import { int, required, str } from '../../params.js';

export const addPlayground = endpoint({
  method: 'POST',
  path: '/realm/playgrounds',
  auth: 'user',
  params: {
    name: required(str({ maxLength: 1000 })),
    url_template: required(str({ maxLength: 1000 })),
    pygments_language: required(str({ maxLength: MAX_PYGMENTS_LANGUAGE_LENGTH })),
  },
  async handle(ctx, p) {
    const r = await ctx.realm.dispatch('playgrounds.add', {
      userId: ctx.user.id,
      name: p.name.trim(),
      pygmentsLanguage: p.pygments_language.trim(),
      urlTemplate: p.url_template.trim(),
    });
    return { id: r.id };
  },
});

export const removePlayground = endpoint({
  method: 'DELETE',
  path: '/realm/playgrounds/{playground_id}',
  auth: 'user',
  params: { playground_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('playgrounds.remove', { userId: ctx.user.id, id: p.playground_id });
    return {};
  },
});

export const playgroundEndpoints = [addPlayground, removePlayground];
