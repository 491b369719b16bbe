// Realm commands on bots: create (POST /bots), configure (PATCH /bots/{bot_id}), regenerate an API key.
import { generateApiKey } from '../../auth/secrets.js';
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { BotSettings } from '../../model/people.js';
import { hasContentAccess } from '../access/channels.js';
import type { CommandDef } from '../commands.js';
import { createUser, isValidEmail } from '../provision.js';
import type { RealmState } from '../state.js';
import { roleGroup } from '../system-groups.js';
import { ROLE, type User } from '../../model/realm.js';
import { actor, isAdmin, requireMemberOrAdmin } from '../access/roles.js';
import { checkFullName } from './names.js';
import {
  BOT_TYPE,
  SERVICE_INTERFACES,
  accessBot,
  botServices,
  botSettings,
  channelName,
  realmBotAdd,
  realmBotDelete,
  realmBotUpdate,
} from './bots.js';
import { groupMembership, realmUserAdd, realmUserUpdate } from './events.js';
import { applyCreatedUser } from './users.commands.js';

/** A channel named as a bot's default: one the caller can read (access_stream_by_name). */
function defaultChannel(state: RealmState, caller: User, name: string): number {
  const ch = state.channels.channelByName(name);
  if (!ch || !hasContentAccess(state, caller, ch)) throw errors.invalidChannelName(name);
  return ch.id;
}

/** No other active account carries this name (check_bot_name_available). */
function checkBotNameAvailable(state: RealmState, fullName: string): void {
  const wanted = fullName.toLowerCase();
  for (const u of state.usersById.values()) if (u.isActive && u.fullName.toLowerCase() === wanted) throw errors.botNameInUse();
}

function checkInterface(value: number): void {
  if (!SERVICE_INTERFACES.includes(value)) throw errors.invalidInterfaceType();
}

export interface CreateBotInput {
  actorId: number;
  fullName: string;
  shortName: string;
  botType: number;
  payloadUrl: string;
  interfaceType: number;
  serviceName?: string;
  defaultSendingChannel?: string;
  defaultEventsRegisterChannel?: string;
  defaultAllPublicChannels?: boolean;
}
interface CreateBotPlan {
  email: string;
  fullName: string;
  botType: number;
  ownerId: number;
  settings: Omit<BotSettings, 'userId'>;
}
export interface CreatedBot {
  user: User;
  settings: BotSettings;
}

const create: CommandDef<CreateBotInput, CreateBotPlan, CreatedBot> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    requireMemberOrAdmin(caller);
    const short = input.shortName.trim();
    if (short === '') throw errors.badBotName();
    // The reference's get_bot_domain: the realm's host.
    const email = `${short}-bot@${state.emailDomain}`;
    const fullName = checkFullName(input.fullName);
    if (!isValidEmail(email) || email.length > 254) throw errors.badBotName();
    if (input.botType === BOT_TYPE.EMBEDDED) throw errors.embeddedBotsDisabled();
    if (state.userByEmail(email)) throw errors.botUsernameInUse();
    checkBotNameAvailable(state, fullName);
    const mayCreate =
      state.userHasRealmPermission(caller.id, 'can_create_bots_group') ||
      (input.botType === BOT_TYPE.INCOMING_WEBHOOK && state.userHasRealmPermission(caller.id, 'can_create_write_only_bots_group'));
    if (!mayCreate) throw errors.insufficientPermission();
    if (![BOT_TYPE.GENERIC, BOT_TYPE.INCOMING_WEBHOOK, BOT_TYPE.OUTGOING_WEBHOOK].includes(input.botType as 1)) throw errors.invalidBotType();
    checkInterface(input.interfaceType);
    const settings: Omit<BotSettings, 'userId'> = {
      defaultSendingChannelId: input.defaultSendingChannel === undefined ? null : defaultChannel(state, caller, input.defaultSendingChannel),
      defaultEventsRegisterChannelId:
        input.defaultEventsRegisterChannel === undefined ? null : defaultChannel(state, caller, input.defaultEventsRegisterChannel),
      defaultAllPublicChannels: input.defaultAllPublicChannels ?? false,
      service:
        input.botType === BOT_TYPE.OUTGOING_WEBHOOK
          ? { name: input.serviceName || short, baseUrl: input.payloadUrl, interface: input.interfaceType, token: generateApiKey() }
          : null,
    };
    return { email, fullName, botType: input.botType, ownerId: caller.id, settings };
  },
  async write(t, plan, state) {
    const user = await createUser(t, state.realm.id, {
      email: plan.email,
      fullName: plan.fullName,
      role: ROLE.MEMBER,
      isBot: true,
      botType: plan.botType,
      botOwnerId: plan.ownerId,
      defaultChannels: false,
    });
    const settings = { userId: user.id, ...plan.settings };
    await t.bots.save(settings);
    return { user, settings };
  },
  apply(state, { user, settings }) {
    applyCreatedUser(state, { user, groupIds: [] });
    state.people.bots.set(user.id, settings);
  },
  events(state, { user }) {
    return [
      ...realmUserAdd(state, user),
      groupMembership(state, 'add_members', state.systemGroup(roleGroup(user.role)).id, [user.id]),
      realmBotAdd(state, user),
    ];
  },
};

export interface UpdateBotInput {
  actorId: number;
  botId: number;
  fullName?: string;
  ownerId?: number;
  /** A channel name; '' clears it. */
  defaultSendingChannel?: string;
  defaultEventsRegisterChannel?: string;
  defaultAllPublicChannels?: boolean;
  servicePayloadUrl?: string;
  serviceInterface: number;
}
interface UpdateBotPlan {
  botId: number;
  fullName?: string;
  owner?: { from: number | null; to: number };
  settings: BotSettings;
  /** realm_bot update fields besides full_name and owner_id. */
  changed: Record<string, unknown>;
}

const update: CommandDef<UpdateBotInput, UpdateBotPlan, UpdateBotPlan> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    const bot = accessBot(state, caller, input.botId);
    const plan: UpdateBotPlan = { botId: bot.id, settings: { ...botSettings(state, bot.id) }, changed: {} };
    if (input.fullName !== undefined) {
      const name = checkFullName(input.fullName);
      if (name !== bot.fullName) {
        checkBotNameAvailable(state, name);
        plan.fullName = name;
      }
    }
    if (input.ownerId !== undefined) {
      const owner = state.usersById.get(input.ownerId);
      if (!owner) throw errors.botOwnerRefused('no such user');
      if (!owner.isActive) throw errors.botOwnerRefused('user is deactivated');
      if (owner.isBot) throw errors.botOwnerRefused("bots can't own other bots");
      if (owner.id !== bot.botOwnerId) plan.owner = { from: bot.botOwnerId, to: owner.id };
    }
    const s = plan.settings;
    if (input.defaultSendingChannel !== undefined) {
      s.defaultSendingChannelId = input.defaultSendingChannel === '' ? null : defaultChannel(state, caller, input.defaultSendingChannel);
      plan.changed.default_sending_stream = channelName(state, s.defaultSendingChannelId);
    }
    if (input.defaultEventsRegisterChannel !== undefined) {
      s.defaultEventsRegisterChannelId =
        input.defaultEventsRegisterChannel === '' ? null : defaultChannel(state, caller, input.defaultEventsRegisterChannel);
      plan.changed.default_events_register_stream = channelName(state, s.defaultEventsRegisterChannelId);
    }
    if (input.defaultAllPublicChannels !== undefined) {
      s.defaultAllPublicChannels = input.defaultAllPublicChannels;
      plan.changed.default_all_public_streams = s.defaultAllPublicChannels;
    }
    if (input.servicePayloadUrl !== undefined) {
      checkInterface(input.serviceInterface);
      if (bot.botType !== BOT_TYPE.OUTGOING_WEBHOOK) throw errors.invalidBotType();
      s.service = { name: s.service?.name ?? bot.email.split('-bot@')[0]!, token: s.service?.token ?? generateApiKey(), baseUrl: input.servicePayloadUrl, interface: input.serviceInterface };
      plan.changed.services = botServices(s);
    }
    return plan;
  },
  async write(t, plan) {
    if (plan.fullName !== undefined) await t.users.setFullName(plan.botId, plan.fullName);
    if (plan.owner) await t.users.setBotOwner(plan.botId, plan.owner.to);
    if (Object.keys(plan.changed).length > 0) await t.bots.save(plan.settings);
    return plan;
  },
  apply(state, plan) {
    const bot = state.usersById.get(plan.botId)!;
    state.putUser({ ...bot, fullName: plan.fullName ?? bot.fullName, botOwnerId: plan.owner?.to ?? bot.botOwnerId });
    if (Object.keys(plan.changed).length > 0) state.people.bots.set(plan.botId, plan.settings);
  },
  events(state, plan) {
    const bot = state.usersById.get(plan.botId)!;
    const out: RealmEvent[] = [];
    if (plan.fullName !== undefined) {
      out.push(realmUserUpdate(state, { user_id: bot.id, full_name: plan.fullName }));
      out.push(realmBotUpdate(state, bot, { full_name: plan.fullName }));
    }
    if (plan.owner) {
      // The previous owner loses the bot from their list unless they administer every bot; the new one gains it.
      const previous = plan.owner.from === null ? undefined : state.usersById.get(plan.owner.from);
      if (previous?.isActive && !isAdmin(previous)) out.push(realmBotDelete(bot.id, [previous.id]));
      const owner = state.usersById.get(plan.owner.to)!;
      if (!isAdmin(owner)) out.push(realmBotAdd(state, bot, [owner.id]));
      out.push(realmBotUpdate(state, bot, { owner_id: owner.id }));
      out.push(realmUserUpdate(state, { user_id: bot.id, bot_owner_id: owner.id }));
    }
    if (Object.keys(plan.changed).length > 0) out.push(realmBotUpdate(state, bot, plan.changed));
    return out;
  },
};

interface RegeneratePlan {
  userId: number;
  apiKey: string;
}

/** A new API key for oneself or for a bot one administers; the old key stops working at once. */
const regenerateApiKey: CommandDef<{ actorId: number; userId: number }, RegeneratePlan, RegeneratePlan> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    const target = input.userId === caller.id ? caller : accessBot(state, caller, input.userId);
    return { userId: target.id, apiKey: generateApiKey() };
  },
  async write(t, plan) {
    await t.users.setApiKey(plan.userId, plan.apiKey);
    return plan;
  },
  apply(state, plan) {
    state.putUser({ ...state.usersById.get(plan.userId)!, apiKey: plan.apiKey });
  },
  events(state, plan) {
    const user = state.usersById.get(plan.userId)!;
    return user.isBot ? [realmBotUpdate(state, user, { api_key: plan.apiKey })] : [];
  },
};

export const botCommands = {
  'bots.create': create,
  'bots.update': update,
  'users.regenerateApiKey': regenerateApiKey,
};
