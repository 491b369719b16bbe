// What a queue was registered with (POST /register): kept with the queue, persisted across restarts, and
// consulted by the router for every event.
import { CLIENT_CAPABILITIES, type ClientCapability } from '../bus/events.js';

export interface QueueRegistration {
  /** null: every type. */
  eventTypes: string[] | null;
  /** Register's narrow, as [operator, operand] pairs; [] for none. */
  narrow: [string, string][];
  allPublicStreams: boolean;
  applyMarkdown: boolean;
  clientGravatar: boolean;
  slimPresence: boolean;
  includeSubscribers: 'true' | 'false' | 'partial';
  capabilities: Record<ClientCapability, boolean>;
  /** The User-Agent's client name, for heuristics such as read_by_sender. */
  clientName: string;
}

export function capabilitiesFrom(raw: Record<string, unknown> | undefined): Record<ClientCapability, boolean> {
  const out = {} as Record<ClientCapability, boolean>;
  for (const c of CLIENT_CAPABILITIES) out[c] = raw?.[c] === true;
  return out;
}

/** Event types clients may ask for by another name: the contract says `realm_user_groups` for the events real
 *  clients receive as `user_group`. */
const TYPE_ALIASES: Record<string, string> = { user_group: 'realm_user_groups' };

/** Whether a registration asked for events of this type. */
export function wantsType(reg: QueueRegistration, type: string): boolean {
  if (reg.eventTypes === null || reg.eventTypes.includes(type)) return true;
  const alias = TYPE_ALIASES[type];
  return alias !== undefined && reg.eventTypes.includes(alias);
}

/** The client name from a User-Agent such as `ZulipMobile/27.1 (Android 14)`: the part before the slash. */
export function clientNameFrom(userAgent: string | undefined): string {
  const first = (userAgent ?? '').trim().split(/[\s/]/)[0] ?? '';
  return first.slice(0, 64) || 'API';
}
