// What a spectator (a logged-out visitor of a realm with spectator access) may read: messages of web-public
// channels only, through narrows Zulip calls web-public and spectator-compatible, and always with flags ["read"].
import { errors } from '../../http/errors.js';
import { FLAG_BITS, narrowError, type NarrowOperator, type NarrowTerm } from '../../narrow/index.js';
import type { Repos } from '../../persistence/db.js';
import type { StoredMessage } from '../../persistence/repos/messages.js';
import type { Channel } from '../channels/types.js';
import type { RealmState } from '../state.js';

/** A spectator's flags on every message (Zulip treats everything as read for them). */
export const SPECTATOR_FLAGS = FLAG_BITS.read;

/** The narrow viewer ID used for spectators: their narrows have no operator that looks at the viewer. */
export const SPECTATOR_VIEWER_ID = 0;

/** Zulip's is_spectator_compatible: the operators a spectator's narrow may use (aliases already normalized). */
const SPECTATOR_OPERATORS: ReadonlySet<NarrowOperator> = new Set<NarrowOperator>([
  'channel',
  'channels',
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

/** A channel by name or ID as a narrow operand, only when web-public. */
export function webPublicChannelByOperand(state: RealmState, x: string | number): Channel | undefined {
  const asId = typeof x === 'string' && /^\d{1,10}$/.test(x) ? Number(x) : undefined;
  const ch = typeof x === 'number' ? state.channels.byId.get(x) : (state.channels.channelByName(x) ?? state.channels.byId.get(asId ?? -1));
  return ch?.isWebPublic ? ch : undefined;
}

/**
 * A spectator's narrow must be web-public (a positive `channels:web-public`, or a positive `channel` naming a
 * web-public channel) and use only spectator-compatible operators; otherwise the request is treated as one
 * that lacks its credentials (401), as Zulip does, so that nothing tells a missing login from a refused narrow.
 */
export function checkSpectatorNarrow(state: RealmState, terms: readonly NarrowTerm[]): void {
  if (terms.some((t) => !SPECTATOR_OPERATORS.has(t.operator))) throw errors.notLoggedIn();
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
export function spectatorMaySee(state: RealmState, m: Pick<StoredMessage, 'realmId' | 'kind' | 'streamId'>): boolean {
  if (m.realmId !== state.realm.id || m.kind !== 'stream') return false;
  return state.channels.byId.get(m.streamId!)?.isWebPublic === true;
}

/** Zulip's access_web_public_message: a message a spectator may read, else the missing-login error. */
export async function accessWebPublicMessage(db: Repos, state: RealmState, messageId: number): Promise<StoredMessage> {
  const message = await db.messages.byId(messageId);
  if (!message || !spectatorMaySee(state, message)) throw errors.notLoggedIn();
  return message;
}
