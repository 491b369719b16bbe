// The one path by which events leave the realm actor: publishEvents, after the write they describe committed.

/** A recipient: a user ID, or a user ID with fields only that user's copy carries (e.g. a message's `flags`). */
export type Recipient = number | { id: number; fields: Record<string, unknown> };

export interface RealmEvent {
  /** The event payload as clients receive it (without its queue-specific `id`). */
  event: Record<string, unknown> & { type: string };
  /** Users whose queues may receive it. */
  users: Recipient[];
}

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
