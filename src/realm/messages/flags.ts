// Personal message flags (POST /messages/flags and the mark-as-read operations): Zulip's state table, historical
// rows for messages the user never received, and the update_message_flags event.
import type { MessageFlagsEvent, RealmEvent } from '../../bus/events.js';
import { ApiError, errors } from '../../errors.js';
import { FLAG_BITS } from '../../narrow/index.js';
import { MAX_TOUCHED_KEYS, messageKey, rowKey, valueOfOutcome, type CommandDef, type Outcome } from '../commands.js';
import type { Tx } from '../../persistence/db.js';
import { flagsKey } from '../../persistence/repos/user-messages.js';
import type { UserMessageRow } from '../../model/messages.js';
import type { RealmState } from '../state.js';
import { actor } from '../access/roles.js';
import type { User } from '../../model/realm.js';
import { canSeeMessage } from '../access/messages.js';
import { HISTORICAL_DEFAULT } from './format.js';
import { unreadDetails } from './unread.js';
import { inRounds } from '../write-order.js';

export const EDITABLE_FLAGS = ['read', 'starred', 'collapsed'] as const;
export type EditableFlag = (typeof EDITABLE_FLAGS)[number];
const NON_EDITABLE_FLAGS = new Set(['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'wildcard_mentioned', 'has_alert_word', 'historical']);

/** The flag's bit; "Invalid flag" or "Flag not editable" otherwise. */
export function editableFlagBit(flag: string): number {
  if ((EDITABLE_FLAGS as readonly string[]).includes(flag)) return FLAG_BITS[flag as EditableFlag];
  if (NON_EDITABLE_FLAGS.has(flag)) throw errors.flagNotEditable(flag);
  throw errors.invalidFlag(flag);
}

export interface FlagsInput {
  userId: number;
  op: 'add' | 'remove';
  flag: string;
  messages: number[];
}

interface FlagsPlan extends FlagsInput {
  user: User;
  bit: number;
}

export interface FlagsResult {
  userId: number;
  op: 'add' | 'remove';
  flag: string;
  /** The IDs whose flag changed, ascending. */
  changed: number[];
  /** Request IDs left alone because they are in channels the user is not subscribed to (read/remove only). */
  ignored: number[];
  ignoredChannels: number[];
  details?: Record<string, unknown>;
}

export function flagsEvent(r: Pick<FlagsResult, 'userId' | 'op' | 'flag' | 'changed' | 'details'>): RealmEvent[] {
  if (r.changed.length === 0) return [];
  const event: MessageFlagsEvent = { kind: 'message_flags', op: r.op, flag: r.flag, messageIds: r.changed };
  if (r.details) event.details = r.details;
  return [{ event, users: [r.userId] }];
}

/** Marking unread reads more than the other changes (the unread details) and ignores unsubscribed channels. */
const markingUnread = (p: { flag: string; op: string }) => p.flag === 'read' && p.op === 'remove';

/** Whether a row the user lacks gets its flag changed: then the write adds a historical row. */
const changesMissing = (bit: number, on: boolean) => ((HISTORICAL_DEFAULT & bit) !== 0) !== on;

/**
 * Plans that touch no row twice, written together as write() would one after another: the messages and the rows read
 * once, each plan's changes worked out, then the rows added and changed in one statement each. Not for marking unread.
 */
async function writeRound(t: Tx, plans: FlagsPlan[], state: RealmState): Promise<Outcome<FlagsResult>[]> {
  const pairs = plans.flatMap((p) => p.messages.map((messageId) => ({ userId: p.userId, messageId })));
  const existing = await t.userMessages.flagsForRows(pairs);
  // The messages are read only for the rows a plan would add (most changes touch rows the user has).
  const adding = plans.filter((p) => changesMissing(p.bit, p.op === 'add')).flatMap((p) => p.messages.filter((id) => !existing.has(flagsKey(p.userId, id))));
  const messages = new Map(
    adding.length === 0 ? [] : (await t.messages.byIds([...new Set(adding)])).filter((m) => m.realmId === state.realm.id).map((m) => [m.id, m]),
  );
  const added: UserMessageRow[] = [];
  const changes: { userId: number; messageId: number; set: number; clear: number }[] = [];
  const outcomes = plans.map((p): Outcome<FlagsResult> => {
    const on = p.op === 'add';
    const flagsOf = (id: number) => existing.get(flagsKey(p.userId, id));
    const toChange = p.messages.filter((id) => (((flagsOf(id) ?? HISTORICAL_DEFAULT) & p.bit) !== 0) !== on);
    const historical = toChange.filter((id) => flagsOf(id) === undefined);
    for (const id of historical) {
      const m = messages.get(id);
      if (!m || !canSeeMessage(state, p.user, m, false)) return { ok: false, error: errors.invalidMessage() };
    }
    const flags = on ? HISTORICAL_DEFAULT | p.bit : HISTORICAL_DEFAULT & ~p.bit;
    for (const messageId of historical) added.push({ userId: p.userId, messageId, flags });
    for (const messageId of toChange) {
      if (flagsOf(messageId) !== undefined) changes.push({ userId: p.userId, messageId, set: on ? p.bit : 0, clear: on ? 0 : p.bit });
    }
    const changed = [...toChange].sort((x, y) => x - y);
    return { ok: true, value: { userId: p.userId, op: p.op, flag: p.flag, changed, ignored: [], ignoredChannels: [] } };
  });
  await t.userMessages.insertMissing(added);
  await t.userMessages.updateBits(changes);
  return outcomes;
}

/**
 * Flag changes written in rounds of plans that touch no row twice, each round in a few statements whatever its size;
 * marking unread, which reads more, and a change of more messages than a command may say it touches, each alone.
 */
function writeFlags(t: Tx, plans: FlagsPlan[], state: RealmState): Promise<Outcome<FlagsResult>[]> {
  return inRounds(
    plans,
    (p) => (markingUnread(p) || p.messages.length > MAX_TOUCHED_KEYS ? null : p.messages.map((id) => rowKey(p.userId, id))),
    async (round) => {
      if (!markingUnread(round[0]!)) return writeRound(t, round, state);
      try {
        return [{ ok: true, value: await updateFlags.write!(t, round[0]!, state) }];
      } catch (err) {
        if (!(err instanceof ApiError)) throw err;
        return [{ ok: false, error: err }];
      }
    },
  );
}

// Batchable: the check reads only the user; the write reads and changes the user's rows inside the batch's
// transaction, after the writes before it; nothing to apply to memory.
export const updateFlags: CommandDef<FlagsInput, FlagsPlan, FlagsResult> = {
  batchable: true,
  // Its own rows of messages the working set knows, and who holds them when it may add a row. Marking unread reads
  // more (the unread details): it cannot say.
  touches(state, input) {
    if (!(EDITABLE_FLAGS as readonly string[]).includes(input.flag) || markingUnread(input)) return undefined;
    if (input.messages.length > MAX_TOUCHED_KEYS || input.messages.some((id) => id > state.messages.lastId)) return undefined;
    const keys = input.messages.map((id) => rowKey(input.userId, id));
    if (changesMissing(FLAG_BITS[input.flag as EditableFlag], input.op === 'add')) keys.push(...input.messages.map(messageKey));
    return keys;
  },
  check(state, input) {
    const user = actor(state, input.userId);
    return { ...input, user, bit: editableFlagBit(input.flag), messages: [...new Set(input.messages)] };
  },

  async write(t, p, state) {
    if (!markingUnread(p)) return valueOfOutcome((await writeRound(t, [p], state))[0]);
    // Marking unread: messages of channels the user is not subscribed to are ignored, and the answer carries the
    // unread details of the others.
    const ignored: number[] = [];
    const ignoredChannels = new Set<number>();
    const messages = new Map((await t.messages.byIds(p.messages)).filter((m) => m.realmId === state.realm.id).map((m) => [m.id, m]));
    const ids = p.messages.filter((id) => {
      const m = messages.get(id);
      if (!m || m.kind !== 'stream' || state.channels.isSubscribed(p.userId, m.channelId!)) return true;
      ignored.push(id);
      ignoredChannels.add(m.channelId!);
      return false;
    });
    const existing = await t.userMessages.flagsFor(p.userId, ids);
    const toChange = ids.filter((id) => ((existing.get(id) ?? HISTORICAL_DEFAULT) & p.bit) !== 0);
    const historical = toChange.filter((id) => !existing.has(id));
    if (historical.length > 0) {
      for (const id of historical) {
        const m = messages.get(id);
        if (!m || !canSeeMessage(state, p.user, m, false)) throw errors.invalidMessage();
      }
      await t.userMessages.insertMissing(historical.map((messageId) => ({ userId: p.userId, messageId, flags: HISTORICAL_DEFAULT & ~p.bit })));
    }
    await t.userMessages.setBit(p.userId, toChange.filter((id) => existing.has(id)), p.bit, false);
    const changed = [...toChange].sort((a, b) => a - b);
    const details = await unreadDetails(t, state, p.userId, changed.flatMap((id) => messages.get(id) ?? []), existing);
    return { userId: p.userId, op: p.op, flag: p.flag, changed, ignored, ignoredChannels: [...ignoredChannels].sort((a, b) => a - b), details };
  },

  writeBatch: writeFlags,

  events: (_state, r) => flagsEvent(r),
};

export interface MarkReadInput {
  userId: number;
  channelId?: number;
  topic?: string;
}

/** Marks all, a channel's or a topic's unread messages read. */
export const markAsRead: CommandDef<MarkReadInput, MarkReadInput, FlagsResult> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    return input;
  },
  async write(t, p) {
    const changed = await t.userMessages.markRead(p.userId, { channelId: p.channelId, topic: p.topic });
    return { userId: p.userId, op: 'add', flag: 'read', changed, ignored: [], ignoredChannels: [] };
  },
  events: (_state, r) => flagsEvent(r),
};
