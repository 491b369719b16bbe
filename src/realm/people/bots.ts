// Bots as their administrators see them: types, who may administer one, the Bot record and realm_bot events.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { BotSettings } from '../../model/people.js';
import type { RealmState } from '../state.js';
import { ROLE, type User } from '../../model/realm.js';
import { gravatarUrl } from '../user-format.js';
import { activeAdminIds, isAdmin, requireMemberOrAdmin } from '../access/roles.js';

export const BOT_TYPE = { GENERIC: 1, INCOMING_WEBHOOK: 2, OUTGOING_WEBHOOK: 3, EMBEDDED: 4 } as const;
/** Service interfaces of outgoing webhooks: Zulip's own payload, or Slack's outgoing-webhook format. */
export const SERVICE_INTERFACE = { ZULIP: 1, SLACK: 2 } as const;
export const SERVICE_INTERFACES: readonly number[] = Object.values(SERVICE_INTERFACE);

/** The server's own bot (the reference's cross-realm system bot): no one administers it. */
export const NOTIFICATION_BOT_EMAIL = 'notification-bot@palaver.internal';

const NO_SETTINGS = { defaultSendingChannelId: null, defaultEventsRegisterChannelId: null, defaultAllPublicChannels: false, service: null };

export function botSettings(state: RealmState, botId: number): BotSettings {
  return state.people.bots.get(botId) ?? { userId: botId, ...NO_SETTINGS };
}

/** Administrators and the bot's owner may administer a bot (the reference's access_bot_by_id). */
export function canAdministerBot(user: User, bot: User): boolean {
  return isAdmin(user) || bot.botOwnerId === user.id;
}

export function accessBot(state: RealmState, caller: User, botId: number): User {
  requireMemberOrAdmin(caller);
  const bot = state.usersById.get(botId);
  if (!bot || !bot.isBot || bot.email === NOTIFICATION_BOT_EMAIL) throw errors.noSuchBot();
  if (!canAdministerBot(caller, bot)) throw errors.insufficientPermission();
  if (bot.canCreateUsers && caller.role !== ROLE.OWNER) throw errors.mustBeOwner();
  return bot;
}

/** Active users who receive a bot's realm_bot events: administrators and the owner (bot_owner_user_ids). */
export function botAudience(state: RealmState, bot: User): number[] {
  const ids = new Set(activeAdminIds(state));
  const owner = bot.botOwnerId === null ? undefined : state.usersById.get(bot.botOwnerId);
  if (owner?.isActive) ids.add(owner.id);
  return [...ids];
}

export function channelName(state: RealmState, id: number | null): string | null {
  return id === null ? null : (state.channels.byId.get(id)?.name ?? null);
}

/** The default-channel fields of the Bot object and of the bot endpoints' answers. */
export function botDefaults(state: RealmState, botId: number) {
  const s = botSettings(state, botId);
  return {
    default_sending_stream: channelName(state, s.defaultSendingChannelId),
    default_events_register_stream: channelName(state, s.defaultEventsRegisterChannelId),
    default_all_public_streams: s.defaultAllPublicChannels,
  };
}

/** The reference's `services` list: the outgoing-webhook service, or nothing. */
export function botServices(s: BotSettings): Record<string, unknown>[] {
  return s.service ? [{ base_url: s.service.baseUrl, interface: s.service.interface, token: s.service.token }] : [];
}

/** The Bot object of realm_bot add events and register's realm_bots. */
export function botRecord(state: RealmState, bot: User): Record<string, unknown> {
  return {
    email: bot.email,
    user_id: bot.id,
    full_name: bot.fullName,
    bot_type: bot.botType,
    is_active: bot.isActive,
    api_key: bot.apiKey,
    ...botDefaults(state, bot.id),
    avatar_url: gravatarUrl(bot.email),
    services: botServices(botSettings(state, bot.id)),
    owner_id: bot.botOwnerId,
  };
}

/** The bots `viewer` may administer: every bot for administrators, else their own (get_owned_bot_dicts). */
export function administeredBots(state: RealmState, viewer: User): User[] {
  const out: User[] = [];
  for (const u of state.usersById.values()) if (u.isBot && u.email !== NOTIFICATION_BOT_EMAIL && canAdministerBot(viewer, u)) out.push(u);
  return out.sort((a, b) => a.id - b.id);
}

export function realmBotAdd(state: RealmState, bot: User, users = botAudience(state, bot)): RealmEvent {
  return { event: { kind: 'realm_bot', op: 'add', bot: botRecord(state, bot) }, users };
}

export function realmBotUpdate(state: RealmState, bot: User, fields: Record<string, unknown>): RealmEvent {
  return { event: { kind: 'realm_bot', op: 'update', bot: { user_id: bot.id, ...fields } }, users: botAudience(state, bot) };
}

export function realmBotDelete(botId: number, users: number[]): RealmEvent {
  return { event: { kind: 'realm_bot', op: 'delete', bot: { user_id: botId } }, users };
}
