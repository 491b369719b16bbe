// Real-time events: POST /register (queue + snapshot), GET /events (long-poll), DELETE /events.
import { CLIENT_CAPABILITIES } from '../../bus/events.js';
import { capabilitiesFrom, clientNameFrom, type QueueRegistration } from '../../events/registration.js';
import { eventsReplyJson } from '../../events/reply-json.js';
import { buildSnapshot } from '../../events/snapshot/index.js';
import { batchedReads } from '../../persistence/read-batch.js';
import { serializeBody } from '../../events/snapshot/raw-json.js';
import { EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS, LIMITS } from '../../limits.js';
import { realmSetting } from '../../realm/realm-settings.js';
import { ROLE } from '../../model/realm.js';
import { versionFields } from '../../version.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, dict, enumOf, int, list, nullable, oneOf, optional, required, str, withDefault } from '../../params.js';
import { viewer } from '../context.js';

const includeSubscribersType = oneOf(bool(), enumOf(['partial'] as const));

export const register = endpoint({
  method: 'POST',
  path: '/register',
  auth: 'optional',
  // The user lists arrive serialized (RawJson) and are spliced in.
  serialize: serializeBody,
  params: {
    apply_markdown: withDefault(bool(), false),
    client_gravatar: optional(bool()),
    include_subscribers: withDefault(includeSubscribersType, false as boolean | 'partial'),
    slim_presence: withDefault(bool(), false),
    presence_history_limit_days: withDefault(int({ min: 0, max: 36500 }), 14),
    event_types: optional(nullable(list(str({ maxLength: 100 }), { maxItems: 200 }))),
    fetch_event_types: optional(nullable(list(str({ maxLength: 100 }), { maxItems: 200 }))),
    all_public_streams: withDefault(bool(), false),
    narrow: withDefault(list(list(str({ maxLength: 1000 }), { maxItems: 2 }), { maxItems: 50 }), []),
    client_capabilities: optional(dict(bool())),
  },
  async handle(ctx, p) {
    // A spectator (null) needs the same spectator access as every other spectator read, checked first as in Zulip.
    const user = viewer(ctx);
    if (!user) {
      if (p.client_gravatar === true) throw errors.anonymousParameter('client_gravatar');
      if (p.include_subscribers === true) throw errors.anonymousParameter('include_subscribers');
    }
    // Zulip's can_access_public_streams: guests (and spectators) may not follow every public channel.
    if (p.all_public_streams && (user === null || user.role === ROLE.GUEST)) throw errors.notAuthorizedForQuery();
    for (const pair of p.narrow) {
      if (pair.length !== 2) throw errors.invalidParam('narrow is not a list of [operator, operand] pairs');
    }
    const eventTypes = p.event_types ?? null;
    const registration: QueueRegistration = {
      eventTypes,
      narrow: p.narrow as [string, string][],
      allPublicStreams: p.all_public_streams,
      applyMarkdown: p.apply_markdown,
      clientGravatar: p.client_gravatar ?? user !== null,
      slimPresence: p.slim_presence,
      includeSubscribers: p.include_subscribers === 'partial' ? 'partial' : p.include_subscribers ? 'true' : 'false',
      capabilities: capabilitiesFrom(p.client_capabilities),
      clientName: clientNameFrom(ctx.request.headers['user-agent']),
    };
    const unknownCaps = Object.keys(p.client_capabilities ?? {}).filter((c) => !(CLIENT_CAPABILITIES as readonly string[]).includes(c));
    if (unknownCaps.length) throw errors.invalidParam(`Unknown client capabilities: ${unknownCaps.join(', ')}`);

    // The queue is created before the snapshot is taken, so no event between the two is lost. The snapshot shows the
    // messages the working set had then (their events were routed before the queue existed); the database may
    // already hold later ones, which reach the queue as events.
    const messagesUpTo = user ? ctx.realm.state.messages.lastId : Number.MAX_SAFE_INTEGER;
    const queueId = user ? ctx.services.router.create(ctx.realm.id, user.id, registration, messagesUpTo, ctx.realm.state.loadedAt) : null;
    const fetchTypes = p.fetch_event_types ?? eventTypes;
    // Asked once for the sections that read it (presence, and realm_user's idle users): a call to the realm's owner in
    // cluster mode.
    let presences: ReturnType<typeof ctx.services.presence.all> | undefined;
    const snapshot = await buildSnapshot(
      {
        state: ctx.realm.state,
        user,
        registration,
        db: batchedReads(ctx.services.db),
        config: ctx.services.config,
        presence: { all: () => (presences ??= ctx.services.presence.all(ctx.realm)), now: () => ctx.services.presence.now() },
        presenceHistoryLimitDays: p.presence_history_limit_days,
        fetchTypes,
        messagesUpTo,
      },
      fetchTypes,
    );
    // Rows read from the database that are also in an `add` event, queued or on its way: in one of the two only.
    if (queueId !== null) ctx.services.router.cutSnapshot(queueId, snapshot);
    return {
      queue_id: queueId,
      last_event_id: -1,
      ...versionFields(ctx.services.config.zulipCompatFields),
      ...LIMITS,
      max_file_upload_size_mib: ctx.services.config.files.maxUploadMib,
      event_queue_longpoll_timeout_seconds: EVENT_QUEUE_LONGPOLL_TIMEOUT_SECONDS,
      realm_empty_topic_display_name: realmSetting(ctx.realm.state, 'empty_topic_display_name'),
      ...snapshot,
    };
  },
});

export const getEvents = endpoint({
  method: 'GET',
  path: '/events',
  auth: 'user',
  rateLimited: false,
  // Each message form's JSON is made once and spliced into every queue's answer.
  serialize: eventsReplyJson,
  params: {
    queue_id: required(str({ maxLength: 200 })),
    last_event_id: withDefault(int({ min: -1 }), -1),
    dont_block: withDefault(bool(), false),
  },
  async handle(ctx, p) {
    const cluster = ctx.services.cluster;
    if (cluster && !cluster.isLocalQueue(p.queue_id)) {
      return { events: (await cluster.pollElsewhere(p.queue_id, ctx.user.id, p.last_event_id, p.dont_block, (cb) => ctx.conn.onAbort(cb))).events, queue_id: p.queue_id };
    }
    const events = await ctx.services.longPolls.poll(p.queue_id, ctx.user.id, p.last_event_id, p.dont_block, (cb) =>
      ctx.conn.onAbort(cb),
    );
    return { events, queue_id: p.queue_id };
  },
});

export const deleteQueue = endpoint({
  method: 'DELETE',
  path: '/events',
  auth: 'user',
  params: { queue_id: required(str({ maxLength: 200 })) },
  async handle(ctx, p) {
    const cluster = ctx.services.cluster;
    const deleted = cluster && !cluster.isLocalQueue(p.queue_id) ? await cluster.deleteElsewhere(p.queue_id, ctx.user.id) : ctx.services.queues.delete(p.queue_id, ctx.user.id);
    if (!deleted) throw errors.badEventQueueId(p.queue_id);
    return {};
  },
});
