// The form of an event one queue receives: Markdown or HTML content (apply_markdown), avatar URLs
// (client_gravatar, in messages and in user records) and the empty topic's name (empty_topic_name). Called by
// the event router for every event and queue, so a message's forms are computed once each, not per queue.
import { shownTopic } from '../model/messages.js';
import type { QueueRegistration } from './registration.js';
import { shareJson } from './reply-json.js';

type Event = Record<string, unknown> & { type: string };

const HIDDEN_MESSAGE_KEYS = ['rendered_content', 'stream_is_public', 'empty_topic_display_name'] as const;

function topicForQueue(topic: unknown, displayName: unknown, allowEmpty: boolean): unknown {
  return typeof topic === 'string' && typeof displayName === 'string' ? shownTopic(topic, displayName, allowEmpty) : topic;
}

/** A message has at most eight forms (three yes/no choices, one bit each); each is built once and shared by the queues. */
const messageForms = new WeakMap<object, (Record<string, unknown> | undefined)[]>();

/** Which of the eight forms of an event a queue receives (eventForQueue depends on these three choices only). */
export function formKey(reg: QueueRegistration): number {
  return (reg.applyMarkdown ? 1 : 0) | (reg.clientGravatar ? 2 : 0) | (reg.capabilities.empty_topic_name ? 4 : 0);
}

function messageForm(reg: QueueRegistration, m: Record<string, unknown>): Record<string, unknown> {
  const key = formKey(reg);
  let forms = messageForms.get(m);
  if (!forms) messageForms.set(m, (forms = []));
  const cached = forms[key];
  if (cached) return cached;
  const out: Record<string, unknown> = { ...m };
  for (const k of HIDDEN_MESSAGE_KEYS) delete out[k];
  if (reg.applyMarkdown) {
    out.content = m.rendered_content;
    out.content_type = 'text/html';
  } else {
    out.content_type = 'text/x-markdown';
  }
  if (reg.clientGravatar) out.avatar_url = null;
  if (m.type === 'stream') out.subject = topicForQueue(m.subject, m.empty_topic_display_name, reg.capabilities.empty_topic_name);
  forms[key] = out;
  shareJson(out);
  return out;
}

function messageForQueue(reg: QueueRegistration, e: Event): Event {
  const m = e.message as Record<string, unknown> | undefined;
  if (!m || !('rendered_content' in m)) return e;
  return { ...e, message: messageForm(reg, m) };
}

const GRAVATAR = 'https://secure.gravatar.com/';

/** With client_gravatar the client computes gravatar URLs itself, in user events as in the snapshot. */
function userForQueue(reg: QueueRegistration, e: Event): Event {
  const person = e.person as Record<string, unknown> | undefined;
  if (!reg.clientGravatar || typeof person?.avatar_url !== 'string' || !person.avatar_url.startsWith(GRAVATAR)) return e;
  return { ...e, person: { ...person, avatar_url: null } };
}

function topicsForQueue(reg: QueueRegistration, e: Event, keys: string[]): Event {
  if (!('empty_topic_display_name' in e)) return e;
  const out: Event = { ...e };
  delete out.empty_topic_display_name;
  for (const k of keys) {
    if (k in out) out[k] = topicForQueue(out[k], e.empty_topic_display_name, reg.capabilities.empty_topic_name);
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
    case 'user_topic':
      return topicsForQueue(reg, e, ['topic_name']);
    case 'realm_user':
      return userForQueue(reg, e);
    default:
      return e;
  }
}
