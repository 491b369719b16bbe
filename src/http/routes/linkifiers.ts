// Linkifiers: GET /realm/linkifiers, POST /realm/filters, PATCH and DELETE /realm/filters/{filter_id},
// PATCH /realm/linkifiers (order).
import { formatLinkifiers } from '../../realm/messages/linkifiers.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { int, list, required, str } from '../../params.js';

const getLinkifiers = endpoint({
  method: 'GET',
  path: '/realm/linkifiers',
  auth: 'user',
  params: {},
  handle(ctx) {
    return { linkifiers: formatLinkifiers(ctx.realm.state.messages.linkifiers) };
  },
});

const addLinkifier = endpoint({
  method: 'POST',
  path: '/realm/filters',
  auth: 'user',
  params: { pattern: required(str()), url_template: required(str()) },
  async handle(ctx, p) {
    const r = await ctx.realm.dispatch('linkifiers.change', {
      userId: ctx.user.id,
      op: 'add',
      pattern: p.pattern,
      urlTemplate: p.url_template,
    });
    return { id: r.id };
  },
});

const updateLinkifier = endpoint({
  method: 'PATCH',
  path: '/realm/filters/{filter_id}',
  auth: 'user',
  params: { filter_id: required(int()), pattern: required(str()), url_template: required(str()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('linkifiers.change', { userId: ctx.user.id, op: 'update', id: p.filter_id, pattern: p.pattern, urlTemplate: p.url_template });
    return {};
  },
});

const removeLinkifier = endpoint({
  method: 'DELETE',
  path: '/realm/filters/{filter_id}',
  auth: 'user',
  params: { filter_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('linkifiers.change', { userId: ctx.user.id, op: 'remove', id: p.filter_id });
    return {};
  },
});

const reorderLinkifiers = endpoint({
  method: 'PATCH',
  path: '/realm/linkifiers',
  auth: 'user',
  params: { ordered_linkifier_ids: required(list(int(), { maxItems: 10_000 })) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('linkifiers.change', { userId: ctx.user.id, op: 'reorder', ids: p.ordered_linkifier_ids });
    return {};
  },
});

export const linkifierEndpoints: Endpoint[] = [getLinkifiers, addLinkifier, updateLinkifier, removeLinkifier, reorderLinkifiers];
