// Messages read from the store, as a viewer receives them: with reactions, flags and search highlights.
import { highlight, type ResolvedTerm } from '../../narrow/index.js';
import type { Db } from '../../persistence/db.js';
import type { Reaction } from '../../model/messages.js';
import type { RealmState } from '../state.js';
import { flagNames, formatMessage, type FormatOptions } from './format.js';
import type { FoundRow } from './history.js';

export async function reactionsByMessage(db: Db, ids: number[]): Promise<Map<number, Reaction[]>> {
  const out = new Map<number, Reaction[]>();
  for (const r of await db.reactions.forMessages(ids)) {
    let list = out.get(r.messageId);
    if (!list) out.set(r.messageId, (list = []));
    list.push(r);
  }
  return out;
}

/** The search words of a narrow, when it has a search term. */
export function searchWords(narrow: readonly ResolvedTerm[]): string[] | null {
  const t = narrow.find((x) => x.op === 'search');
  return t && t.op === 'search' ? t.words : null;
}

/** The highlighted content and topic of a message for a search (match_content, match_subject). */
export function searchHighlights(renderedContent: string, topic: string, words: readonly string[]): { match_content: string; match_subject: string } {
  return { match_content: highlight(renderedContent, words, true), match_subject: highlight(topic, words, false) };
}

export async function presentRows(
  db: Db,
  state: RealmState,
  rows: FoundRow[],
  opts: FormatOptions,
  words: readonly string[] | null = null,
): Promise<Record<string, unknown>[]> {
  const reactions = await reactionsByMessage(db, rows.map((r) => r.message.id));
  return rows.map((r) => {
    const out = formatMessage(state, r.message, reactions.get(r.message.id) ?? [], opts);
    out.flags = flagNames(r.flags);
    if (words) Object.assign(out, searchHighlights(r.message.renderedContent, r.message.topic, words));
    return out;
  });
}
