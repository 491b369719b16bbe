// Published events as the tests read them: the audience as published, each event in its wire form (what a
// client with every capability receives, before its queue's own form).
import type { ClientCapability, RealmEvent } from '../../src/bus/events.js';
import { toWire } from '../../src/events/wire.js';

export interface PublishedWire extends Omit<RealmEvent, 'event' | 'legacy'> {
  event: Record<string, any>;
  legacy?: Partial<Record<ClientCapability, Record<string, any>[]>>;
}

export function wireForm(re: RealmEvent): PublishedWire {
  const out: PublishedWire = { ...re, event: toWire(re.event), legacy: undefined };
  if (re.legacy) out.legacy = Object.fromEntries(Object.entries(re.legacy).map(([cap, list]) => [cap, list.map(toWire)]));
  else delete out.legacy;
  return out;
}
