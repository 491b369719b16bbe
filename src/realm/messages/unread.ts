// The unread_msgs structure of the register snapshot, and the message_details of update_message_flags events
// that mark messages unread (both from the viewer's rows in the store).
import type { Repos } from '../../persistence/db.js';
import type { StoredMessage, UnreadRow } from '../../model/messages.js';
import { FLAG_BITS } from '../../narrow/index.js';
import type { RealmState } from '../state.js';
import { topicForClient } from '../topics.js';
import { isMutedFor, topicPolicies } from './narrow-context.js';

/** Zulip's MAX_UNREAD_MESSAGES. */
export const MAX_UNREAD_MESSAGES = 50_000;

const MENTION_BITS = FLAG_BITS.mentioned | FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned;

function push<K>(map: Map<K, number[]>, key: K, id: number): void {
  let list = map.get(key);
  if (!list) map.set(key, (list = []));
  list.push(id);
}

export async function unreadMessages(db: Repos, state: RealmState, userId: number, allowEmptyTopic: boolean, upTo?: number): Promise<Record<string, unknown>> {
  const rows = await db.userMessages.unread(userId, MAX_UNREAD_MESSAGES + 1, upTo);
  const missing = rows.length > MAX_UNREAD_MESSAGES;
  const kept: UnreadRow[] = missing ? rows.slice(1) : rows;
  const policies = topicPolicies(await db.userTopics.forUser(userId));
  const pms = new Map<number, number[]>();
  const huddles = new Map<string, number[]>();
  const streams = new Map<string, { stream_id: number; topic: string; unread_message_ids: number[] }>();
  const mentions: number[] = [];
  let count = 0;
  for (const r of kept) {
    if (r.kind === 'direct') {
      const others = r.directRecipients.filter((id) => id !== userId);
      if (others.length <= 1) push(pms, others[0] ?? userId, r.id);
      else push(huddles, r.directRecipients.join(','), r.id);
      count++;
      if (r.flags & MENTION_BITS) mentions.push(r.id);
      continue;
    }
    if (!state.channels.isSubscribed(userId, r.channelId!)) continue;
    const key = `${r.channelId}:${r.topic.toLowerCase()}`;
    let entry = streams.get(key);
    if (!entry) streams.set(key, (entry = { stream_id: r.channelId!, topic: topicForClient(state, r.topic, allowEmptyTopic), unread_message_ids: [] }));
    entry.unread_message_ids.push(r.id);
    const muted = isMutedFor(state, userId, r.channelId!, r.topic, policies);
    if (!muted) count++;
    if (r.flags & FLAG_BITS.mentioned || (r.flags & MENTION_BITS && !muted)) mentions.push(r.id);
  }
  return {
    pms: [...pms].map(([other, ids]) => ({ other_user_id: other, sender_id: other, unread_message_ids: ids })),
    streams: [...streams.values()],
    huddles: [...huddles].map(([key, ids]) => ({ user_ids_string: key, unread_message_ids: ids })),
    mentions,
    count,
    old_unreads_missing: missing,
  };
}

/**
 * message_details for messages just marked unread: what clients need to put them back in unread_msgs. The caller
 * has the messages and the user's flags already (marking read does not change the mention bits read here).
 */
export async function unreadDetails(
  db: Repos,
  state: RealmState,
  userId: number,
  messages: StoredMessage[],
  flags: ReadonlyMap<number, number>,
): Promise<Record<string, unknown>> {
  const policies = topicPolicies(await db.userTopics.forUser(userId));
  const out: Record<string, unknown> = {};
  for (const m of messages) {
    const mentioned = ((flags.get(m.id) ?? 0) & MENTION_BITS) !== 0;
    if (m.kind === 'direct') {
      const others = m.directRecipients.filter((id) => id !== userId);
      out[m.id] = { type: 'private', ...(mentioned ? { mentioned } : {}), user_ids: others };
    } else {
      const unmuted = !isMutedFor(state, userId, m.channelId!, m.topic, policies);
      out[m.id] = { type: 'stream', ...(mentioned ? { mentioned } : {}), stream_id: m.channelId, topic: m.topic, unmuted_stream_msg: unmuted };
    }
  }
  return out;
}

/** recent_private_conversations: the viewer's direct conversations, newest first, other participants only. */
export async function recentConversations(db: Repos, userId: number, upTo?: number): Promise<Record<string, unknown>[]> {
  const rows = await db.userMessages.recentDirectConversations(userId, 1000, upTo);
  return rows.map((r) => ({ max_message_id: r.maxId, user_ids: r.members.filter((id) => id !== userId) }));
}
