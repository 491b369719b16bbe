// Scheduled messages: list, create, edit and cancel the user's messages to be sent later.
import { clientNameFrom } from '../../events/registration.js';
import { formatScheduled } from '../../realm/scheduled/format.js';
import { scheduledType } from '../../realm/scheduled/validate.js';
import { endpoint, type RequestContext } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, enumOf, int, optional, required, str, type ParamType } from '../../params.js';
import { requestRealmUrl } from '../context.js';

/** `to` as sent: JSON when it parses (an ID or a list), else the raw text (a name, refused by the command). */
function recipient(): ParamType<unknown> {
  return {
    fromRaw: (raw) => {
      try {
        return JSON.parse(raw);
      } catch {
        return raw;
      }
    },
    fromJson: (v) => v,
  };
}

const TYPES = ['direct', 'channel', 'stream', 'private'] as const;

const common = (ctx: RequestContext<'user'>) => ({
  client: clientNameFrom(ctx.request.headers['user-agent']),
  realmUrl: requestRealmUrl(ctx),
  now: ctx.services.scheduled.clock.now() / 1000,
});

export const getScheduledMessages = endpoint({
  method: 'GET',
  path: '/scheduled_messages',
  auth: 'user',
  params: {},
  async handle(ctx) {
    return { scheduled_messages: (await ctx.services.db.scheduledMessages.undeliveredOf(ctx.user.id)).map(formatScheduled) };
  },
});

export const createScheduledMessage = endpoint({
  method: 'POST',
  path: '/scheduled_messages',
  auth: 'user',
  params: {
    type: required(enumOf(TYPES)),
    to: required(recipient()),
    content: required(str({ allowNul: true })),
    topic: optional(str({ allowNul: true })),
    scheduled_delivery_timestamp: required(int()),
    read_by_sender: optional(bool()),
  },
  async handle(ctx, p) {
    const m = await ctx.realm.dispatch('scheduled.create', {
      senderId: ctx.user.id,
      type: scheduledType(p.type),
      to: p.to,
      topic: p.topic,
      content: p.content,
      scheduledAt: p.scheduled_delivery_timestamp,
      readBySender: p.read_by_sender,
      ...common(ctx),
    });
    return { scheduled_message_id: m.id };
  },
});

/** Edits that raced another change of the same message are tried again on a fresh read. */
const EDIT_TRIES = 3;

export const editScheduledMessage = endpoint({
  method: 'PATCH',
  path: '/scheduled_messages/{scheduled_message_id}',
  auth: 'user',
  params: {
    scheduled_message_id: required(int()),
    type: optional(enumOf(TYPES)),
    to: optional(recipient()),
    content: optional(str({ allowNul: true })),
    topic: optional(str({ allowNul: true })),
    scheduled_delivery_timestamp: optional(int()),
  },
  async handle(ctx, p) {
    for (let i = 0; i < EDIT_TRIES; i++) {
      const current = await ctx.services.db.scheduledMessages.byId(p.scheduled_message_id);
      if (!current || current.senderId !== ctx.user.id || current.deliveryType !== 'send') throw errors.scheduledNotFound();
      const r = await ctx.realm.dispatch('scheduled.edit', {
        senderId: ctx.user.id,
        current,
        type: p.type === undefined ? undefined : scheduledType(p.type),
        to: p.to,
        topic: p.topic,
        content: p.content,
        scheduledAt: p.scheduled_delivery_timestamp,
        ...common(ctx),
      });
      if (!r.stale) return {};
    }
    throw errors.unavailable('The scheduled message is being changed; try again.');
  },
});

export const deleteScheduledMessage = endpoint({
  method: 'DELETE',
  path: '/scheduled_messages/{scheduled_message_id}',
  auth: 'user',
  params: { scheduled_message_id: required(int()) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('scheduled.delete', { senderId: ctx.user.id, id: p.scheduled_message_id });
    return {};
  },
});

export const scheduledMessageEndpoints = [getScheduledMessages, createScheduledMessage, editScheduledMessage, deleteScheduledMessage];
