// What a spectator (a logged-out visitor of a realm with spectator access) may read: messages of web-public
// channels only, through narrows Zulip calls web-public and spectator-compatible, and always with flags ["read"].
import { errors } from '../../errors.js';
import { FLAG_BITS, narrowError, type NarrowTerm } from '../../narrow/index.js';
import type { Repos } from '../../persistence/db.js';
import type { StoredMessage } from '../../model/messages.js';
import type { Channel } from '../../model/channels.js';
import type { RealmState } from '../state.js';

/** A spectator's flags on every message (Zulip treats everything as read for them). */
export const SPECTATOR_FLAGS = FLAG_BITS.read;

/** The narrow viewer ID used for spectators: their narrows have no operator that looks at the viewer. */
export const SPECTATOR_VIEWER_ID = 0;

/** Zulip's is_spectator_compatible: the operators (as sent, aliases included) a spectator's narrow may use. */
const SPECTATOR_OPERATORS: ReadonlySet<string> = new Set([
  'channel',
  'stream',
  'channels',
  'streams',
  'topic',
  'sender',
  'has',
  'search',
  'near',
  'id',
  'with',
]);

/** The realm's web-public channels. */
export function webPublicChannels(state: RealmState): Channel[] {
  return [...state.channels.byId.values()].filter((c) => c.isWebPublic);
}

export function webPublicChannelIds(state: RealmState): number[] {
  return webPublicChannels(state).map((c) => c.id);
}

/** An ID as legacy narrow pairs carry it: an all-digits string. */
export function operandId(x: string): number | undefined {
  return /^\d{1,10}$/.test(x) ? Number(x) : undefined;
}

/** A channel by name or ID as a narrow operand: a name wins, an all-digits string falls back to the ID. */
export function channelByOperand(state: RealmState, x: string | number): Channel | undefined {
  return typeof x === 'number' ? state.channels.byId.get(x) : (state.channels.channelByName(x) ?? state.channels.byId.get(operandId(x) ?? -1));
}

/** A channel by name or ID as a narrow operand, only when web-public. */
export function webPublicChannelByOperand(state: RealmState, x: string | number): Channel | undefined {
  const ch = channelByOperand(state, x);
  return ch?.isWebPublic ? ch : undefined;
}

/**
 * Zulip's is_spectator_compatible, on the narrow as sent (before parsing, as Zulip checks it before building the
 * query): any operator but these, unknown ones included, makes the request one that needs a login (401).
 * Elements too malformed to name an operator are left to the parser's 400.
 */
export function checkSpectatorOperators(narrow: unknown): void {
  if (!Array.isArray(narrow)) return;
  for (const elem of narrow) {
    const operator = Array.isArray(elem) ? elem[0] : elem !== null && typeof elem === 'object' ? (elem as Record<string, unknown>).operator : undefined;
    if (typeof operator === 'string' && !SPECTATOR_OPERATORS.has(operator)) throw errors.notLoggedIn();
  }
}

/**
 * Zulip's is_web_public_narrow, widened to a channel term: a spectator's parsed narrow must hold a positive
 * `channels:web-public` or a positive `channel` naming a web-public channel, else the request needs a login (401),
 * so that nothing tells a missing login from a refused narrow.
 */
export function checkWebPublicNarrow(state: RealmState, terms: readonly NarrowTerm[]): void {
  const webPublic = terms.some(
    (t) =>
      !t.negated &&
      ((t.operator === 'channels' && t.operand === 'web-public') ||
        (t.operator === 'channel' && webPublicChannelByOperand(state, t.operand) !== undefined)),
  );
  if (!webPublic) throw errors.notLoggedIn();
}

/**
 * The channel of a spectator's `channel` term. Anything else than a web-public channel, existing or not, is
 * Zulip's "unknown web-public channel X", so the answer does not tell which private channels exist.
 */
export function spectatorChannel(state: RealmState, x: string | number): Channel {
  const ch = webPublicChannelByOperand(state, x);
  if (!ch) throw narrowError(`unknown web-public channel ${x}`);
  return ch;
}

/** Whether a spectator may read this message: a message of a web-public channel of the realm. */
export function spectatorMaySee(state: RealmState, m: Pick<StoredMessage, 'realmId' | 'kind' | 'channelId'>): boolean {
  if (m.realmId !== state.realm.id || m.kind !== 'stream') return false;
  return state.channels.byId.get(m.channelId!)?.isWebPublic === true;
}

/** Zulip's access_web_public_message: a message a spectator may read, else the missing-login error. */
export async function accessWebPublicMessage(db: Repos, state: RealmState, messageId: number): Promise<StoredMessage> {
  const message = await db.messages.byId(messageId);
  if (!message || !spectatorMaySee(state, message)) throw errors.notLoggedIn();
  return message;
}
