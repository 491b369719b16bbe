// Topic-level writes: a user's visibility policy for a topic, deleting a topic's messages in batches
// (run by the topic-deletion actor), and removing messages past their retention period (the retention actor).
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import { actor, requireAdmin } from '../access/roles.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import { visibleChannel } from '../access/channels.js';
import { streamUpdate } from './events.js';
import { messagesDeleted } from '../messages/delete.js';
import { userTopicEvent } from '../messages/visibility.js';
import { activeSubscriberIds } from './format.js';
import type { Channel } from '../../model/channels.js';

export interface SetUserTopicInput {
  userId: number;
  channelId: number;
  /** Already normalized (normalizeTopic). */
  topic: string;
  policy: number;
}

interface UserTopicResult extends SetUserTopicInput {
  changed: boolean;
  lastUpdated: number;
}

const setUserTopic: CommandDef<SetUserTopicInput, SetUserTopicInput, UserTopicResult> = {
  batchable: true,
  check(state, input) {
    const user = actor(state, input.userId);
    // Clearing a policy needs only the channel to exist; setting one needs access to its topics.
    if (input.policy === 0) {
      if (!state.channels.byId.has(input.channelId)) throw errors.invalidChannelId();
    } else visibleChannel(state, user, input.channelId, 'content');
    return input;
  },
  async write(t, plan) {
    const current = await t.userTopics.policy(plan.userId, plan.channelId, plan.topic);
    const now = new Date();
    if (current === plan.policy) return { ...plan, changed: false, lastUpdated: Math.floor(now.getTime() / 1000) };
    await t.userTopics.set(plan.userId, plan.channelId, plan.topic, plan.policy, now);
    return { ...plan, changed: true, lastUpdated: Math.floor(now.getTime() / 1000) };
  },
  events(state, r) {
    if (!r.changed) return [];
    return [userTopicEvent(state, r)];
  },
};

/** The first_message_id update after a channel's oldest messages went away. */
function firstMessageEvents(state: RealmState, channelId: number, before: number | null): RealmEvent[] {
  const ch = state.channels.byId.get(channelId);
  if (!ch || ch.firstMessageId === before) return [];
  return [streamUpdate(state, ch, 'first_message_id', ch.firstMessageId)];
}

export interface DeleteTopicBatchInput {
  actorId: number;
  channelId: number;
  topic: string;
  batchSize: number;
}

export interface DeletedBatch {
  channelId: number;
  topic: string;
  messageIds: number[];
  firstMessageIdBefore: number | null;
  firstMessageId: number | null;
}

/** Deletes up to batchSize of a topic's messages, newest first. */
const deleteTopicBatch: CommandDef<DeleteTopicBatchInput, { ch: Channel; input: DeleteTopicBatchInput; receivedBy: number | null }, DeletedBatch> = {
  check(state, input) {
    const user = actor(state, input.actorId);
    requireAdmin(user);
    const ch = visibleChannel(state, user, input.channelId, 'content');
    // With protected history an administrator deletes only what they could read.
    const receivedBy = ch.inviteOnly && !ch.historyPublicToSubscribers ? user.id : null;
    return { ch, input, receivedBy };
  },
  async write(t, { ch, input, receivedBy }) {
    const ids = await t.channels.topicMessageIds(ch.id, input.topic, input.batchSize, receivedBy);
    await t.channels.deleteMessages(ids);
    const first = ids.length > 0 && ch.firstMessageId !== null && ids.includes(ch.firstMessageId) ? await t.channels.firstMessageId(ch.id) : ch.firstMessageId;
    return { channelId: ch.id, topic: input.topic, messageIds: ids, firstMessageIdBefore: ch.firstMessageId, firstMessageId: first };
  },
  apply(state, r) {
    const ch = state.channels.byId.get(r.channelId);
    if (ch && r.firstMessageId !== ch.firstMessageId) state.channels.putChannel({ ...ch, firstMessageId: r.firstMessageId });
  },
  events(state, r) {
    if (r.messageIds.length === 0) return [];
    const deleted = messagesDeleted(state, { channelId: r.channelId, topic: r.topic }, r.messageIds, activeSubscriberIds(state, r.channelId));
    return [deleted, ...firstMessageEvents(state, r.channelId, r.firstMessageIdBefore)];
  },
};

export interface RetentionResult {
  deleted: number;
  channels: { channelId: number; firstMessageIdBefore: number | null; firstMessageId: number | null }[];
}

/** The retention period of a channel in days; null keeps forever. */
export function retentionDays(state: RealmState, ch: Channel): number | null {
  const days = ch.messageRetentionDays ?? realmSetting(state, 'message_retention_days');
  return typeof days === 'number' && days > 0 ? days : null;
}

/** Deletes up to batchSize messages past their retention period (channel messages, then direct messages). */
const retentionBatch: CommandDef<{ batchSize: number }, { batchSize: number }, RetentionResult> = {
  check: (_state, input) => input,
  async write(t, { batchSize }, state) {
    const result: RetentionResult = { deleted: 0, channels: [] };
    for (const ch of state.channels.byId.values()) {
      const days = retentionDays(state, ch);
      if (days === null || result.deleted >= batchSize) continue;
      const ids = await t.channels.expiredMessageIds(ch.id, days, batchSize - result.deleted);
      if (ids.length === 0) continue;
      await t.channels.deleteMessages(ids);
      result.deleted += ids.length;
      result.channels.push({ channelId: ch.id, firstMessageIdBefore: ch.firstMessageId, firstMessageId: await t.channels.firstMessageId(ch.id) });
    }
    const realmDays = realmSetting(state, 'message_retention_days');
    if (typeof realmDays === 'number' && realmDays > 0 && result.deleted < batchSize) {
      const ids = await t.channels.expiredDirectMessageIds(state.realm.id, realmDays, batchSize - result.deleted);
      await t.channels.deleteMessages(ids);
      result.deleted += ids.length;
    }
    return result;
  },
  apply(state, r) {
    for (const c of r.channels) {
      const ch = state.channels.byId.get(c.channelId);
      if (ch) state.channels.putChannel({ ...ch, firstMessageId: c.firstMessageId, lastMessageAt: c.firstMessageId === null ? null : ch.lastMessageAt });
    }
  },
  events: (state, r) => r.channels.flatMap((c) => firstMessageEvents(state, c.channelId, c.firstMessageIdBefore)),
};

export const topicCommands = { 'userTopics.set': setUserTopic, 'topics.deleteBatch': deleteTopicBatch, 'messages.expireBatch': retentionBatch };
