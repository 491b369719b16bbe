// Saved snippets: list, create, edit and delete the user's snippets.
import { LIMITS } from '../../limits.js';
import { formatSnippet } from '../../realm/drafts/format.js';
import { SNIPPET_TITLE_MAX } from '../../realm/drafts/snippets.commands.js';
import { endpoint } from '../endpoint.js';
import { int, optional, required, str } from '../../params.js';

const title = str({ maxLength: SNIPPET_TITLE_MAX });
const content = str({ maxLength: LIMITS.max_message_length });

export const getSavedSnippets = endpoint({
  method: 'GET',
  path: '/saved_snippets',
  auth: 'user',
  params: {},
  async handle(ctx) {
    return { saved_snippets: (await ctx.services.db.savedSnippets.forUser(ctx.user.id)).map(formatSnippet) };
  },
});

export const createSavedSnippet = endpoint({
  method: 'POST',
  path: '/saved_snippets',
  auth: 'user',
  params: { title: required(title), content: required(content) },
  async handle(ctx, p) {
    const s = await ctx.realm.dispatch('savedSnippets.create', { userId: ctx.user.id, title: p.title, content: p.content });
    return { saved_snippet_id: s.id };
  },
});

export const editSavedSnippet = endpoint({
  method: 'PATCH',
  path: '/saved_snippets/{saved_snippet_id}',
  auth: 'user',
  params: { saved_snippet_id: required(int()), title: optional(title), content: optional(content) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('savedSnippets.edit', { userId: ctx.user.id, snippetId: p.saved_snippet_id, title: p.title, content: p.content });
    return {};
  },
});

export const deleteSavedSnippet = endpoint({
  method: 'DELETE',
  path: '/saved_snippets/{saved_snippet_id}',
  auth: 'user',
  params: { saved_snippet_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('savedSnippets.delete', { userId: ctx.user.id, snippetId: p.saved_snippet_id });
    return {};
  },
});

export const savedSnippetEndpoints = [getSavedSnippets, createSavedSnippet, editSavedSnippet, deleteSavedSnippet];
