// The one path by which events leave the realm actor: publishEvents, after the write they describe committed.
// A listener that throws is logged under its name and the others still run: it never reaches the realm actor.
import type { Logger } from '../log.js';
import type { RealmEvent } from './events.js';

export type EventListener = (realmId: number, events: RealmEvent[]) => void;

export class EventHub {
  private listeners = new Map<EventListener, string>();
  published = 0;

  constructor(private readonly log: Pick<Logger, 'error'>) {}

  /** `name` is what the log calls the listener when it throws. */
  subscribe(listener: EventListener, name: string = listener.name || 'event listener'): () => void {
    this.listeners.set(listener, name);
    return () => this.listeners.delete(listener);
  }

  /** Called only from realm-actor code, after the commit. */
  publishEvents(realmId: number, events: RealmEvent[]): void {
    if (events.length === 0) return;
    this.published += events.length;
    for (const [l, name] of this.listeners) {
      try {
        l(realmId, events);
      } catch (err) {
        this.log.error({ err, listener: name, realmId }, 'event listener failed');
      }
    }
  }
}
