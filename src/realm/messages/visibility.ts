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

/** A send whose sender's topic visibility may change: `topicKey` is the topic as the database compares it (lower()). */
export interface SentTo {
  sender: User;
  channelId: number;
  topic: string;
  topicKey: string;
  now: Date;
  /** The message is the topic's first. */
  startsTopic: boolean;
}

/** The policy a send asks for by its sender's settings, whatever the topic's current one; null for none. */
function wantedPolicy(state: RealmState, sender: User, channelId: number, startsTopic: boolean): number | null {
  if (sender.isBot) return null;
  const follow = Number(userSetting(sender, 'automatically_follow_topics_policy'));
  if (triggered(follow, startsTopic)) return VISIBILITY_POLICY.FOLLOWED;
  const unmute = Number(userSetting(sender, 'automatically_unmute_topics_in_muted_streams_policy'));
  if (state.channels.subscription(sender.id, channelId)?.isMuted && triggered(unmute, startsTopic)) return VISIBILITY_POLICY.UNMUTED;
  return null;
}

/** Whether a send to a topic that already has messages leaves its sender's visibility alone (applyAutomaticVisibility
 *  reads and writes nothing for it). */
export function keepsVisibility(state: RealmState, sender: User, channelId: number): boolean {
  return wantedPolicy(state, sender, channelId, false) === null;
}

/**
 * Decides and stores each sender's new policy for their topic, as if the sends came one after another (a later send
 * sees the policy an earlier one set): the current policies read in one statement and the changes written in one,
 * both only when some send asks for a change (a topic's start, by the default settings). One result per send.
 */
export async function applyAutomaticVisibility(t: Tx, state: RealmState, sends: SentTo[]): Promise<(VisibilityChange | null)[]> {
  const wanted = sends.map((s) => wantedPolicy(state, s.sender, s.channelId, s.startsTopic));
  const asking = sends.filter((_, i) => wanted[i] !== null);
  if (asking.length === 0) return wanted.map(() => null);
  const key = (s: SentTo) => `${s.sender.id}:${s.channelId}:${s.topicKey}`;
  const read = await t.userTopics.policies(asking.map((s) => ({ userId: s.sender.id, channelId: s.channelId, topic: s.topic })));
  const current = new Map<string, number>();
  asking.forEach((s, i) => current.set(key(s), current.get(key(s)) ?? read[i]!));
  const stored = new Map<string, { userId: number; channelId: number; topic: string; policy: number; at: Date }>();
  const changes = sends.map((s, i): VisibilityChange | null => {
    const policy = wanted[i];
    const was = current.get(key(s));
    // These policies only ever raise visibility: a followed topic stays followed.
    if (policy === null || policy === undefined || policy === was || was === VISIBILITY_POLICY.FOLLOWED) return null;
    current.set(key(s), policy);
    stored.set(key(s), { userId: s.sender.id, channelId: s.channelId, topic: s.topic, policy, at: s.now });
    return { userId: s.sender.id, channelId: s.channelId, topic: s.topic, policy, lastUpdated: Math.floor(s.now.getTime() / 1000) };
  });
  await t.userTopics.setMany([...stored.values()]);
  return changes;
}

/** The user_topic event telling a user of their new visibility policy for a topic. */
export function userTopicEvent(state: RealmState, c: VisibilityChange): RealmEvent {
  const { channelId, topic, lastUpdated, policy } = c;
  return { event: { kind: 'user_topic', channelId, topic, lastUpdated, policy, emptyTopicDisplayName: realmSetting(state, 'empty_topic_display_name') }, users: [c.userId] };
}
