// A message's edit history as GET /messages/{id}/history returns it: every version, oldest first, each with the
// content and topic of that time and what the edit changed (Zulip's fill_edit_history_entries).
import type { StoredMessage } from '../../model/messages.js';
import type { RealmState } from '../state.js';
import { topicForClient } from '../topics.js';

export function editHistoryForClient(state: RealmState, m: StoredMessage, allowEmptyTopic: boolean): Record<string, unknown>[] {
  const isStream = m.kind === 'stream';
  const shown = (topic: string) => (isStream ? topicForClient(state, topic, allowEmptyTopic) : '');
  let content = m.content;
  let rendered = m.renderedContent;
  let topic = shown(m.topic);
  let stream = m.channelId;
  const out: Record<string, unknown>[] = [];
  for (const e of m.editHistory ?? []) {
    const entry: Record<string, unknown> = { content, rendered_content: rendered, timestamp: e.timestamp, topic, user_id: e.user_id };
    if (isStream) entry.stream = stream;
    if (e.prev_topic !== undefined) {
      topic = shown(e.prev_topic);
      entry.prev_topic = topic;
    }
    if (e.prev_content !== undefined) {
      entry.prev_content = e.prev_content;
      entry.prev_rendered_content = e.prev_rendered_content;
      entry.content_html_diff = rendered;
      content = e.prev_content;
      rendered = e.prev_rendered_content ?? '';
    }
    if (e.prev_stream !== undefined) {
      entry.prev_stream = e.prev_stream;
      stream = e.prev_stream;
    }
    out.push(entry);
  }
  const first: Record<string, unknown> = { content, rendered_content: rendered, timestamp: m.dateSent, topic, user_id: m.senderId };
  if (isStream) first.stream = stream;
  out.push(first);
  return out.reverse();
}
