// GET /messages/{message_id}/read_receipts: who has read a message the caller can see, as the reference
// filters it (read receipts on in the realm; readers active, sharing read receipts, not the sender, neither
// muted by nor muting the caller).
import { accessMessage } from '../../realm/access/messages.js';
import { userSetting } from '../../realm/people/user-settings.js';
import { realmSetting } from '../../realm/realm-settings.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { int, required } from '../../params.js';

export const readReceipts = endpoint({
  method: 'GET',
  path: '/messages/{message_id}/read_receipts',
  auth: 'user',
  params: { message_id: required(int({ min: 0 })) },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const { message } = await accessMessage(ctx.services.db, state, ctx.user, p.message_id);
    if (!realmSetting(state, 'enable_read_receipts')) throw errors.readReceiptsDisabled();
    const me = ctx.user.id;
    const user_ids = (await ctx.services.db.userMessages.readBy(message.id)).filter((id) => {
      const u = state.usersById.get(id);
      return (
        u !== undefined &&
        u.isActive &&
        userSetting(u, 'send_read_receipts') !== false &&
        id !== message.senderId &&
        !state.people.hasMuted(id, me) &&
        !state.people.hasMuted(me, id)
      );
    });
    return { user_ids };
  },
});
