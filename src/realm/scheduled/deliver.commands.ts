// Delivering a scheduled message: the send command's own check, write, apply and events, run in the same
// transaction that claims the row (FOR UPDATE SKIP LOCKED, then a delivered marker), so a message is sent
// exactly once however many processes try. A send the rules now refuse marks the message failed instead.
import type { RealmEvent } from '../../bus/events.js';
import { ApiError, errors } from '../../errors.js';
import type { ScheduledMessage } from '../../model/scheduled.js';
import { byUser, type CommandDef } from '../commands.js';
import type { Prerendered } from '../messages/render.js';
import { prerender, sendMessage, type SendResult } from '../messages/send.js';
import type { RealmState } from '../state.js';
import { scheduledRemoved, scheduledUpdated } from './format.js';
import { reminderSendInput } from './reminders.js';
import { sendInputOf } from './validate.js';

/** An error that refuses this message for good (the rules say no), as opposed to a failure worth retrying. */
export function isRefusal(err: unknown): err is ApiError {
  return err instanceof ApiError && err.status < 500;
}

/** What is sent: the message itself, or for a reminder the notification bot's direct message to its sender. */
function deliveryInput(state: RealmState, m: ScheduledMessage, realmUrl: string) {
  return m.deliveryType === 'remind' ? reminderSendInput(state, m, realmUrl) : sendInputOf(m, realmUrl);
}

export interface DeliverInput {
  /** The row as the delivery actor read it; only this version is delivered. */
  message: ScheduledMessage;
  realmUrl: string;
  /** The content rendered on the worker pool (the command's prepare). */
  rendered?: Prerendered;
}

type SendPlan = ReturnType<typeof sendMessage.check>;
type DeliverPlan = { message: ScheduledMessage } & ({ kind: 'send'; plan: SendPlan } | { kind: 'fail'; reason: string });

export type DeliverResult =
  | { kind: 'delivered'; message: ScheduledMessage; messageId: number; send: SendResult }
  | { kind: 'failed'; message: ScheduledMessage; reason: string }
  /** Already delivered, failed, edited since it was read, cancelled, or being delivered by another process. */
  | { kind: 'skipped' };

const deliverScheduled: CommandDef<DeliverInput, DeliverPlan, DeliverResult> = {
  batchable: true,
  // Rendered as its sender will send it (a reminder: the notification bot).
  prepare: (state, input) => prerender(state, input, deliveryInput(state, input.message, input.realmUrl).senderId, input.realmUrl, input.message.content),
  orderKey: (input) => byUser(input.message.senderId),
  check(state, { message, realmUrl, rendered }) {
    try {
      if (state.realm.deactivated) throw errors.realmDeactivated();
      return { message, kind: 'send', plan: sendMessage.check(state, { ...deliveryInput(state, message, realmUrl), rendered }) };
    } catch (err) {
      if (isRefusal(err)) return { message, kind: 'fail', reason: err.message };
      throw err;
    }
  },
  async write(t, p, state) {
    const claimed = await t.scheduledMessages.claim(p.message.id, p.message.version);
    if (!claimed) return { kind: 'skipped' };
    if (p.kind === 'fail') return { kind: 'failed', message: await t.scheduledMessages.markFailed(claimed.id, p.reason), reason: p.reason };
    const send = await sendMessage.write!(t, p.plan, state);
    await t.scheduledMessages.markDelivered(claimed.id, send.message.id);
    return { kind: 'delivered', message: claimed, messageId: send.message.id, send };
  },
  apply(state, r) {
    if (r.kind === 'delivered') sendMessage.apply!(state, r.send);
  },
  events(state, r) {
    if (r.kind === 'skipped') return [];
    if (r.kind === 'failed') return scheduledUpdated(r.message);
    const out: RealmEvent[] = sendMessage.events!(state, r.send);
    out.push(scheduledRemoved(r.message));
    return out;
  },
};

export interface FailInput {
  message: ScheduledMessage;
  reason: string;
}

/** Marks a message failed: the send's write refused it, or delivery kept failing for reasons outside it. */
const failScheduled: CommandDef<FailInput, FailInput, DeliverResult> = {
  batchable: true,
  check: (_state, input) => input,
  async write(t, p) {
    const claimed = await t.scheduledMessages.claim(p.message.id, p.message.version);
    if (!claimed) return { kind: 'skipped' };
    return { kind: 'failed', message: await t.scheduledMessages.markFailed(claimed.id, p.reason), reason: p.reason };
  },
  events: (_state, r) => (r.kind === 'failed' ? scheduledUpdated(r.message) : []),
};

export const deliveryCommands = {
  'scheduled.deliver': deliverScheduled,
  'scheduled.fail': failScheduled,
};
