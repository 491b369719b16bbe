// The records of messages: stored messages and their edit history, per-user rows, reactions, linkifiers and code
// playgrounds (as the repositories return them); where a message goes, and the API's recipient_id encoding.

/** Where a message goes: a channel's topic, or a direct conversation. */
export interface MessageAddress {
  kind: 'stream' | 'direct';
  /** null for a direct message. */
  channelId: number | null;
  /** "" for a direct message (and for a channel's empty topic). */
  topic: string;
  /** Sorted, distinct participants including the sender; [] for channel messages. */
  directRecipients: number[];
}

/** The realm's empty_topic_display_name until an administrator changes it. */
export const DEFAULT_EMPTY_TOPIC_DISPLAY_NAME = 'general chat';

/** A topic as a client sees it: the empty topic ("") shows as the realm's empty-topic display name unless the
 *  client handles "" (the empty_topic_name capability, or allow_empty_topic_name). */
export function shownTopic(topic: string, emptyTopicDisplayName: string, allowEmpty: boolean): string {
  return topic === '' && !allowEmpty ? emptyTopicDisplayName : topic;
}

/** The API's recipient_id of a channel: 2 × its ID. */
export function channelRecipientId(channelId: number): number {
  return 2 * channelId;
}

/** The API's recipient_id of a direct conversation: 2 × its ID + 1. */
export function directRecipientId(conversationId: number): number {
  return 2 * conversationId + 1;
}

/** The direct conversation a direct message's recipient_id names. */
export function conversationIdOf(recipientId: number): number {
  return (recipientId - 1) / 2;
}

/** A message's recipient_id (a channel message's follows its channel, also after a move). */
export function recipientIdOf(m: Pick<StoredMessage, 'kind' | 'channelId' | 'recipientId'>): number {
  return m.kind === 'stream' ? channelRecipientId(m.channelId!) : m.recipientId;
}

export interface EditHistoryEntry {
  user_id: number | null;
  timestamp: number;
  prev_content?: string;
  prev_rendered_content?: string;
  prev_topic?: string;
  topic?: string;
  prev_stream?: number;
  stream?: number;
}

export interface StoredMessage extends MessageAddress {
  id: number;
  realmId: number;
  senderId: number;
  content: string;
  renderedContent: string;
  /** UNIX seconds. */
  dateSent: number;
  lastEditTime: number | null;
  lastMovedTime: number | null;
  hasLink: boolean;
  hasAttachment: boolean;
  hasImage: boolean;
  /** See recipientIdOf. */
  recipientId: number;
  client: string;
  isMeMessage: boolean;
  /** Newest first; null when never edited or moved. */
  editHistory: EditHistoryEntry[] | null;
}

/** A message just inserted: its ID and what the send's automatic topic visibility needs. */
export interface InsertedMessage {
  id: number;
  /** lower(topic): the key topics compare by (channel messages). */
  topicKey: string;
  /** Whether a channel message's topic had a message before this one's statement. */
  topicExisted: boolean;
}

export type NewMessage = Omit<StoredMessage, 'id' | 'lastEditTime' | 'lastMovedTime' | 'editHistory'>;

/** What rendering a message's content tells about it. */
export interface RenderedFacts {
  html: string;
  hasLink: boolean;
  hasAttachment: boolean;
  hasImage: boolean;
  isMeMessage: boolean;
}

/** A message about to be written, sent now. A direct message's recipientId is 0 until its conversation's ID is
 *  known (the write sets it). */
export function newMessage(realmId: number, senderId: number, to: MessageAddress, content: string, rendered: RenderedFacts, client: string): NewMessage {
  return {
    realmId,
    senderId,
    kind: to.kind,
    channelId: to.channelId,
    topic: to.topic,
    directRecipients: to.directRecipients,
    content,
    renderedContent: rendered.html,
    dateSent: Math.floor(Date.now() / 1000),
    hasLink: rendered.hasLink,
    hasAttachment: rendered.hasAttachment,
    hasImage: rendered.hasImage,
    recipientId: to.channelId === null ? 0 : channelRecipientId(to.channelId),
    client,
    isMeMessage: rendered.isMeMessage,
  };
}

/**
 * A new message as stored under its ID, never edited. Written out field by field: a copy by spread followed by keys
 * its source lacks (`{ ...m, id, lastEditTime: null, … }`) takes V8's slow path for every added key (about a
 * microsecond each, per message sent).
 */
export function storedMessage(m: NewMessage, id: number): StoredMessage {
  return {
    id,
    realmId: m.realmId,
    senderId: m.senderId,
    kind: m.kind,
    channelId: m.channelId,
    topic: m.topic,
    directRecipients: m.directRecipients,
    content: m.content,
    renderedContent: m.renderedContent,
    dateSent: m.dateSent,
    lastEditTime: null,
    lastMovedTime: null,
    hasLink: m.hasLink,
    hasAttachment: m.hasAttachment,
    hasImage: m.hasImage,
    recipientId: m.recipientId,
    client: m.client,
    isMeMessage: m.isMeMessage,
    editHistory: null,
  };
}

/** What an edit changes on one message. */
export interface MessageChange {
  id: number;
  content?: { content: string; renderedContent: string; hasLink: boolean; hasAttachment: boolean; hasImage: boolean; isMeMessage: boolean };
  topic?: string;
  channelId?: number;
  recipientId?: number;
  editHistory: EditHistoryEntry[];
  editTime: Date;
  moved: boolean;
}

export interface Playground {
  id: number;
  name: string;
  pygmentsLanguage: string;
  urlTemplate: string;
}

export interface Reaction {
  messageId: number;
  userId: number;
  emojiName: string;
  emojiCode: string;
  reactionType: string;
}

export interface UserMessageRow {
  userId: number;
  messageId: number;
  flags: number;
}

/** An unread message with what the unread_msgs structure needs. */
export interface UnreadRow extends MessageAddress {
  id: number;
  senderId: number;
  flags: number;
}

export interface Linkifier {
  id: number;
  pattern: string;
  urlTemplate: string;
}
