// The `/with/<id>` of a topic link (`#**channel>topic**`), as the reference computes it: the newest message of the
// topic (names compared case-insensitively) that the author can read — any of the topic's messages in a channel
// whose history is public to subscribers, else only those the author received. None (a link without `/with/`) for a
// topic with no such message, a channel whose content the author cannot read, or a private history and no author.
// Answered from the database, batched per render round (the render pool's batched lookups), never on the actor.
import type { BatchedLookups } from '../../render-pool/index.js';
import { hasContentAccess } from '../access/channels.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';

/** Topics looked up per render round at most; links past these go without `/with/`. */
export const MAX_TOPIC_PERMALINKS = 100;

/** The batched `topicLatestMessageId` lookup for rendering as `author` (none when the state has no database). */
export function topicPermalinkLookups(state: RealmState, author: User | null): BatchedLookups {
  const db = state.reads;
  if (!db) return {};
  return {
    async topicLatestMessageId(keys) {
      const asked: { key: unknown; channelId: number; topic: string; userId: number | null }[] = [];
      for (const key of keys.slice(0, MAX_TOPIC_PERMALINKS)) {
        const newline = typeof key === 'string' ? key.indexOf('\n') : -1;
        if (newline < 0) continue;
        const ch = state.channels.byId.get(Number((key as string).slice(0, newline)));
        // With no author (server-written text) only public channels are looked up: nobody's access to vouch for.
        if (!ch || (author ? !hasContentAccess(state, author, ch) : ch.inviteOnly)) continue;
        asked.push({ key, channelId: ch.id, topic: (key as string).slice(newline + 1), userId: ch.historyPublicToSubscribers ? null : author!.id });
      }
      const answers = new Map<unknown, unknown>();
      let ids: (number | null)[];
      try {
        ids = await db.messages.latestInTopics(asked);
      } catch {
        return answers; // a lookup that failed (or ran past the query timeout) costs the permalink only
      }
      asked.forEach((a, i) => ids[i] !== null && answers.set(a.key, ids[i]));
      return answers;
    },
  };
}
