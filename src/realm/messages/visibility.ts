// Automatic topic visibility on send: the sender's automatically_follow_topics_policy and
// automatically_unmute_topics_in_muted_streams_policy, the stored policy change and its user_topic event.
import type { RealmEvent } from '../../bus/events.js';
import type { Tx } from '../../persistence/db.js';
import { VISIBILITY_POLICY } from '../../model/channels.js';
import { userSetting } from '../people/user-settings.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';

/** The user settings' codes: 1 on participation, 2 on send, 3 on initiation, 4 never. */
const ON_INITIATION = 3;
const NEVER = 4;

export interface VisibilityChange {
  userId: number;
  channelId: number;
  topic: string;
  policy: number;
  /** UNIX seconds. */
  lastUpdated: number;
}

function triggered(policy: number, startsTopic: boolean): boolean {
  if (policy === NEVER) return false;
  return policy !== ON_INITIATION || startsTopic;
}

/**
 * Decides and stores the sender's new policy for the topic (before the message is inserted). `startsTopic`
 * (no message in the topic yet) is looked up when not given.
 */
export async function applyAutomaticVisibility(
  t: Tx,
  state: RealmState,
  sender: User,
  channelId: number,
  topic: string,
  now: Date,
  startsTopic?: boolean,
): Promise<VisibilityChange | null> {
  if (sender.isBot) return null;
  const follow = Number(userSetting(sender, 'automatically_follow_topics_policy'));
  const unmute = Number(userSetting(sender, 'automatically_unmute_topics_in_muted_streams_policy'));
  // Policies that never change visibility need no lookups.
  if (follow === NEVER && unmute === NEVER) return null;
  const starts = startsTopic ?? !(await t.messages.topicExists(channelId, topic));
  let wanted: number | null = null;
  if (triggered(follow, starts)) wanted = VISIBILITY_POLICY.FOLLOWED;
  else if (state.channels.subscription(sender.id, channelId)?.isMuted && triggered(unmute, starts)) wanted = VISIBILITY_POLICY.UNMUTED;
  if (wanted === null) return null;
  const current = await t.userTopics.policy(sender.id, channelId, topic);
  // These policies only ever raise visibility: a followed topic stays followed.
  if (wanted === current || current === VISIBILITY_POLICY.FOLLOWED) return null;
  await t.userTopics.set(sender.id, channelId, topic, wanted, now);
  return { userId: sender.id, channelId, topic, policy: wanted, lastUpdated: Math.floor(now.getTime() / 1000) };
}

/** The user_topic event telling a user of their new visibility policy for a topic. */
export function userTopicEvent(state: RealmState, c: VisibilityChange): RealmEvent {
  const { channelId, topic, lastUpdated, policy } = c;
  return { event: { kind: 'user_topic', channelId, topic, lastUpdated, policy, emptyTopicDisplayName: realmSetting(state, 'empty_topic_display_name') }, users: [c.userId] };
}
