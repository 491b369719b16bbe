// The records of messages: stored messages and their edit history, per-user rows, reactions, linkifiers and code playgrounds (as the repositories return them).

export interface Linkifier {
  id: number;
  pattern: string;
  urlTemplate: string;
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

export interface StoredMessage {
  id: number;
  realmId: number;
  senderId: number;
  kind: 'stream' | 'direct';
  channelId: number | null;
  topic: string;
  /** Sorted participants including the sender; [] for channel messages. */
  directRecipients: number[];
  content: string;
  renderedContent: string;
  /** UNIX seconds. */
  dateSent: number;
  lastEditTime: number | null;
  lastMovedTime: number | null;
  hasLink: boolean;
  hasAttachment: boolean;
  hasImage: boolean;
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
export interface UnreadRow {
  id: number;
  senderId: number;
  kind: 'stream' | 'direct';
  channelId: number | null;
  topic: string;
  directRecipients: number[];
  flags: number;
}
