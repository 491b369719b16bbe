// The one path by which events leave the realm actor: publishEvents, after the write they describe committed.

/** A recipient: a user ID, or a user ID with fields only that user's copy carries (e.g. a message's `flags`). */
export type Recipient = number | { id: number; fields: Record<string, unknown> };

export interface RealmEvent {
  /** The event payload as clients receive it (without its queue-specific `id`). */
  event: Record<string, unknown> & { type: string };
  /** Users whose queues may receive it. */
  users: Recipient[];
  /**
   * What a queue registered without a client capability receives instead of `event` (e.g. without
   * `bulk_message_deletion`, one delete_message per message; an empty list sends nothing).
   */
  legacy?: Partial<Record<ClientCapability, (Record<string, unknown> & { type: string })[]>>;
  /** Queues registered with this capability do not receive the event (e.g. with user_list_incomplete, the
   *  "Unknown user" added in place of a user the recipient cannot access). */
  skipWith?: ClientCapability;
  /** Also for queues registered with all_public_streams in the realm (a message to a public channel). */
  allPublicStreams?: boolean;
  /** The sending client's queue gets `local_message_id` on its copy (local echo). */
  senderQueue?: { queueId: string; localId: string };
}

/** The client_capabilities a queue may register with (POST /register). */
export const CLIENT_CAPABILITIES = [
  'notification_settings_null',
  'bulk_message_deletion',
  'user_avatar_url_field_optional',
  'stream_typing_notifications',
  'user_settings_object',
  'linkifier_url_template',
  'user_list_incomplete',
  'include_deactivated_groups',
  'archived_channels',
  'empty_topic_name',
  'simplified_presence_events',
] as const;
export type ClientCapability = (typeof CLIENT_CAPABILITIES)[number];

export function recipientId(r: Recipient): number {
  return typeof r === 'number' ? r : r.id;
}

export type EventListener = (realmId: number, events: RealmEvent[]) => void;

export class EventHub {
  private listeners = new Set<EventListener>();
  published = 0;

  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Called only from realm-actor code, after the commit. */
  publishEvents(realmId: number, events: RealmEvent[]): void {
    if (events.length === 0) return;
    this.published += events.length;
    for (const l of this.listeners) l(realmId, events);
  }
}
