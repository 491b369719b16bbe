// Push devices: end-to-end encrypted registrations (E13), validated and stored per (user, push_account_id), and
// the legacy device tokens (APNs, FCM).
import { errors } from '../../errors.js';
import type { PushDevice, PushTokenKind } from '../../model/people.js';
import type { CommandDef } from '../commands.js';
import type { RealmState } from '../state.js';
import { actor } from '../access/roles.js';

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Standard base64 (RFC 4648 §4): the standard alphabet, padded, nothing else; not empty. */
export function isStandardBase64(s: string): boolean {
  return s.length > 0 && BASE64.test(s);
}

export function checkPushRegistration(d: PushDevice): PushDevice {
  if (!isStandardBase64(d.pushPublicKey)) throw errors.badRequest('Invalid push_public_key: not standard base64 (RFC 4648).');
  if (!isStandardBase64(d.encryptedPushRegistration)) {
    throw errors.badRequest('Invalid encrypted_push_registration: not standard base64 (RFC 4648).');
  }
  if (d.bouncerPublicKey.trim() === '') throw errors.badRequest('Invalid bouncer_public_key');
  return d;
}

/** Registers (or re-registers: same push_account_id replaces) a device; tells the user's clients it is pending. */
const register: CommandDef<PushDevice, PushDevice, PushDevice> = {
  check(state, input) {
    actor(state, input.userId);
    return checkPushRegistration(input);
  },
  async write(t, d) {
    await t.people.upsertPushDevice(d);
    return d;
  },
  events: (_state, d) => [{ event: { kind: 'push_device', pushAccountId: d.pushAccountId, status: 'pending' }, users: [d.userId] }],
};

/** The reference's validate_token: 1–4096 characters; APNs tokens must decode as base64 (leniently, as Python does:
 *  other characters are skipped, the data must be padded to whole quanta). */
function checkLegacyToken(token: string, kind: PushTokenKind): void {
  if (token === '' || token.length > 4096) throw errors.pushTokenLength();
  if (kind === 'apns') {
    const n = token.replace(/[^A-Za-z0-9+/]/g, '').length;
    const padding = token.replace(/[^=]/g, '').length;
    if (n % 4 === 1 || (n % 4 !== 0 && padding < 4 - (n % 4))) throw errors.invalidApnsToken();
  }
}

export interface LegacyTokenInput {
  userId: number;
  kind: PushTokenKind;
  token: string;
  /** The iOS app's ID (APNs tokens). */
  appId?: string;
}

function checkTokenRequest(state: RealmState, input: LegacyTokenInput): LegacyTokenInput {
  if (actor(state, input.userId).isBot) throw errors.notForBots();
  checkLegacyToken(input.token, input.kind);
  return input;
}

/** A legacy (not end-to-end encrypted) device token: stored whether or not a push service is configured. */
const addToken: CommandDef<LegacyTokenInput, LegacyTokenInput, void> = {
  batchable: true,
  check(state, input) {
    checkTokenRequest(state, input);
    if (input.kind === 'apns' && !/^[.a-zA-Z0-9-]+$/.test(input.appId ?? '')) throw errors.badRequest('appid has invalid format');
    return input;
  },
  write: async (t, p) => void (await t.pushTokens.add(p.userId, p.kind, p.token, p.kind === 'apns' ? p.appId! : null)),
};

const removeToken: CommandDef<LegacyTokenInput, LegacyTokenInput, void> = {
  batchable: true,
  check: checkTokenRequest,
  async write(t, p) {
    if (!(await t.pushTokens.remove(p.userId, p.kind, p.token))) throw errors.pushTokenMissing();
  },
};

export const pushCommands = { 'push.register': register, 'push.addToken': addToken, 'push.removeToken': removeToken };
