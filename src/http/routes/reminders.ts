// Reminders: GET and POST /reminders, DELETE /reminders/{reminder_id}.
import { clientNameFrom } from '../../events/registration.js';
import { LIMITS } from '../../limits.js';
import { accessMessage } from '../../realm/access/messages.js';
import { formatReminder } from '../../realm/scheduled/format.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { int, required, str, withDefault } from '../../params.js';
import { requestRealmUrl } from '../context.js';

export const getReminders = endpoint({
  method: 'GET',
  path: '/reminders',
  auth: 'user',
  params: {},
  async handle(ctx) {
    return { reminders: (await ctx.services.db.scheduledMessages.undeliveredOf(ctx.user.id, 'remind')).map(formatReminder) };
  },
});

export const createReminder = endpoint({
  method: 'POST',
  path: '/reminders',
  auth: 'user',
  params: {
    message_id: required(int()),
    scheduled_delivery_timestamp: required(int()),
    // Room for the trailing space normalizeNote trims; its length limit applies after.
    note: withDefault(str({ maxLength: 2 * LIMITS.max_reminder_note_length }), ''),
  },
  async handle(ctx, p) {
    if (p.scheduled_delivery_timestamp <= ctx.services.scheduled.clock.now() / 1000) throw errors.scheduledTimeInPast();
    const { message } = await accessMessage(ctx.services.db, ctx.realm.state, ctx.user, p.message_id);
    const r = await ctx.realm.dispatch('reminders.create', {
      userId: ctx.user.id,
      message,
      note: p.note,
      scheduledAt: p.scheduled_delivery_timestamp,
      client: clientNameFrom(ctx.request.headers['user-agent']),
      realmUrl: requestRealmUrl(ctx),
    });
    return { reminder_id: r.reminder.id };
  },
});

export const deleteReminder = endpoint({
  method: 'DELETE',
  path: '/reminders/{reminder_id}',
  auth: 'user',
  params: { reminder_id: required(int({ min: 0 })) },
  async handle(ctx, p) {
    await ctx.realm.dispatch('reminders.delete', { userId: ctx.user.id, id: p.reminder_id });
    return {};
  },
});

export const reminderEndpoints = [getReminders, createReminder, deleteReminder];
