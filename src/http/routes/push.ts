// Push devices: POST /mobile_push/register (E13) for end-to-end encrypted push notifications, and the legacy token
// endpoints.
import type { PushTokenKind } from '../../persistence/repos/push-tokens.js';
import { endpoint, type Endpoint, type RequestContext } from '../endpoint.js';
import { errors } from '../errors.js';
import { enumOf, int, optional, required, str } from '../params.js';

export const registerPushDevice = endpoint({
  method: 'POST',
  path: '/mobile_push/register',
  auth: 'user',
  params: {
    token_kind: required(enumOf(['fcm', 'apns'] as const)),
    push_account_id: required(int()),
    push_public_key: required(str({ maxLength: 4096 })),
    bouncer_public_key: required(str({ maxLength: 4096 })),
    encrypted_push_registration: required(str({ maxLength: 65536 })),
  },
  async handle(ctx, p) {
    if (!ctx.services.config.pushServiceUrl) throw errors.pushServiceNotConfigured();
    await ctx.realm.dispatch('push.register', {
      userId: ctx.user.id,
      pushAccountId: p.push_account_id,
      tokenKind: p.token_kind,
      pushPublicKey: p.push_public_key,
      bouncerPublicKey: p.bouncer_public_key,
      encryptedPushRegistration: p.encrypted_push_registration,
    });
    return {};
  },
});


// The legacy (not end-to-end encrypted) registrations: POST/DELETE /users/me/apns_device_token and
// /users/me/android_gcm_reg_id. Human users only; tokens are stored whether or not a push service is configured.

const APNS_APP_ID = /^[.a-zA-Z0-9-]+$/;

/** The reference's validate_token: 1–4096 characters; APNs tokens must decode as base64 (lenient, as Python's). */
function checkToken(token: string, kind: PushTokenKind): void {
  if (token === '' || token.length > 4096) throw errors.pushTokenLength();
  if (kind === 'apns') {
    // Python's lenient b64decode: other characters are skipped; the data must be padded to whole quanta.
    const n = token.replace(/[^A-Za-z0-9+/]/g, '').length;
    const padding = token.replace(/[^=]/g, '').length;
    if (n % 4 === 1 || (n % 4 !== 0 && padding < 4 - (n % 4))) throw errors.invalidApnsToken();
  }
}

function humanUser(ctx: RequestContext<'user'>) {
  if (ctx.user.isBot) throw errors.notForBots();
  return ctx.user;
}

function legacyTokenEndpoints(path: string, kind: PushTokenKind): Endpoint[] {
  const add = endpoint({
    method: 'POST',
    path,
    auth: 'user',
    params: { token: required(str({ maxLength: 10_000 })), appid: kind === 'apns' ? required(str({ maxLength: 1000 })) : optional(str({ maxLength: 1000 })) },
    async handle(ctx, p) {
      const user = humanUser(ctx);
      checkToken(p.token, kind);
      if (kind === 'apns' && !APNS_APP_ID.test(p.appid!)) throw errors.badRequest('appid has invalid format');
      await ctx.services.db.pushTokens.add(user.id, kind, p.token, kind === 'apns' ? p.appid! : null);
      return {};
    },
  });
  const remove = endpoint({
    method: 'DELETE',
    path,
    auth: 'user',
    params: { token: required(str({ maxLength: 10_000 })) },
    async handle(ctx, p) {
      const user = humanUser(ctx);
      checkToken(p.token, kind);
      if (!(await ctx.services.db.pushTokens.remove(user.id, kind, p.token))) throw errors.pushTokenMissing();
      return {};
    },
  });
  return [add, remove];
}

export const pushEndpoints = [
  registerPushDevice,
  ...legacyTokenEndpoints('/users/me/apns_device_token', 'apns'),
  ...legacyTokenEndpoints('/users/me/android_gcm_reg_id', 'fcm'),
];
