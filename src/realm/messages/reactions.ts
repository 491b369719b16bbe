// Emoji reactions: adding (by name, or name with code and type) and removing, with Zulip's validation, historical
// rows for reactions to messages the user never received, and the reaction event.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { Reaction, StoredMessage } from '../../model/messages.js';
import type { CommandDef } from '../commands.js';
import { checkEmoji, emojiForName } from '../files/emoji.js';
import { actor } from '../access/roles.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { accessMessage, changeAudience } from '../access/messages.js';
import { HISTORICAL_DEFAULT } from './format.js';

export interface ReactionInput {
  userId: number;
  messageId: number;
  op: 'add' | 'remove';
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
}

interface ReactionPlan {
  user: User;
  input: ReactionInput;
  code: string;
  type: string;
}

export interface ReactionResult {
  op: 'add' | 'remove';
  reaction: Reaction;
  message: StoredMessage;
  audience: number[];
}

// Batchable: the check reads the user and the realm's emoji (changed only by commands that run alone); the write
// reads the message's reactions inside the batch's transaction, so it sees the writes before it; nothing to apply.
export const changeReaction: CommandDef<ReactionInput, ReactionPlan, ReactionResult> = {
  batchable: true,
  check(state, input) {
    const user = actor(state, input.userId);
    if (input.op === 'remove') {
      if (input.emojiCode !== undefined) return { user, input, code: input.emojiCode, type: input.reactionType ?? 'unicode_emoji' };
      if (input.emojiName === undefined) throw errors.reactionNeedsEmoji();
      const found = emojiForName(state, input.emojiName);
      return { user, input, code: found.code, type: input.reactionType ?? found.type };
    }
    const name = input.emojiName!;
    if (input.emojiCode !== undefined && input.reactionType !== undefined) {
      return { user, input, code: input.emojiCode, type: input.reactionType };
    }
    const found = emojiForName(state, name);
    return { user, input, code: found.code, type: found.type };
  },

  async write(t, p, state) {
    const { message, hasRow } = await accessMessage(t, state, p.user, p.input.messageId);
    const existing = await t.reactions.forMessages([message.id]);
    const same = existing.filter((r) => r.emojiCode === p.code && r.reactionType === p.type);
    let reaction: Reaction | null;
    if (p.input.op === 'add') {
      if (same.some((r) => r.userId === p.user.id)) throw errors.reactionExists();
      // A vote for an existing reaction keeps that reaction's name.
      const name = same[0]?.emojiName ?? p.input.emojiName!;
      if (same.length === 0) checkEmoji(state, name, p.code, p.type);
      if (!hasRow) await t.userMessages.insertMissing([{ userId: p.user.id, messageId: message.id, flags: HISTORICAL_DEFAULT }]);
      reaction = { messageId: message.id, userId: p.user.id, emojiName: name, emojiCode: p.code, reactionType: p.type };
      await t.reactions.add(reaction);
    } else {
      reaction = await t.reactions.remove(message.id, p.user.id, p.code, p.type);
      if (!reaction) throw errors.reactionDoesNotExist();
    }
    const holders = (await t.userMessages.rowsFor([message.id])).map((r) => r.userId);
    return { op: p.input.op, reaction, message, audience: changeAudience(state, holders, message.channelId) };
  },

  events(state, r): RealmEvent[] {
    const u = state.usersById.get(r.reaction.userId);
    return [
      {
        event: {
          kind: 'reaction',
          op: r.op,
          user: { userId: r.reaction.userId, email: u ? state.apiEmailOf(u) : '', fullName: u?.fullName ?? '' },
          messageId: r.message.id,
          emojiName: r.reaction.emojiName,
          emojiCode: r.reaction.emojiCode,
          reactionType: r.reaction.reactionType,
        },
        users: r.audience,
      },
    ];
  },
};
