// Shared pieces of the people tests: watching the events the realm publishes.
import type { RealmEvent } from '../../src/bus/events.js';
import { wireForm, type PublishedWire } from '../helpers/published.js';
import type { TestServer } from '../helpers/server.js';

export interface EventLog {
  events: PublishedWire[];
  /** Events of a type (and op), as published: wire payload plus recipients. */
  of(type: string, op?: string): PublishedWire[];
  clear(): void;
  stop(): void;
}

export function watchEvents(s: TestServer): EventLog {
  const events: PublishedWire[] = [];
  const stop = s.server.services.hub.subscribe((_realmId, evs) => events.push(...evs.map(wireForm)));
  return {
    events,
    of: (type, op) => events.filter((e) => e.event.type === type && (op === undefined || e.event.op === op)),
    clear: () => void events.splice(0),
    stop: () => void stop(),
  };
}

export function ids(recipients: RealmEvent['users']): number[] {
  return recipients.map((r) => (typeof r === 'number' ? r : r.id)).sort((a, b) => a - b);
}
