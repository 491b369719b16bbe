// Topics of a channel: GET /users/me/{stream_id}/topics, POST /streams/{stream_id}/delete_topic.
import { topicDeletion, topicDeletionMachine } from '../../actors/topic-deletion.machine.js';
import { visibleChannel } from '../../realm/access/channels.js';
import { requireAdmin } from '../../realm/access/roles.js';
import { normalizeTopic, topicForClient } from '../../realm/topics.js';
import { endpoint } from '../endpoint.js';
import { bool, int, required, str, withDefault } from '../../params.js';
import { viewer } from '../context.js';

export const getTopics = endpoint({
  method: 'GET',
  path: '/users/me/{stream_id}/topics',
  auth: 'optional',
  params: { stream_id: required(int()), allow_empty_topic_name: withDefault(bool(), false) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const user = viewer(ctx);
    const ch = visibleChannel(state, user, p.stream_id, 'content');
    // With protected history, only topics of messages the user received.
    const receivedBy = user && ch.inviteOnly && !ch.historyPublicToSubscribers ? user.id : null;
    const topics = await ctx.services.db.channels.topics(ch.id, receivedBy);
    return { topics: topics.map((t) => ({ name: topicForClient(state, t.name, p.allow_empty_topic_name), max_id: t.maxId })) };
  },
});

export const deleteTopic = endpoint({
  method: 'POST',
  path: '/streams/{stream_id}/delete_topic',
  auth: 'user',
  params: { stream_id: required(int()), topic_name: required(str()) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    requireAdmin(ctx.user);
    const ch = visibleChannel(state, ctx.user, p.stream_id, 'content');
    const { config } = ctx.services;
    const realmId = ctx.realm.id;
    const out = await ctx.services.jobs.run(topicDeletionMachine, {
      id: `topicDeletion:${realmId}:${ch.id}`,
      input: topicDeletion({
        dispatch: (kind, input) => ctx.realm.dispatch(kind, input),
        realmId,
        actorId: ctx.user.id,
        channelId: ch.id,
        topic: normalizeTopic(state, p.topic_name),
        batchSize: config.topicDeletionBatchSize,
        timeBudgetMs: config.topicDeletionTimeBudgetMs,
        now: Date.now,
      }),
    });
    if (out.error) throw out.error;
    return { complete: out.complete };
  },
});

export const topicEndpoints = [getTopics, deleteTopic];
