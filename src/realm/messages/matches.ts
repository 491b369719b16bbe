// GET /messages/matches_narrow: which of the viewer's messages match a narrow, by the in-memory predicate (the
// same narrow compiled to SQL serves GET /messages), with search highlighting.
import { escapeHtml } from '../../markdown/escape.js';
import { compilePredicate } from '../../narrow/index.js';
import type { Db } from '../../persistence/db.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { resolveForViewer, toNarrowMessage, topicPolicies } from './narrow-context.js';
import { reactionsByMessage, searchHighlights, searchWords } from './present.js';

export async function matchingMessages(
  db: Db,
  state: RealmState,
  viewer: User,
  ids: number[],
  narrowRaw: unknown,
): Promise<Record<string, { match_content: string; match_subject: string }>> {
  const narrow = await resolveForViewer(state, db, viewer, narrowRaw);
  const flags = await db.userMessages.flagsFor(viewer.id, ids);
  const messages = await db.messages.byIds([...flags.keys()]);
  const reactions = await reactionsByMessage(db, messages.map((m) => m.id));
  const policies = topicPolicies(await db.userTopics.forUser(viewer.id));
  const matches = compilePredicate(narrow, viewer);
  const words = searchWords(narrow);
  const out: Record<string, { match_content: string; match_subject: string }> = {};
  for (const m of messages) {
    const nm = toNarrowMessage(state, viewer.id, m, flags.get(m.id)!, reactions.has(m.id), policies);
    if (!matches(nm)) continue;
    out[String(m.id)] = words
      ? searchHighlights(m.renderedContent, m.topic, words)
      : { match_content: m.renderedContent, match_subject: escapeHtml(m.topic) };
  }
  return out;
}
