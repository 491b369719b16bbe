// Scheduled messages and reminders as the API returns them (the reference's ScheduledMessage and Reminder
// objects), and their internal events (the wire form is made from them by src/events/wire.ts).
import type { BusEvent, RealmEvent } from '../../bus/events.js';
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
  const event: BusEvent = m.deliveryType === 'remind' ? { kind: 'reminder', op: 'add', reminder: m } : { kind: 'scheduled_message', op: 'add', message: m };
  return { event, users: [m.senderId] };
}

/** Reminders have no update event in the reference (a failed reminder shows as failed at the next register). */
export function scheduledUpdated(m: ScheduledMessage): RealmEvent[] {
  if (m.deliveryType === 'remind') return [];
  return [{ event: { kind: 'scheduled_message', op: 'update', message: m }, users: [m.senderId] }];
}

export function scheduledRemoved(m: Pick<ScheduledMessage, 'senderId' | 'id' | 'deliveryType'>): RealmEvent {
  return { event: { kind: m.deliveryType === 'remind' ? 'reminder' : 'scheduled_message', op: 'remove', id: m.id }, users: [m.senderId] };
}
