// Channels: POST /channels/create.
import type { CreateChannelInput } from '../../realm/channels/create.commands.js';
import { LIMITS, REQUEST_LIMITS } from '../../limits.js';
import { bool, int, list, required, str, withDefault } from '../../params.js';
import { newChannelParams, newChannelSettings } from '../channel-params.js';
import { serverContext } from '../context.js';
import { endpoint } from '../endpoint.js';

export const createChannel = endpoint({
  method: 'POST',
  path: '/channels/create',
  auth: 'user',
  params: {
    name: required(str()),
    description: withDefault(str({ maxLength: LIMITS.max_stream_description_length }), ''),
    subscribers: required(list(int(), { maxItems: REQUEST_LIMITS.principals })),
    announce: withDefault(bool(), false),
    send_new_subscription_messages: withDefault(bool(), true),
    ...newChannelParams,
  },
  async handle(ctx, p) {
    const input: CreateChannelInput = {
      actorId: ctx.user.id,
      name: p.name,
      description: p.description,
      subscriberIds: p.subscribers,
      announce: p.announce,
      settings: newChannelSettings(p),
      server: serverContext(ctx),
    };
    const created = await ctx.realm.dispatch('channels.create', input);
    return { id: created.channels[0]!.id };
  },
});
