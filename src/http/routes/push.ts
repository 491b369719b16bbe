// POST /mobile_push/register (E13): register a device for end-to-end encrypted push notifications.
import { endpoint } from '../endpoint.js';
import { errors } from '../errors.js';
import { enumOf, int, required, str } from '../params.js';

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

export const pushEndpoints = [registerPushDevice];
