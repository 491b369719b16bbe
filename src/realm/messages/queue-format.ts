// The form of a message-domain event one queue receives: Markdown or HTML content (apply_markdown), avatar URLs
// (client_gravatar) and the empty topic's name (empty_topic_name). Called by the event router for every event.
import type { QueueRegistration } from '../../events/registration.js';

type Event = Record<string, unknown> & { type: string };

const HIDDEN_MESSAGE_KEYS = ['rendered_content', 'stream_is_public', 'empty_topic_display_name'] as const;

function shownTopic(topic: unknown, displayName: unknown, allowEmpty: boolean): unknown {
  return topic === '' && !allowEmpty && typeof displayName === 'string' ? displayName : topic;
}

function messageForQueue(reg: QueueRegistration, e: Event): Event {
  const m = e.message as Record<string, unknown> | undefined;
  if (!m || !('rendered_content' in m)) return e;
  const out: Record<string, unknown> = { ...m };
  for (const k of HIDDEN_MESSAGE_KEYS) delete out[k];
  if (reg.applyMarkdown) {
    out.content = m.rendered_content;
    out.content_type = 'text/html';
  } else {
    out.content_type = 'text/x-markdown';
  }
  if (reg.clientGravatar) out.avatar_url = null;
  if (m.type === 'stream') out.subject = shownTopic(m.subject, m.empty_topic_display_name, reg.capabilities.empty_topic_name);
  return { ...e, message: out };
}

function topicsForQueue(reg: QueueRegistration, e: Event, keys: string[]): Event {
  if (!('empty_topic_display_name' in e)) return e;
  const out: Event = { ...e };
  delete out.empty_topic_display_name;
  for (const k of keys) {
    if (k in out) out[k] = shownTopic(out[k], e.empty_topic_display_name, reg.capabilities.empty_topic_name);
  }
  return out;
}

/** The queue's copy of an event (events of other domains pass unchanged). */
export function eventForQueue(reg: QueueRegistration, e: Event): Event {
  switch (e.type) {
    case 'message':
      return messageForQueue(reg, e);
    case 'update_message':
      return topicsForQueue(reg, e, ['orig_subject', 'subject']);
    case 'delete_message':
      return topicsForQueue(reg, e, ['topic']);
    default:
      return e;
  }
}
