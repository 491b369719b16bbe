// End-to-end encrypted push device registrations (E13): validated values, stored per (user, push_account_id).
import { errors } from '../../http/errors.js';
import type { PushDevice } from '../../persistence/repos/people.js';
import type { CommandDef } from '../commands.js';
import { actor } from './access.js';

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
  events: (_state, d) => [{ event: { type: 'push_device', push_account_id: String(d.pushAccountId), status: 'pending' }, users: [d.userId] }],
};

export const pushCommands = { 'push.register': register };
