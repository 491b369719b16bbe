// The one path by which events leave the realm actor: publishEvents, after the write they describe committed.
import type { RealmEvent } from './events.js';

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
