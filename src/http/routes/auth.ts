// POST /fetch_api_key: exchange an email and password for the account's API key.
import { verifyPassword } from '../../auth/secrets.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { required, str } from '../../params.js';

export const fetchApiKey = endpoint({
  method: 'POST',
  path: '/fetch_api_key',
  auth: 'none',
  params: {
    username: required(str({ maxLength: 254 })),
    password: required(str({ maxLength: 1024 })),
  },
  async handle(ctx, { username, password }) {
    ctx.services.rateLimiter.passwordAttempt(ctx.request.remoteAddress);
    const state = ctx.realm.state;
    const user = state.userByEmail(username);
    // The same work and the same answer for an unknown user and a wrong password.
    const ok = await verifyPassword(password, user?.passwordHash ?? null, ctx.services.config.passwordHashCost);
    if (!user || !ok) throw errors.authenticationFailed();
    if (state.realm.deactivated) throw errors.realmDeactivated();
    if (!user.isActive) throw errors.userDeactivated();
    return { api_key: user.apiKey, email: user.email, user_id: user.id };
  },
  response: { api_key: { type: 'string' }, email: { type: 'string' }, user_id: { type: 'integer' } },
});
