// Messages as the API returns them (the reference's message object), flag bits as names, and recipient IDs.
import type { MessageEvent } from '../../bus/events.js';
import { FLAG_BITS } from '../../narrow/index.js';
import { recipientIdOf, type EditHistoryEntry, type StoredMessage, type Reaction } from '../../model/messages.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import { topicForClient } from '../topics.js';
import { gravatarUrl } from '../user-format.js';
import { topicLinks } from './render.js';

/** Internal flag bit: the row belongs to a direct message (indexes recent conversations and unread DMs). */
export const IS_PRIVATE_BIT = 256;
/** Flags of a message the user can see without a row of their own (Zulip's historical default). */
export const HISTORICAL_DEFAULT = FLAG_BITS.read | FLAG_BITS.historical;

const FLAG_ORDER = Object.entries(FLAG_BITS) as [keyof typeof FLAG_BITS, number][];

/** Flag names of a bit set, with the deprecated wildcard_mentioned when either wildcard flag is set. */
export function flagNames(bits: number): string[] {
  const out: string[] = [];
  for (const [name, bit] of FLAG_ORDER) if (bits & bit) out.push(name);
  if (bits & (FLAG_BITS.stream_wildcard_mentioned | FLAG_BITS.topic_wildcard_mentioned)) out.push('wildcard_mentioned');
  return out;
}

export function formatReactions(reactions: Reaction[]): Record<string, unknown>[] {
  return reactions.map((r) => ({
    emoji_name: r.emojiName,
    emoji_code: r.emojiCode,
    reaction_type: r.reactionType,
    user_id: r.userId,
  }));
}

/** display_recipient of a direct message: every participant, by ID. */
export function directDisplayRecipient(state: RealmState, ids: number[]): Record<string, unknown>[] {
  return ids.map((id) => {
    const u = state.usersById.get(id);
    return { id, email: u ? state.apiEmailOf(u) : '', full_name: u?.fullName ?? '', is_mirror_dummy: false };
  });
}

export interface FormatOptions {
  applyMarkdown: boolean;
  clientGravatar: boolean;
  allowEmptyTopic: boolean;
}

function historyForClient(state: RealmState, history: EditHistoryEntry[], allowEmptyTopic: boolean): EditHistoryEntry[] {
  const policy = realmSetting(state, 'message_edit_history_visibility_policy');
  return history
    .map((e) => {
      const out = { ...e };
      if (policy === 'moves_only') {
        delete out.prev_content;
        delete out.prev_rendered_content;
      }
      if (out.topic !== undefined) out.topic = topicForClient(state, out.topic, allowEmptyTopic);
      if (out.prev_topic !== undefined) out.prev_topic = topicForClient(state, out.prev_topic, allowEmptyTopic);
      return out;
    })
    .filter((e) => Object.keys(e).length > 2);
}

/**
 * A message in the reference's shape, without `flags`. Content is HTML or Markdown per `applyMarkdown`;
 * the empty topic becomes the display name unless the client allows it.
 */
export function formatMessage(state: RealmState, m: StoredMessage, reactions: Reaction[], o: FormatOptions): Record<string, unknown> {
  const sender = state.usersById.get(m.senderId);
  const senderEmail = sender ? state.apiEmailOf(sender) : '';
  const isStream = m.kind === 'stream';
  const channel = isStream ? state.channels.byId.get(m.channelId!) : undefined;
  const out: Record<string, unknown> = {
    id: m.id,
    sender_id: m.senderId,
    content: o.applyMarkdown ? m.renderedContent : m.content,
    recipient_id: recipientIdOf(m),
    timestamp: m.dateSent,
    client: m.client,
    subject: isStream ? topicForClient(state, m.topic, o.allowEmptyTopic) : '',
    topic_links: isStream ? topicLinks(state, m.topic) : [],
    is_me_message: m.isMeMessage,
    reactions: formatReactions(reactions),
    submessages: [],
    sender_full_name: sender?.fullName ?? '',
    sender_email: senderEmail,
    sender_realm_str: state.realm.stringId,
    display_recipient: isStream ? (channel?.name ?? '') : directDisplayRecipient(state, m.directRecipients),
    type: isStream ? 'stream' : 'private',
    avatar_url: o.clientGravatar ? null : gravatarUrl(senderEmail),
    content_type: o.applyMarkdown ? 'text/html' : 'text/x-markdown',
  };
  if (isStream) out.stream_id = m.channelId;
  if (m.editHistory && m.editHistory.length > 0 && realmSetting(state, 'message_edit_history_visibility_policy') !== 'none') {
    const history = historyForClient(state, m.editHistory, o.allowEmptyTopic);
    if (history.length > 0) out.edit_history = history;
  }
  if (m.lastEditTime !== null) out.last_edit_timestamp = m.lastEditTime;
  if (m.lastMovedTime !== null) out.last_moved_timestamp = m.lastMovedTime;
  return out;
}

/**
 * A message for a message event before each queue's form is chosen (src/events/queue-form.ts): Markdown `content`
 * plus `rendered_content`, `stream_is_public` and `empty_topic_display_name`, which the narrow filter reads
 * and the queue form removes.
 */
function eventMessage(state: RealmState, m: StoredMessage, channelIsPublic: boolean): Record<string, unknown> {
  const out = formatMessage(state, m, [], { applyMarkdown: false, clientGravatar: false, allowEmptyTopic: true });
  out.rendered_content = m.renderedContent;
  out.stream_is_public = channelIsPublic;
  out.empty_topic_display_name = realmSetting(state, 'empty_topic_display_name');
  return out;
}

/** The event of a new message (it has no reactions yet), with what the narrow filters read about it. */
export function messageEvent(state: RealmState, m: StoredMessage): MessageEvent {
  const channelIsPublic = m.kind === 'stream' && state.channels.byId.get(m.channelId!)?.inviteOnly === false;
  const { id, senderId, kind, channelId, topic, directRecipients, content, renderedContent, hasLink, hasAttachment, hasImage } = m;
  return {
    kind: 'message',
    message: eventMessage(state, m, channelIsPublic),
    facts: { id, senderId, kind, channelId, topic, directRecipients, content, renderedContent, hasLink, hasAttachment, hasImage, hasReaction: false, channelIsPublic },
  };
}
