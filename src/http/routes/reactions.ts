// Emoji reactions: POST and DELETE /messages/{message_id}/reactions.
import { endpoint, type Endpoint } from '../endpoint.js';
import { int, optional, required, str } from '../params.js';

const addReaction = endpoint({
  method: 'POST',
  path: '/messages/{message_id}/reactions',
  auth: 'user',
  params: {
    message_id: required(int({ min: 0 })),
    emoji_name: required(str({ maxLength: 100 })),
    emoji_code: optional(str({ maxLength: 100 })),
    reaction_type: optional(str({ maxLength: 30 })),
  },
  async handle(ctx, p) {
    await ctx.realm.dispatch('changeReaction', {
      userId: ctx.user.id,
      messageId: p.message_id,
      op: 'add',
      emojiName: p.emoji_name,
      emojiCode: p.emoji_code,
      reactionType: p.reaction_type,
    });
    return {};
  },
});

const removeReaction = endpoint({
  method: 'DELETE',
  path: '/messages/{message_id}/reactions',
  auth: 'user',
  params: {
    message_id: required(int({ min: 0 })),
    emoji_name: optional(str({ maxLength: 100 })),
    emoji_code: optional(str({ maxLength: 100 })),
    reaction_type: optional(str({ maxLength: 30 })),
  },
  async handle(ctx, p) {
    await ctx.realm.dispatch('changeReaction', {
      userId: ctx.user.id,
      messageId: p.message_id,
      op: 'remove',
      emojiName: p.emoji_name,
      emojiCode: p.emoji_code,
      reactionType: p.reaction_type,
    });
    return {};
  },
});

export const reactionEndpoints: Endpoint[] = [addReaction, removeReaction];
