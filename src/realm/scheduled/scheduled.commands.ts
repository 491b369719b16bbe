// Realm commands on scheduled messages: create, edit (content, topic, recipient, delivery time), cancel.
import { errors } from '../../errors.js';
import type { NewScheduledMessage, ScheduledMessage } from '../../model/scheduled.js';
import { byUser, type CommandDef } from '../commands.js';
import type { Prerendered } from '../messages/render.js';
import { prerender } from '../messages/send.js';
import { actor } from '../access/roles.js';
import { scheduledAdded, scheduledRemoved, scheduledUpdated } from './format.js';
import { checkScheduled, newScheduled, resolveReadBySender, type ScheduledDraft, type ScheduledType } from './validate.js';

export interface CreateScheduledInput extends ScheduledDraft {
  senderId: number;
  /** Seconds. */
  scheduledAt: number;
  readBySender?: boolean;
  client: string;
  realmUrl: string;
  /** Seconds: the server's clock at the request. */
  now: number;
  /** The content rendered on the worker pool (the command's prepare). */
  rendered?: Prerendered;
}

const createScheduled: CommandDef<CreateScheduledInput, NewScheduledMessage, ScheduledMessage> = {
  batchable: true,
  prepare: (state, input) => prerender(state, input, input.senderId, input.realmUrl, input.content),
  orderKey: (input) => byUser(input.senderId),
  check(state, input) {
    actor(state, input.senderId);
    if (input.scheduledAt <= input.now) throw errors.scheduledTimeInPast();
    const checked = checkScheduled(state, input.senderId, input, input.client, input.realmUrl, input.rendered);
    const readBySender = resolveReadBySender(input.readBySender, input.client, input.senderId, checked);
    return newScheduled(state, input.senderId, checked, input.scheduledAt, readBySender, input.client);
  },
  write: (t, m) => t.scheduledMessages.insert(m),
  events: (_state, m) => [scheduledAdded(m)],
};

export interface EditScheduledInput {
  senderId: number;
  /** The message as the handler read it; the write refuses to apply over a newer version. */
  current: ScheduledMessage;
  type?: ScheduledType;
  to?: unknown;
  topic?: string;
  content?: string;
  scheduledAt?: number;
  client: string;
  realmUrl: string;
  now: number;
  /** The content as it will be sent (new or current), rendered on the worker pool (the command's prepare). */
  rendered?: Prerendered;
}

type EditPlan = { current: ScheduledMessage; changes: Partial<ScheduledMessage> };
/** `stale`: the message changed between the handler's read and this write; the handler reads again. */
export type EditResult = { stale: true } | { stale: false; message: ScheduledMessage };

const editScheduled: CommandDef<EditScheduledInput, EditPlan, EditResult> = {
  batchable: true,
  prepare: (state, input) => prerender(state, input, input.senderId, input.realmUrl, input.content ?? input.current.content),
  orderKey: (input) => byUser(input.senderId),
  check(state, input) {
    actor(state, input.senderId);
    const cur = input.current;
    if (cur.senderId !== input.senderId) throw errors.scheduledNotFound();
    if (cur.delivered) throw errors.scheduledAlreadySent();
    const { type, to, topic, content, scheduledAt } = input;
    if ([type, to, topic, content, scheduledAt].every((v) => v === undefined)) throw errors.noNewValues();
    if (type !== undefined && type !== cur.type && to === undefined) throw errors.scheduledTypeNeedsTo();
    if (type === 'stream' && cur.type !== 'stream' && topic === undefined) throw errors.scheduledTypeNeedsTopic();
    if (scheduledAt !== undefined ? scheduledAt <= input.now : cur.failed) throw errors.scheduledTimeInPast();
    const newType = type ?? cur.type;
    const draft: ScheduledDraft = {
      type: newType,
      to: to ?? (cur.type === 'stream' ? cur.channelId : cur.userIds),
      topic: topic ?? (cur.type === 'stream' ? cur.topic : undefined),
      content: content ?? cur.content,
    };
    // The whole message is checked again, as it will be sent: a permission may have changed since.
    const c = checkScheduled(state, input.senderId, draft, cur.sendingClient, input.realmUrl, input.rendered);
    const changes: Partial<ScheduledMessage> = { content: c.content, renderedContent: c.renderedContent, topic: c.topic };
    if (type !== undefined || to !== undefined) Object.assign(changes, { type: c.type, channelId: c.channelId, userIds: c.userIds });
    if (scheduledAt !== undefined) changes.scheduledAt = scheduledAt;
    return { current: cur, changes };
  },
  async write(t, plan) {
    const row = await t.scheduledMessages.lockOf(plan.current.senderId, plan.current.id);
    if (!row) throw errors.scheduledNotFound();
    if (row.delivered) throw errors.scheduledAlreadySent();
    if (row.version !== plan.current.version) return { stale: true };
    return { stale: false, message: await t.scheduledMessages.update(row.id, plan.changes) };
  },
  events: (_state, r) => (r.stale ? [] : scheduledUpdated(r.message)),
};

type DeletePlan = { senderId: number; id: number };

const deleteScheduled: CommandDef<DeletePlan, DeletePlan, DeletePlan> = {
  batchable: true,
  check(state, input) {
    actor(state, input.senderId);
    return input;
  },
  async write(t, p) {
    const row = await t.scheduledMessages.lockOf(p.senderId, p.id);
    // A delivered message is a message now: there is nothing left to cancel.
    if (!row || row.delivered) throw errors.scheduledNotFound();
    await t.scheduledMessages.delete(row.id);
    return p;
  },
  events: (_state, p) => [scheduledRemoved({ senderId: p.senderId, id: p.id, deliveryType: 'send' })],
};

export const scheduledCrudCommands = {
  'scheduled.create': createScheduled,
  'scheduled.edit': editScheduled,
  'scheduled.delete': deleteScheduled,
};
