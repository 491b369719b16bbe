// Push devices: POST /mobile_push/register (E13) for end-to-end encrypted push notifications, and the legacy token
// endpoints.
import type { PushTokenKind } from '../../model/people.js';
import { endpoint, type Endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { enumOf, int, required, str } from '../../params.js';

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
// /users/me/android_gcm_reg_id (human users only).
function legacyTokenEndpoints(path: string, kind: PushTokenKind): Endpoint[] {
  const token = required(str({ maxLength: 10_000 }));
  const add = endpoint({
    method: 'POST',
    path,
    auth: 'user',
    params: kind === 'apns' ? { token, appid: required(str({ maxLength: 1000 })) } : { token },
    async handle(ctx, p) {
      const appId = 'appid' in p ? (p.appid as string) : undefined;
      await ctx.realm.dispatch('push.addToken', { userId: ctx.user.id, kind, token: p.token, appId });
      return {};
    },
  });
  const remove = endpoint({
    method: 'DELETE',
    path,
    auth: 'user',
    params: { token },
    async handle(ctx, p) {
      await ctx.realm.dispatch('push.removeToken', { userId: ctx.user.id, kind, token: p.token });
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
