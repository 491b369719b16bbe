// Narrows for one viewer: parse and resolve against the working set (with `with` looked up in the store),
// the SQL columns for history queries, and the same facts as a NarrowMessage for the in-memory predicate.
import type { Db } from '../../persistence/db.js';
import type { StoredMessage } from '../../model/messages.js';
import { type UserTopic, VISIBILITY_POLICY } from '../../model/channels.js';
import {
  parseNarrow,
  resolveNarrow,
  type NarrowColumns,
  type NarrowMessage,
  type NarrowResolver,
  type ResolvedTerm,
  type WithConversation,
} from '../../narrow/index.js';
import { NO_TOPIC } from '../topics.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { userByEmailFor } from '../user-format.js';
import { canSeeMessage } from '../access/messages.js';
import { flagNames, HISTORICAL_DEFAULT } from './format.js';
import {
  channelByOperand,
  checkSpectatorOperators,
  checkWebPublicNarrow,
  operandId,
  SPECTATOR_FLAGS,
  spectatorChannel,
  spectatorMaySee,
  webPublicChannelIds,
} from './spectator.js';

/**
 * Parses and resolves a narrow for the viewer (null: a spectator, whose narrow must be web-public and
 * spectator-compatible, and whose channels and `with` messages can only be web-public ones); `with` is looked
 * up in the store first.
 */
export async function resolveForViewer(
  state: RealmState,
  db: Db,
  viewer: User | null,
  narrow: unknown,
  allowEmptyTopic = true,
): Promise<ResolvedTerm[]> {
  const emptyTopicNames = allowEmptyTopic ? [NO_TOPIC] : [NO_TOPIC, realmSetting(state, 'empty_topic_display_name')];
  if (viewer === null) checkSpectatorOperators(narrow);
  const terms = parseNarrow(narrow, { emptyTopicNames });
  if (viewer === null) checkWebPublicNarrow(state, terms);
  let conversation: WithConversation | undefined;
  const withTerm = terms.find((t) => t.operator === 'with');
  if (withTerm) {
    const m = await db.messages.byId(withTerm.operand as number);
    const visible =
      m !== null &&
      (viewer === null
        ? spectatorMaySee(state, m)
        : m.realmId === state.realm.id && canSeeMessage(state, viewer, m, (await db.userMessages.flagsFor(viewer.id, [m.id])).has(m.id)));
    if (m && visible) {
      conversation = m.kind === 'stream' ? { kind: 'stream', channelId: m.channelId!, topic: m.topic } : { kind: 'direct', userIds: m.directRecipients };
    }
  }
  // Legacy pairs carry IDs as strings: a name or email wins, an all-digits string falls back to the ID.
  const resolver: NarrowResolver = {
    channelByNameOrId: (x) => (viewer === null ? spectatorChannel(state, x) : channelByOperand(state, x)),
    userByEmailOrId: (x) => (typeof x === 'number' ? state.usersById.get(x) : (userByEmailFor(state, viewer, x) ?? state.usersById.get(operandId(x) ?? -1))),
    conversationOfMessage: () => conversation,
    webPublicChannelIds: () => webPublicChannelIds(state),
  };
  return resolveNarrow(terms, resolver);
}

function intList(ids: Iterable<number>): string {
  return `'{${[...ids].map((n) => Math.trunc(n)).join(',')}}'::int[]`;
}

/** Public (not invite-only) channels of the realm. */
export function publicChannelIds(state: RealmState): number[] {
  return [...state.channels.byId.values()].filter((c) => !c.inviteOnly).map((c) => c.id);
}

/** Channels the viewer muted. */
function mutedChannelIds(state: RealmState, viewerId: number): number[] {
  return state.channels.activeSubscriptions(viewerId).filter((s) => s.isMuted).map((s) => s.channelId);
}

/**
 * The NarrowColumns over `messages m` with the viewer's row `um` (LEFT JOINed when `history`: rows absent then
 * count as read and historical). For a spectator (viewerId null) there is no row: every message is read and
 * nothing is followed or muted. Only integers from the working set are written into the SQL.
 */
export function narrowColumns(state: RealmState, viewerId: number | null, history: boolean): NarrowColumns {
  const v = viewerId === null ? null : Math.trunc(viewerId);
  const policy = (p: string) =>
    `EXISTS (SELECT 1 FROM user_topics ut WHERE ut.user_id = ${v} AND ut.channel_id = m.stream_id AND lower(ut.topic) = lower(m.topic) AND ut.visibility_policy ${p})`;
  return {
    id: 'm.id',
    senderId: 'm.sender_id',
    kind: 'm.recipient_kind',
    channelId: 'm.stream_id',
    topic: 'm.topic',
    directRecipients: 'm.direct_recipients',
    flags: v === null ? String(SPECTATOR_FLAGS) : history ? `COALESCE(um.flags, ${HISTORICAL_DEFAULT})` : 'um.flags',
    hasLink: 'm.has_link',
    hasAttachment: 'm.has_attachment',
    hasImage: 'm.has_image',
    hasReaction: 'EXISTS (SELECT 1 FROM reactions r WHERE r.message_id = m.id)',
    channelIsPublic: `COALESCE(m.stream_id = ANY(${intList(publicChannelIds(state))}), false)`,
    topicFollowed: v === null ? 'FALSE' : policy(`= ${VISIBILITY_POLICY.FOLLOWED}`),
    topicMuted:
      v === null
        ? 'FALSE'
        : `(${policy(`= ${VISIBILITY_POLICY.MUTED}`)} OR (m.stream_id = ANY(${intList(mutedChannelIds(state, v))}) AND NOT ${policy(`IN (${VISIBILITY_POLICY.UNMUTED}, ${VISIBILITY_POLICY.FOLLOWED})`)}))`,
    searchVector: 'm.search_tsv',
    content: 'm.content',
  };
}

/** The viewer's topic policies, for the predicate. */
export function topicPolicies(topics: UserTopic[]): Map<string, number> {
  return new Map(topics.map((t) => [`${t.channelId}:${t.topic.toLowerCase()}`, t.visibilityPolicy]));
}

/** Whether a channel message is hidden from the viewer by muting: a muted topic, or a channel they are subscribed
 *  to and muted whose topic is not unmuted or followed. */
export function isMutedFor(state: RealmState, viewerId: number, channelId: number, topic: string, policies: Map<string, number>): boolean {
  const policy = policies.get(`${channelId}:${topic.toLowerCase()}`) ?? 0;
  if (policy === VISIBILITY_POLICY.MUTED) return true;
  const sub = state.channels.subscription(viewerId, channelId);
  const channelMuted = sub?.active === true && sub.isMuted;
  return channelMuted && policy !== VISIBILITY_POLICY.UNMUTED && policy !== VISIBILITY_POLICY.FOLLOWED;
}

/** A stored message as the narrow predicate sees it, for the viewer. */
export function toNarrowMessage(
  state: RealmState,
  viewerId: number,
  m: StoredMessage,
  flags: number,
  hasReaction: boolean,
  policies: Map<string, number>,
): NarrowMessage {
  const isStream = m.kind === 'stream';
  const ch = isStream ? state.channels.byId.get(m.channelId!) : undefined;
  const policy = isStream ? (policies.get(`${m.channelId}:${m.topic.toLowerCase()}`) ?? 0) : 0;
  return {
    id: m.id,
    senderId: m.senderId,
    kind: m.kind,
    channelId: m.channelId,
    topic: m.topic,
    directRecipients: m.directRecipients,
    content: m.content,
    renderedContent: m.renderedContent,
    flags: new Set(flagNames(flags)),
    hasLink: m.hasLink,
    hasAttachment: m.hasAttachment,
    hasImage: m.hasImage,
    hasReaction,
    channelIsPublic: ch !== undefined && !ch.inviteOnly,
    topicIsFollowed: policy === VISIBILITY_POLICY.FOLLOWED,
    topicIsMuted: isStream && isMutedFor(state, viewerId, m.channelId!, m.topic, policies),
  };
}

