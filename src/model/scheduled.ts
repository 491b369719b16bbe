// The records of scheduled messages and reminders (as the repositories return them).

export interface ScheduledMessage {
  id: number;
  realmId: number;
  senderId: number;
  type: 'stream' | 'private';
  channelId: number | null;
  /** Direct recipients (sorted), null for channel messages. */
  userIds: number[] | null;
  topic: string;
  content: string;
  renderedContent: string;
  /** Seconds. */
  scheduledAt: number;
  readBySender: boolean | null;
  sendingClient: string;
  version: number;
  delivered: boolean;
  deliveredMessageId: number | null;
  failed: boolean;
  failureMessage: string | null;
  /** `remind`: a reminder, sent to its sender by the notification bot. */
  deliveryType: DeliveryType;
  /** The message a reminder is about. */
  reminderTargetMessageId: number | null;
}

export type DeliveryType = 'send' | 'remind';

export type NewScheduledMessage = Pick<
  ScheduledMessage,
  'realmId' | 'senderId' | 'type' | 'channelId' | 'userIds' | 'topic' | 'content' | 'renderedContent' | 'scheduledAt' | 'readBySender' | 'sendingClient'
> &
  Partial<Pick<ScheduledMessage, 'deliveryType' | 'reminderTargetMessageId'>>;

export type ScheduledChanges = Partial<
  Pick<ScheduledMessage, 'type' | 'channelId' | 'userIds' | 'topic' | 'content' | 'renderedContent' | 'scheduledAt'>
>;

/** What the delivery actor needs to know of a pending message. */
export interface DueEntry {
  id: number;
  realmId: number;
  scheduledAt: number;
}
