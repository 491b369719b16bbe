// Users: the authenticated user's own record.
import { formatUser } from '../../realm/user-format.js';
import { endpoint } from '../endpoint.js';

export const getOwnUser = endpoint({
  method: 'GET',
  path: '/users/me',
  auth: 'user',
  params: {},
  handle(ctx) {
    return { ...formatUser(ctx.user, { includeDeliveryEmail: true }), max_message_id: -1 };
  },
});
