// Messages: send (POST /messages), read (GET /messages, GET /messages/{id}), render, matches_narrow and
// edit history.
import { clientNameFrom } from '../../events/registration.js';
import { LIMITS } from '../../limits.js';
import { realmSetting } from '../../realm/realm-settings.js';
import { accessMessage } from '../../realm/access/messages.js';
import { editHistoryForClient } from '../../realm/messages/edit-history.js';
import { flagNames, formatMessage, HISTORICAL_DEFAULT } from '../../realm/messages/format.js';
import { checkedRange, fetchRange, HistoryQuery, MAX_MESSAGES_PER_FETCH } from '../../realm/messages/history.js';
import { matchingMessages } from '../../realm/messages/matches.js';
import { resolveForViewer } from '../../realm/messages/narrow-context.js';
import { presentRows, reactionsByMessage, searchWords } from '../../realm/messages/present.js';
import { renderAs } from '../../realm/messages/render.js';
import { accessWebPublicMessage, SPECTATOR_FLAGS } from '../../realm/messages/spectator.js';
import { endpoint, type Endpoint, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { withFetchSlot } from '../large-fetches.js';
import { bool, enumOf, int, json, list, optional, required, str, withDefault } from '../../params.js';
import { requestRealmUrl, viewer } from '../context.js';

/** Image-preview data for rendering `content` in the request's realm (see Thumbnailer.renderData). */
function imageRenderData(ctx: RequestContext<'user'>, content: string) {
  return ctx.services.files.thumbnailer.renderData(ctx.realm.id, realmSetting(ctx.realm.state, 'inline_image_preview') === true, content);
}

const sendMessage = endpoint({
  method: 'POST',
  path: '/messages',
  auth: 'user',
  bots: 'all',
  params: {
    type: required(enumOf(['direct', 'private', 'stream', 'channel'] as const)),
    to: required(str({ allowNul: true })),
    content: required(str({ allowNul: true })),
    topic: optional(str({ allowNul: true }), ['subject']),
    queue_id: optional(str({ maxLength: 200 })),
    local_id: optional(str({ maxLength: 200 })),
    read_by_sender: optional(bool()),
  },
  async handle(ctx, p) {
    const images = await imageRenderData(ctx, p.content);
    const result = await ctx.realm.dispatch('messages.send', {
      senderId: ctx.user.id,
      type: p.type === 'direct' || p.type === 'private' ? 'direct' : 'stream',
      to: p.to,
      topic: p.topic,
      content: p.content,
      readBySender: p.read_by_sender,
      client: clientNameFrom(ctx.request.headers['user-agent']),
      queueId: p.queue_id,
      localId: p.local_id,
      realmUrl: requestRealmUrl(ctx),
      images,
    });
    ctx.services.files.thumbnailer.refreshPending(ctx.realm.id, images);
    const out: Record<string, unknown> = { id: result.message.id };
    if (result.visibility) out.automatic_new_visibility_policy = result.visibility.policy;
    return out;
  },
});

const getMessages = endpoint({
  method: 'GET',
  path: '/messages',
  auth: 'optional',
  params: {
    anchor: optional(str({ maxLength: 100 })),
    num_before: optional(int({ min: 0 })),
    num_after: optional(int({ min: 0 })),
    include_anchor: withDefault(bool(), true),
    narrow: withDefault(json(), [] as unknown),
    client_gravatar: withDefault(bool(), true),
    apply_markdown: withDefault(bool(), true),
    use_first_unread_anchor: withDefault(bool(), false),
    message_ids: optional(list(int({ min: 0 }), { maxItems: MAX_MESSAGES_PER_FETCH })),
    allow_empty_topic_name: withDefault(bool(), false),
  },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const db = ctx.services.db;
    // A spectator (null) reads web-public channels only, through a web-public narrow.
    const user = viewer(ctx);
    const narrow = await resolveForViewer(state, db, user, p.narrow ?? [], p.allow_empty_topic_name);
    const query = new HistoryQuery(state, user, narrow);
    const opts = { applyMarkdown: p.apply_markdown, clientGravatar: p.client_gravatar, allowEmptyTopic: p.allow_empty_topic_name };
    const words = searchWords(narrow);
    // Large fetches and heavy narrows are run a few at a time (src/http/large-fetches.ts).
    const slotKey = user ? `user:${user.id}` : `address:${ctx.request.remoteAddress}`;
    if (p.message_ids !== undefined) {
      const used = (['anchor', 'num_before', 'num_after'] as const).filter((k) => p[k] !== undefined);
      if (used.length > 0) throw errors.incompatibleParameters(['message_ids', ...used]);
      const ids = p.message_ids;
      return withFetchSlot(ctx.services.config, slotKey, ctx.conn, { messages: ids.length, narrow }, async () => {
        const rows = await query.byIds(db, ids);
        return { messages: await presentRows(db, state, rows, opts, words), history_limited: false };
      });
    }
    if (p.num_before === undefined) throw errors.missingArgument('num_before');
    if (p.num_after === undefined) throw errors.missingArgument('num_after');
    const range = checkedRange(p.anchor, p.num_before, p.num_after, p.include_anchor, p.use_first_unread_anchor);
    return withFetchSlot(ctx.services.config, slotKey, ctx.conn, { messages: p.num_before + p.num_after, narrow }, async () => {
      const r = await fetchRange(db, query, range);
      return {
        anchor: r.anchor,
        found_newest: r.foundNewest,
        found_oldest: r.foundOldest,
        found_anchor: r.foundAnchor,
        history_limited: r.historyLimited,
        messages: await presentRows(db, state, r.rows, opts, words),
      };
    });
  },
});

const getMessage = endpoint({
  method: 'GET',
  path: '/messages/{message_id}',
  auth: 'optional',
  params: {
    message_id: required(int({ min: 0 })),
    apply_markdown: withDefault(bool(), true),
    allow_empty_topic_name: withDefault(bool(), false),
  },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const user = viewer(ctx);
    const { message, flags } = user
      ? await accessMessage(ctx.services.db, state, user, p.message_id)
      : { message: await accessWebPublicMessage(ctx.services.db, state, p.message_id), flags: SPECTATOR_FLAGS };
    const reactions = (await reactionsByMessage(ctx.services.db, [message.id])).get(message.id) ?? [];
    const out = formatMessage(state, message, reactions, {
      applyMarkdown: p.apply_markdown,
      clientGravatar: false,
      allowEmptyTopic: p.allow_empty_topic_name,
    });
    out.flags = flagNames(flags ?? HISTORICAL_DEFAULT);
    return { raw_content: message.content, message: out };
  },
});

/** The longest valid render request: the content's code points as 4 UTF-8 bytes, each percent-encoded, and room. */
const RENDER_BODY_BYTES = LIMITS.max_message_length * 4 * 3 + 4096;

const renderMessage = endpoint({
  method: 'POST',
  path: '/messages/render',
  auth: 'user',
  // Bounded like a message (Zulip: max_length=MAX_MESSAGE_LENGTH), and rendered on the worker pool. A body
  // larger than the longest content percent-encoded is refused before it is read or parsed.
  maxBodyBytes: RENDER_BODY_BYTES,
  params: { content: required(str({ allowNul: true, maxLength: LIMITS.max_message_length })) },
  async handle(ctx, p) {
    const images = await imageRenderData(ctx, p.content);
    return { rendered: (await renderAs(ctx.realm.state, ctx.user, requestRealmUrl(ctx), p.content, images)).html };
  },
});

const matchesNarrow = endpoint({
  method: 'GET',
  path: '/messages/matches_narrow',
  auth: 'user',
  params: {
    msg_ids: required(list(int({ min: 0 }), { maxItems: MAX_MESSAGES_PER_FETCH })),
    narrow: required(json()),
  },
  async handle(ctx, p) {
    return { messages: await matchingMessages(ctx.services.db, ctx.realm.state, ctx.user, p.msg_ids, p.narrow) };
  },
});

const messageHistory = endpoint({
  method: 'GET',
  path: '/messages/{message_id}/history',
  auth: 'user',
  params: {
    message_id: required(int({ min: 0 })),
    allow_empty_topic_name: withDefault(bool(), false),
  },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    if (realmSetting(state, 'message_edit_history_visibility_policy') === 'none') throw errors.editHistoryDisabled();
    const { message } = await accessMessage(ctx.services.db, state, ctx.user, p.message_id);
    return { message_history: editHistoryForClient(state, message, p.allow_empty_topic_name) };
  },
});

const editMessage = endpoint({
  method: 'PATCH',
  path: '/messages/{message_id}',
  auth: 'user',
  params: {
    message_id: required(int({ min: 0 })),
    topic: optional(str({ allowNul: true }), ['subject']),
    propagate_mode: withDefault(enumOf(['change_one', 'change_later', 'change_all'] as const), 'change_one'),
    send_notification_to_old_thread: withDefault(bool(), false),
    send_notification_to_new_thread: withDefault(bool(), true),
    content: optional(str({ allowNul: true })),
    prev_content_sha256: optional(str({ maxLength: 64 })),
    stream_id: optional(int()),
  },
  async handle(ctx, p) {
    const images = p.content === undefined ? undefined : await imageRenderData(ctx, p.content);
    await ctx.realm.dispatch('messages.edit', {
      userId: ctx.user.id,
      messageId: p.message_id,
      content: p.content,
      prevContentSha256: p.prev_content_sha256,
      topic: p.topic,
      channelId: p.stream_id,
      propagateMode: p.propagate_mode,
      realmUrl: requestRealmUrl(ctx),
      images,
    });
    ctx.services.files.thumbnailer.refreshPending(ctx.realm.id, images);
    return {};
  },
});

const deleteMessage = endpoint({
  method: 'DELETE',
  path: '/messages/{message_id}',
  auth: 'user',
  params: { message_id: required(int({ min: 0 })) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('messages.delete', { userId: ctx.user.id, messageId: p.message_id });
    return {};
  },
});

export const messageEndpoints: Endpoint[] = [
  sendMessage,
  getMessages,
  getMessage,
  renderMessage,
  matchesNarrow,
  messageHistory,
  editMessage,
  deleteMessage,
];
