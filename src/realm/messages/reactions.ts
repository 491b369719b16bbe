// Emoji reactions: adding (by name, or name with code and type) and removing, with Zulip's validation, historical
// rows for reactions to messages the user never received, and the reaction event.
import type { RealmEvent } from '../../bus/events.js';
import { ApiError, errors } from '../../errors.js';
import type { Reaction, StoredMessage, UserMessageRow } from '../../model/messages.js';
import type { Tx } from '../../persistence/db.js';
import { messageKey, rowKey, valueOfOutcome, type CommandDef, type Outcome } from '../commands.js';
import { checkEmoji, emojiForName } from '../files/emoji.js';
import { actor } from '../access/roles.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { canSeeMessage, changeAudience } from '../access/messages.js';
import { HISTORICAL_DEFAULT } from './format.js';
import { inRounds } from '../write-order.js';

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

/** The reaction a plan adds or removes, given the message's reactions; throws ApiError to refuse. */
function planned(state: RealmState, p: ReactionPlan, message: StoredMessage, reactions: Reaction[]): Reaction {
  const same = reactions.filter((r) => r.emojiCode === p.code && r.reactionType === p.type);
  if (p.input.op === 'remove') {
    const mine = same.find((r) => r.userId === p.user.id);
    if (!mine) throw errors.reactionDoesNotExist();
    return mine;
  }
  if (same.some((r) => r.userId === p.user.id)) throw errors.reactionExists();
  // A vote for an existing reaction keeps that reaction's name.
  const name = same[0]?.emojiName ?? p.input.emojiName!;
  if (same.length === 0) checkEmoji(state, name, p.code, p.type);
  return { messageId: message.id, userId: p.user.id, emojiName: name, emojiCode: p.code, reactionType: p.type };
}

/**
 * Plans that touch no user's reactions to a message twice, written together as write() would one after another: the
 * messages, their rows and reactions read once, each plan worked out against what the plans before it left (the
 * message's reactions and holders, kept up to date here), then the historical rows, the added and the removed
 * reactions in one statement each. (Within a round no plan removes a reaction another adds: both would be one
 * user's on one message.)
 */
async function writeRound(t: Tx, plans: ReactionPlan[], state: RealmState): Promise<Outcome<ReactionResult>[]> {
  const ids = [...new Set(plans.map((p) => p.input.messageId))];
  const messages = new Map((await t.messages.byIds(ids)).map((m) => [m.id, m]));
  const holders = new Map<number, Set<number>>(ids.map((id) => [id, new Set()]));
  for (const row of await t.userMessages.rowsFor(ids)) holders.get(row.messageId)?.add(row.userId);
  const reactions = new Map<number, Reaction[]>(ids.map((id) => [id, []]));
  for (const r of await t.reactions.forMessages(ids)) reactions.get(r.messageId)?.push(r);
  const historical: UserMessageRow[] = [];
  const added: Reaction[] = [];
  const removed: Reaction[] = [];
  const outcomes = plans.map((p): Outcome<ReactionResult> => {
    const message = messages.get(p.input.messageId);
    const has = holders.get(p.input.messageId)!;
    try {
      if (!message || message.realmId !== state.realm.id || !canSeeMessage(state, p.user, message, has.has(p.user.id))) throw errors.invalidMessage();
      const onMessage = reactions.get(message.id)!;
      const reaction = planned(state, p, message, onMessage);
      if (p.input.op === 'add') {
        if (!has.has(p.user.id)) historical.push({ userId: p.user.id, messageId: message.id, flags: HISTORICAL_DEFAULT });
        has.add(p.user.id);
        added.push(reaction);
        onMessage.push(reaction);
      } else {
        removed.push(reaction);
        onMessage.splice(onMessage.indexOf(reaction), 1);
      }
      return { ok: true, value: { op: p.input.op, reaction, message, audience: changeAudience(state, has, message.channelId) } };
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      return { ok: false, error: err };
    }
  });
  await t.userMessages.insertMissing(historical);
  await t.reactions.addMany(added);
  await t.reactions.removeMany(removed);
  return outcomes;
}

/**
 * Reactions written in rounds of plans by different users or on different messages (most batches: one round), each
 * round in a few statements whatever its size.
 */
function writeReactions(t: Tx, plans: ReactionPlan[], state: RealmState): Promise<Outcome<ReactionResult>[]> {
  return inRounds(plans, (p) => [rowKey(p.user.id, p.input.messageId)], (round) => writeRound(t, round, state));
}

// Batchable: the check reads the user and the realm's emoji (changed only by commands that run alone); the write
// reads the message's reactions inside the batch's transaction, so it sees the writes before it; nothing to apply.
export const changeReaction: CommandDef<ReactionInput, ReactionPlan, ReactionResult> = {
  batchable: true,
  // The message's reactions and who holds it (it may add the user's row), of a message the working set knows.
  touches: (state, input) => (input.messageId <= state.messages.lastId ? [messageKey(input.messageId), rowKey(input.userId, input.messageId)] : undefined),
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
    return valueOfOutcome((await writeRound(t, [p], state))[0]);
  },

  writeBatch: writeReactions,

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
