// Bots: create, list one's own, configure, deactivate, regenerate API keys (also a person's own key).
import { requireMemberOrAdmin } from '../../realm/access/roles.js';
import { botDefaults } from '../../realm/people/bots.js';
import { ROLES } from '../../model/realm.js';
import { gravatarUrl } from '../../realm/user-format.js';
import { endpoint, type RequestContext } from '../endpoint.js';
import { bool, int, intEnum, optional, required, str, url, withDefault } from '../../params.js';
import { deactivate } from '../deactivation.js';

const createBot = endpoint({
  method: 'POST',
  path: '/bots',
  auth: 'user',
  params: {
    full_name: required(str({ maxLength: 1000 })),
    short_name: required(str({ maxLength: 200 })),
    bot_type: withDefault(int(), 1),
    payload_url: withDefault(url(), ''),
    service_name: optional(str({ maxLength: 100 })),
    interface_type: withDefault(int(), 1),
    default_sending_stream: optional(str({ maxLength: 200 })),
    default_events_register_stream: optional(str({ maxLength: 200 })),
    default_all_public_streams: optional(bool()),
  },
  async handle(ctx, p) {
    const { user } = await ctx.realm.dispatch('bots.create', {
      actorId: ctx.user.id,
      fullName: p.full_name,
      shortName: p.short_name,
      botType: p.bot_type,
      payloadUrl: p.payload_url,
      interfaceType: p.interface_type,
      serviceName: p.service_name,
      defaultSendingChannel: p.default_sending_stream,
      defaultEventsRegisterChannel: p.default_events_register_stream,
      defaultAllPublicChannels: p.default_all_public_streams,
    });
    return { user_id: user.id, api_key: user.apiKey, avatar_url: gravatarUrl(user.email), ...botDefaults(ctx.realm.state, user.id) };
  },
});

/** The caller's own active bots, oldest first (the reference's get_bots_backend, administrators included). */
const listBots = endpoint({
  method: 'GET',
  path: '/bots',
  auth: 'user',
  params: {},
  handle(ctx) {
    requireMemberOrAdmin(ctx.user);
    const state = ctx.realm.state;
    const bots = [...state.usersById.values()].filter((u) => u.isBot && u.isActive && u.botOwnerId === ctx.user.id);
    return {
      bots: bots.map((b) => ({
        user_id: b.id,
        username: b.email,
        full_name: b.fullName,
        api_key: b.apiKey,
        avatar_url: gravatarUrl(b.email),
        ...botDefaults(state, b.id),
      })),
    };
  },
});

const updateBot = endpoint({
  method: 'PATCH',
  path: '/bots/{bot_id}',
  auth: 'user',
  params: {
    bot_id: required(int()),
    full_name: optional(str({ maxLength: 1000 })),
    role: optional(intEnum(ROLES)),
    bot_owner_id: optional(int()),
    service_payload_url: optional(url()),
    service_interface: withDefault(int(), 1),
    default_sending_stream: optional(str({ maxLength: 200 })),
    default_events_register_stream: optional(str({ maxLength: 200 })),
    default_all_public_streams: optional(bool()),
  },
  async handle(ctx, p) {
    await ctx.realm.dispatch('bots.update', {
      actorId: ctx.user.id,
      botId: p.bot_id,
      fullName: p.full_name,
      ownerId: p.bot_owner_id,
      defaultSendingChannel: p.default_sending_stream,
      defaultEventsRegisterChannel: p.default_events_register_stream,
      defaultAllPublicChannels: p.default_all_public_streams,
      servicePayloadUrl: p.service_payload_url,
      serviceInterface: p.service_interface,
    });
    // A role is changed as for any account: administrators only, owners for the owner role.
    if (p.role !== undefined) await ctx.realm.dispatch('users.update', { actorId: ctx.user.id, userId: p.bot_id, role: p.role });
    const state = ctx.realm.state;
    const bot = state.usersById.get(p.bot_id)!;
    const out: Record<string, unknown> = {
      full_name: bot.fullName,
      avatar_url: gravatarUrl(bot.email),
      service_interface: p.service_interface,
      service_payload_url: p.service_payload_url ?? null,
      config_data: null,
      ...botDefaults(state, bot.id),
    };
    const owner = bot.botOwnerId === null ? undefined : state.usersById.get(bot.botOwnerId);
    if (owner) out.bot_owner = owner.email;
    return out;
  },
});

const deactivateBot = endpoint({
  method: 'DELETE',
  path: '/bots/{bot_id}',
  auth: 'user',
  params: { bot_id: required(int()) },
  handle: (ctx, p) => deactivate(ctx, p.bot_id, null, { bot: true }),
});

async function regenerate(ctx: RequestContext<'user'>, userId: number) {
  const { apiKey } = await ctx.realm.dispatch('users.regenerateApiKey', { actorId: ctx.user.id, userId });
  return { api_key: apiKey };
}

const regenerateBotKey = endpoint({
  method: 'POST',
  path: '/bots/{bot_id}/api_key/regenerate',
  auth: 'user',
  params: { bot_id: required(int()) },
  handle: (ctx, p) => regenerate(ctx, p.bot_id),
});

const regenerateOwnKey = endpoint({
  method: 'POST',
  path: '/users/me/api_key/regenerate',
  auth: 'user',
  bots: 'none',
  params: {},
  handle: (ctx) => regenerate(ctx, ctx.user.id),
});

export const botEndpoints = [createBot, listBots, updateBot, deactivateBot, regenerateBotKey, regenerateOwnKey];
