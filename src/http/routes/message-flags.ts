// Personal message flags: POST /messages/flags, POST /messages/flags/narrow, and marking all, a channel or a
// topic as read.
import { visibleChannel } from '../../realm/access/channels.js';
import { editableFlagBit, type FlagsResult } from '../../realm/messages/flags.js';
import { checkedRange, fetchRange, HistoryQuery } from '../../realm/messages/history.js';
import { withFetchSlot } from '../large-fetches.js';
import { resolveForViewer } from '../../realm/messages/narrow-context.js';
import { normalizeTopic } from '../../realm/topics.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, enumOf, int, json, list, required, str, withDefault } from '../../params.js';

const op = required(enumOf(['add', 'remove'] as const));

/** Marking as unread skips channels the user is not subscribed to, and says which. */
function notSubscribedPart(r: FlagsResult): Record<string, unknown> {
  return r.flag === 'read' && r.op === 'remove' ? { ignored_because_not_subscribed_channels: r.ignoredChannels } : {};
}

function flagsReply(r: FlagsResult, requested: number[]): Record<string, unknown> {
  const ignored = new Set(r.ignored);
  return { messages: requested.filter((id) => !ignored.has(id)), ...notSubscribedPart(r) };
}

const updateFlags = endpoint({
  method: 'POST',
  path: '/messages/flags',
  auth: 'user',
  params: {
    messages: required(list(int({ min: 0 }), { maxItems: 100_000 })),
    op,
    flag: required(str({ maxLength: 100 })),
  },
  async handle(ctx, p) {
    const r = await ctx.realm.dispatch('flags.update', { userId: ctx.user.id, op: p.op, flag: p.flag, messages: p.messages });
    return flagsReply(r, p.messages);
  },
});

const updateFlagsForNarrow = endpoint({
  method: 'POST',
  path: '/messages/flags/narrow',
  auth: 'user',
  params: {
    anchor: required(str({ maxLength: 100 })),
    include_anchor: withDefault(bool(), true),
    num_before: required(int({ min: 0 })),
    num_after: required(int({ min: 0 })),
    narrow: withDefault(json(), [] as unknown),
    op,
    flag: required(str({ maxLength: 100 })),
  },
  async handle(ctx, p) {
    editableFlagBit(p.flag);
    const checked = checkedRange(p.anchor, p.num_before, p.num_after, p.include_anchor);
    const state = ctx.realm.state;
    const db = ctx.services.db;
    const narrow = await resolveForViewer(state, db, ctx.user, p.narrow ?? []);
    const fetch = { messages: checked.numBefore + checked.numAfter, narrow };
    const range = await withFetchSlot(ctx.services.config, `user:${ctx.user.id}`, ctx.conn, fetch, () =>
      fetchRange(db, new HistoryQuery(state, ctx.user, narrow), checked),
    );
    const ids = range.rows.map((r) => r.message.id);
    const r = await ctx.realm.dispatch('flags.update', { userId: ctx.user.id, op: p.op, flag: p.flag, messages: ids });
    return {
      processed_count: ids.length,
      updated_count: r.changed.length,
      first_processed_id: ids[0] ?? null,
      last_processed_id: ids.at(-1) ?? null,
      found_oldest: range.foundOldest,
      found_newest: range.foundNewest,
      ...notSubscribedPart(r),
    };
  },
});

const markAllAsRead = endpoint({
  method: 'POST',
  path: '/mark_all_as_read',
  auth: 'user',
  params: {},
  async handle(ctx) {
    await ctx.realm.dispatch('flags.markAllRead', { userId: ctx.user.id });
    return { complete: true };
  },
});

const markStreamAsRead = endpoint({
  method: 'POST',
  path: '/mark_stream_as_read',
  auth: 'user',
  params: { stream_id: required(int()) },
  async handle(ctx, p) {
    const ch = visibleChannel(ctx.realm.state, ctx.user, p.stream_id, 'content');
    await ctx.realm.dispatch('flags.markAllRead', { userId: ctx.user.id, channelId: ch.id });
    return {};
  },
});

const markTopicAsRead = endpoint({
  method: 'POST',
  path: '/mark_topic_as_read',
  auth: 'user',
  params: { stream_id: required(int()), topic_name: required(str({ maxLength: 200 })) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const ch = visibleChannel(state, ctx.user, p.stream_id, 'content');
    const topic = normalizeTopic(state, p.topic_name);
    if (topic !== '' && !(await ctx.services.db.userMessages.hasTopic(ctx.user.id, ch.id, topic))) throw errors.noSuchTopic(topic);
    await ctx.realm.dispatch('flags.markAllRead', { userId: ctx.user.id, channelId: ch.id, topic });
    return {};
  },
});

export const messageFlagEndpoints: Endpoint[] = [updateFlags, updateFlagsForNarrow, markAllAsRead, markStreamAsRead, markTopicAsRead];
