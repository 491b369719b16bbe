// Realm commands on a user's saved snippets: create, edit (title and/or content), delete.
import type { RealmEvent, SavedSnippetEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { SavedSnippet } from '../../model/drafts.js';
import type { CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';

/** Zulip's SavedSnippet.MAX_TITLE_LENGTH. */
export const SNIPPET_TITLE_MAX = 60;

function cleanField(value: string, field: 'Title' | 'Content'): string {
  const v = value.trim();
  if (v.length === 0) throw errors.snippetFieldEmpty(field);
  return v;
}

const snippetEvent = (userId: number, event: SavedSnippetEvent): RealmEvent => ({ event, users: [userId] });

type CreatePlan = { userId: number; title: string; content: string };

const createSnippet: CommandDef<CreatePlan, CreatePlan, SavedSnippet> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    return { userId: input.userId, title: cleanField(input.title, 'Title'), content: cleanField(input.content, 'Content') };
  },
  write: (t, p, state) => t.savedSnippets.insert(state.realm.id, p.userId, p.title, p.content),
  events: (_state, s) => [snippetEvent(s.userId, { kind: 'saved_snippet', op: 'add', snippet: s })],
};

type EditInput = { userId: number; snippetId: number; title?: string; content?: string };

const editSnippet: CommandDef<EditInput, EditInput, SavedSnippet> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    if (input.title === undefined && input.content === undefined) throw errors.noNewValues();
    return {
      ...input,
      title: input.title === undefined ? undefined : cleanField(input.title, 'Title'),
      content: input.content === undefined ? undefined : cleanField(input.content, 'Content'),
    };
  },
  async write(t, p) {
    const s = await t.savedSnippets.update(p.userId, p.snippetId, { title: p.title, content: p.content });
    if (!s) throw errors.snippetNotFound();
    return s;
  },
  events: (_state, s) => [snippetEvent(s.userId, { kind: 'saved_snippet', op: 'update', snippet: s })],
};

type DeletePlan = { userId: number; snippetId: number };

const deleteSnippet: CommandDef<DeletePlan, DeletePlan, DeletePlan> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    return input;
  },
  async write(t, p) {
    if (!(await t.savedSnippets.delete(p.userId, p.snippetId))) throw errors.snippetNotFound();
    return p;
  },
  events: (_state, p) => [snippetEvent(p.userId, { kind: 'saved_snippet', op: 'remove', snippetId: p.snippetId })],
};

export const snippetCommands = {
  'savedSnippets.create': createSnippet,
  'savedSnippets.edit': editSnippet,
  'savedSnippets.delete': deleteSnippet,
};
