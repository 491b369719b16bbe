// A user's topic preferences: POST /user_topics (visibility policy), PATCH /users/me/subscriptions/muted_topics.
import { hasContentAccess } from '../../realm/access/channels.js';
import type { SetUserTopicInput } from '../../realm/channels/topics.commands.js';
import { LIMITS } from '../../limits.js';
import { VISIBILITY_POLICY } from '../../model/channels.js';
import { normalizeTopic } from '../../realm/topics.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { enumOf, int, intEnum, optional, required, str } from '../../params.js';

const topicParam = required(str({ maxLength: LIMITS.max_topic_length }));

export const updateUserTopic = endpoint({
  method: 'POST',
  path: '/user_topics',
  auth: 'user',
  params: {
    stream_id: required(int()),
    topic: topicParam,
    visibility_policy: required(intEnum([0, 1, 2, 3] as const)),
  },
  async handle(ctx, p) {
    const input: SetUserTopicInput = {
      userId: ctx.user.id,
      channelId: p.stream_id,
      topic: normalizeTopic(ctx.realm.state, p.topic),
      policy: p.visibility_policy,
    };
    await ctx.realm.dispatch('userTopics.set', input);
    return {};
  },
});

/** Deprecated: mute (add) or unmute (remove) a topic of a channel named by ID or by name. */
export const muteTopic = endpoint({
  method: 'PATCH',
  path: '/users/me/subscriptions/muted_topics',
  auth: 'user',
  params: {
    stream_id: optional(int()),
    stream: optional(str()),
    topic: topicParam,
    op: required(enumOf(['add', 'remove'] as const)),
  },
  async handle(ctx, p) {
    if (p.stream_id === undefined && p.stream === undefined) throw errors.missingArgumentText('stream_id');
    if (p.stream_id !== undefined && p.stream !== undefined) throw errors.incompatibleParameters(['stream_id', 'stream']);
    const state = ctx.realm.state;
    let channelId = p.stream_id;
    if (p.stream !== undefined) {
      const ch = state.channels.channelByName(p.stream.trim());
      if (!ch || (p.op === 'add' && !hasContentAccess(state, ctx.user, ch))) throw errors.invalidChannelName(p.stream);
      channelId = ch.id;
    }
    const input: SetUserTopicInput = {
      userId: ctx.user.id,
      channelId: channelId!,
      topic: normalizeTopic(state, p.topic),
      policy: p.op === 'add' ? VISIBILITY_POLICY.MUTED : VISIBILITY_POLICY.INHERIT,
    };
    await ctx.realm.dispatch('userTopics.set', input);
    return {};
  },
});

export const userTopicEndpoints = [updateUserTopic, muteTopic];
