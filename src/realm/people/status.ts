// User status: the rules for text and emoji, the stored record, its API form, and the command that changes it.
import type { RealmEvent, UserStatusEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { CommandDef } from '../commands.js';
import { checkEmoji, emojiForName } from '../files/emoji.js';
import type { RealmState } from '../state.js';
import { actor, isAdmin, targetUser } from '../access/roles.js';
import { audienceOf } from '../access/users.js';
import { userSettingEvents } from './events.js';
import type { UserStatus } from './people-state.js';
import { userSetting } from './user-settings.js';

export const STATUS_TEXT_MAX = 60;

const EMPTY: UserStatus = { statusText: '', emojiName: '', emojiCode: '', reactionType: 'unicode_emoji' };

export interface StatusChange {
  statusText?: string;
  emojiName?: string;
  emojiCode?: string;
  reactionType?: string;
  away?: boolean;
}

/**
 * The spec's rules: something must change; emoji_name is required with emoji_code or reaction_type; an empty
 * emoji_name clears the emoji; a name alone is looked up; name, code and type must agree.
 */
export function resolveStatusChange(state: RealmState, c: StatusChange): { text?: string; emoji?: Omit<UserStatus, 'statusText'>; away?: boolean } {
  if (c.away === undefined && c.statusText === undefined && c.emojiName === undefined) {
    if (c.emojiCode !== undefined || c.reactionType !== undefined) {
      throw errors.badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
    }
    throw errors.noNewValues();
  }
  if (c.emojiName === undefined && (c.emojiCode !== undefined || c.reactionType !== undefined)) {
    throw errors.badRequest('Client must pass emoji_name if they pass either emoji_code or reaction_type.');
  }
  let emoji: Omit<UserStatus, 'statusText'> | undefined;
  if (c.emojiName === '') {
    emoji = { emojiName: '', emojiCode: '', reactionType: 'unicode_emoji' };
  } else if (c.emojiName !== undefined) {
    let code = c.emojiCode;
    let type = c.reactionType;
    if (code === undefined || type === undefined) ({ code, type } = emojiForName(state, c.emojiName));
    checkEmoji(state, c.emojiName, code, type);
    emoji = { emojiName: c.emojiName, emojiCode: code, reactionType: type };
  }
  return { text: c.statusText, emoji, away: c.away };
}

/** The API form: only the keys that are set (`away` when presence is off). */
export function formatStatus(state: RealmState, userId: number): Record<string, unknown> {
  const s = state.people.statuses.get(userId) ?? EMPTY;
  const user = state.usersById.get(userId);
  const out: Record<string, unknown> = {};
  if (user && userSetting(user, 'presence_enabled') === false) out.away = true;
  if (s.statusText !== '') out.status_text = s.statusText;
  if (s.emojiName !== '') Object.assign(out, { emoji_name: s.emojiName, emoji_code: s.emojiCode, reaction_type: s.reactionType });
  return out;
}

interface StatusInput extends StatusChange {
  actorId: number;
  userId: number;
}
interface StatusPlan {
  userId: number;
  status: UserStatus;
  change: ReturnType<typeof resolveStatusChange>;
}

const updateStatus: CommandDef<StatusInput, StatusPlan, StatusPlan> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    if (input.userId !== caller.id && !isAdmin(caller)) throw errors.insufficientPermission();
    const target = targetUser(state, input.userId);
    const change = resolveStatusChange(state, input);
    const current = state.people.statuses.get(target.id) ?? EMPTY;
    const status = { ...current, ...(change.text !== undefined ? { statusText: change.text } : {}), ...(change.emoji ?? {}) };
    return { userId: target.id, status, change };
  },
  async write(t, plan) {
    await t.people.setStatus(plan.userId, plan.status);
    if (plan.change.away !== undefined) await t.users.mergeSettings(plan.userId, { presence_enabled: !plan.change.away });
    return plan;
  },
  apply(state, plan) {
    state.people.setStatus(plan.userId, plan.status);
    if (plan.change.away !== undefined) {
      const u = state.usersById.get(plan.userId)!;
      state.putUser({ ...u, settings: { ...u.settings, presence_enabled: !plan.change.away } });
    }
  },
  events(state, { userId, change }) {
    const event: UserStatusEvent = { kind: 'user_status', userId };
    if (change.away !== undefined) event.away = change.away;
    if (change.text !== undefined) event.statusText = change.text;
    if (change.emoji) event.emoji = { emojiName: change.emoji.emojiName, emojiCode: change.emoji.emojiCode, reactionType: change.emoji.reactionType };
    const out: RealmEvent[] = [{ event, users: audienceOf(state, state.usersById.get(userId)!) }];
    if (change.away !== undefined) out.push(...userSettingEvents(state, state.usersById.get(userId)!, 'presence_enabled', !change.away));
    return out;
  },
};

export const statusCommands = { 'status.update': updateStatus };
