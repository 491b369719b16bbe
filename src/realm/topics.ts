// Topic names as the API takes and gives them: "(no topic)" and the realm's empty-topic display name mean
// the empty topic; clients without the empty_topic_name capability see the display name instead of "".
import { errors } from '../errors.js';
import { shownTopic } from '../model/messages.js';
import { realmSetting } from './realm-settings.js';
import type { RealmState } from './state.js';

export const NO_TOPIC = '(no topic)';

/** A topic from a request: trimmed, with the empty topic's aliases mapped to "". With `required`, the empty
 *  topic (under any of its names) is refused. */
export function normalizeTopic(state: RealmState, raw: string, opts: { required?: boolean } = {}): string {
  const trimmed = raw.trim();
  const topic = trimmed === NO_TOPIC || trimmed === realmSetting(state, 'empty_topic_display_name') ? '' : trimmed;
  if (opts.required && topic === '') throw errors.topicRequired();
  return topic;
}

/** A topic for a client: "" becomes the realm's empty-topic display name unless the client handles "". */
export function topicForClient(state: RealmState, topic: string, allowEmpty: boolean): string {
  return shownTopic(topic, realmSetting(state, 'empty_topic_display_name'), allowEmpty);
}
