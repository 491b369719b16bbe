// Drafts: list, create (several at once), replace and delete the user's server-side drafts.
import { draftsUser, type DraftInput } from '../../realm/drafts/drafts.commands.js';
import { formatDraft } from '../../realm/drafts/format.js';
import { endpoint } from '../endpoint.js';
import { REQUEST_LIMITS } from '../../limits.js';
import { errors } from '../../errors.js';
import { enumOf, int, list, object, optional, required, str, type ParamType } from '../../params.js';

/** A UNIX timestamp in seconds: an integer or a float (clients send either). */
function seconds(): ParamType<number> {
  const fromJson = (v: unknown, name: string): number => {
    if (typeof v !== 'number' || !Number.isFinite(v)) throw errors.invalidParam(`${name} is not a number`);
    return v;
  };
  return { fromRaw: (raw, name) => fromJson(Number(raw.trim() === '' ? NaN : raw), name), fromJson };
}

/** The Draft object; `id` is not part of it, so a client that sends one is refused. Null bytes are checked
 *  by the command, with the reference's messages. */
const draftObject = object({
  type: required(enumOf(['', 'stream', 'private'])),
  to: required(list(int(), { maxItems: REQUEST_LIMITS.directRecipients })),
  topic: required(str({ allowNul: true })),
  content: required(str({ allowNul: true })),
  timestamp: optional(seconds()),
});

export const getDrafts = endpoint({
  method: 'GET',
  path: '/drafts',
  auth: 'user',
  params: {},
  async handle(ctx) {
    const user = draftsUser(ctx.realm.state, ctx.user.id);
    const drafts = (await ctx.services.db.drafts.forUser(user.id)).map(formatDraft);
    return { count: drafts.length, drafts };
  },
});

export const createDrafts = endpoint({
  method: 'POST',
  path: '/drafts',
  auth: 'user',
  params: { drafts: optional(list(draftObject, { maxItems: REQUEST_LIMITS.drafts })) },
  async handle(ctx, p) {
    const created = await ctx.realm.dispatch('drafts.create', { userId: ctx.user.id, drafts: (p.drafts ?? []) as DraftInput[] });
    return { ids: created.map((d) => d.id) };
  },
});

export const editDraft = endpoint({
  method: 'PATCH',
  path: '/drafts/{draft_id}',
  auth: 'user',
  params: { draft_id: required(int()), draft: required(draftObject) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('drafts.edit', { userId: ctx.user.id, draftId: p.draft_id, draft: p.draft as DraftInput });
    return {};
  },
});

export const deleteDraft = endpoint({
  method: 'DELETE',
  path: '/drafts/{draft_id}',
  auth: 'user',
  params: { draft_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('drafts.delete', { userId: ctx.user.id, draftId: p.draft_id });
    return {};
  },
});

export const draftEndpoints = [getDrafts, createDrafts, editDraft, deleteDraft];
