// Emoji reactions: POST and DELETE /messages/{message_id}/reactions.
import { endpoint, type Endpoint } from '../endpoint.js';
import { int, optional, required, str } from '../../params.js';

/** POST adds a reaction, DELETE removes one; both name the emoji the same way (DELETE may omit the name). */
function reactionEndpoint(method: 'POST' | 'DELETE', op: 'add' | 'remove', nameRequired: boolean) {
  return endpoint({
    method,
    path: '/messages/{message_id}/reactions',
    auth: 'user',
    params: {
      message_id: required(int({ min: 0 })),
      emoji_name: nameRequired ? required(str({ maxLength: 100 })) : optional(str({ maxLength: 100 })),
      emoji_code: optional(str({ maxLength: 100 })),
      reaction_type: optional(str({ maxLength: 30 })),
    },
    async handle(ctx, p) {
      await ctx.realm.dispatch('reactions.change', {
        userId: ctx.user.id,
        messageId: p.message_id,
        op,
        emojiName: p.emoji_name,
        emojiCode: p.emoji_code,
        reactionType: p.reaction_type,
      });
      return {};
    },
  });
}

const addReaction = reactionEndpoint('POST', 'add', true);
const removeReaction = reactionEndpoint('DELETE', 'remove', false);

export const reactionEndpoints: Endpoint[] = [addReaction, removeReaction];
