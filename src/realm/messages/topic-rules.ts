// The topic of a channel message: cleaned as Zulip does (trimmed, printable, at most max_topic_length, the
// empty topic's aliases mapped to ""), then checked against the channel's topics_policy.
import { errors } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import type { Channel } from '../../model/channels.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import { normalizeTopic } from '../topics.js';

const UNPRINTABLE = /[\p{Cc}\p{Cs}\p{Cn}]/u;

/** Zulip's truncate_content: at most `max` code points, ending in `marker` when cut. */
export function truncate(text: string, max: number, marker: string): string {
  // No more UTF-16 units than `max`: no more code points either (most texts), so no need to count them.
  if (text.length <= max) return text;
  const chars = [...text];
  if (chars.length <= max) return text;
  return chars.slice(0, max - [...marker].length).join('') + marker;
}

/** A topic as sent or edited, without the policy check. */
export function cleanTopic(state: RealmState, raw: string): string {
  const trimmed = raw.trim();
  const bad = UNPRINTABLE.exec(trimmed);
  if (bad) throw errors.invalidTopicCharacter([...trimmed.slice(0, bad.index)].length + 1);
  return truncate(normalizeTopic(state, trimmed), LIMITS.max_topic_length, '...');
}

/** The channel's topics policy with `inherit` resolved to the realm's. */
export function effectiveTopicsPolicy(state: RealmState, ch: Channel): string {
  return ch.topicsPolicy === 'inherit' ? String(realmSetting(state, 'topics_policy')) : ch.topicsPolicy;
}

/** Refuses a topic the channel's policy does not allow. */
export function checkTopicPolicy(state: RealmState, ch: Channel, topic: string): void {
  const policy = effectiveTopicsPolicy(state, ch);
  if (policy === 'disable_empty_topic' && topic === '') throw errors.topicsRequiredInChannel();
  if (policy === 'empty_topic_only' && topic !== '') {
    throw errors.topicsNotAllowed(realmSetting(state, 'empty_topic_display_name'));
  }
}
