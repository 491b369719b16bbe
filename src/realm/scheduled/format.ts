// Scheduled messages as the API returns them (the reference's ScheduledMessage object), and their events.
import type { RealmEvent } from '../../events/hub.js';
import type { ScheduledMessage } from '../../persistence/repos/scheduled-messages.js';

export function formatScheduled(m: ScheduledMessage): Record<string, unknown> {
  const common = {
    scheduled_message_id: m.id,
    content: m.content,
    rendered_content: m.renderedContent,
    scheduled_delivery_timestamp: m.scheduledAt,
    failed: m.failed,
  };
  if (m.type === 'stream') return { ...common, type: 'stream', to: m.streamId, topic: m.topic };
  return { ...common, type: 'private', to: m.userIds ?? [] };
}

export function scheduledAdded(m: ScheduledMessage): RealmEvent {
  return { event: { type: 'scheduled_messages', op: 'add', scheduled_messages: [formatScheduled(m)] }, users: [m.senderId] };
}

export function scheduledUpdated(m: ScheduledMessage): RealmEvent {
  return { event: { type: 'scheduled_messages', op: 'update', scheduled_message: formatScheduled(m) }, users: [m.senderId] };
}

export function scheduledRemoved(senderId: number, id: number): RealmEvent {
  return { event: { type: 'scheduled_messages', op: 'remove', scheduled_message_id: id }, users: [senderId] };
}
