// Scheduled messages and reminders as the API returns them (the reference's ScheduledMessage and Reminder
// objects), and their events.
import type { RealmEvent } from '../../events/hub.js';
import type { ScheduledMessage } from '../../model/scheduled.js';

export function formatScheduled(m: ScheduledMessage): Record<string, unknown> {
  const common = {
    scheduled_message_id: m.id,
    content: m.content,
    rendered_content: m.renderedContent,
    scheduled_delivery_timestamp: m.scheduledAt,
    failed: m.failed,
  };
  if (m.type === 'stream') return { ...common, type: 'stream', to: m.channelId, topic: m.topic };
  return { ...common, type: 'private', to: m.userIds ?? [] };
}

/** A reminder as the API returns it (the reference's Reminder object). */
export function formatReminder(m: ScheduledMessage): Record<string, unknown> {
  return {
    reminder_id: m.id,
    type: 'private',
    to: m.userIds ?? [m.senderId],
    content: m.content,
    rendered_content: m.renderedContent,
    scheduled_delivery_timestamp: m.scheduledAt,
    failed: m.failed,
    reminder_target_message_id: m.reminderTargetMessageId,
  };
}

export function scheduledAdded(m: ScheduledMessage): RealmEvent {
  if (m.deliveryType === 'remind') return { event: { type: 'reminders', op: 'add', reminders: [formatReminder(m)] }, users: [m.senderId] };
  return { event: { type: 'scheduled_messages', op: 'add', scheduled_messages: [formatScheduled(m)] }, users: [m.senderId] };
}

/** Reminders have no update event in the reference (a failed reminder shows as failed at the next register). */
export function scheduledUpdated(m: ScheduledMessage): RealmEvent[] {
  if (m.deliveryType === 'remind') return [];
  return [{ event: { type: 'scheduled_messages', op: 'update', scheduled_message: formatScheduled(m) }, users: [m.senderId] }];
}

export function scheduledRemoved(m: Pick<ScheduledMessage, 'senderId' | 'id' | 'deliveryType'>): RealmEvent {
  if (m.deliveryType === 'remind') return { event: { type: 'reminders', op: 'remove', reminder_id: m.id }, users: [m.senderId] };
  return { event: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: m.id }, users: [m.senderId] };
}
