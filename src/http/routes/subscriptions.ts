// Subscriptions: GET/POST/PATCH/DELETE /users/me/subscriptions, POST /users/me/subscriptions/properties,
// GET /users/{user_id}/subscriptions/{stream_id}.
import { visibleChannel } from '../../realm/access/channels.js';
import { formatSubscription } from '../../realm/channels/format.js';
import type { PropertiesInput } from '../../realm/channels/properties.commands.js';
import type { SubscribeInput, UnsubscribeInput } from '../../realm/channels/subscriptions.commands.js';
import { trafficFor } from '../../realm/channels/traffic.js';
import { targetUser } from '../../realm/access/roles.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { LIMITS, REQUEST_LIMITS } from '../../limits.js';
import { enumOf, int, json, list, object, oneOf, optional, required, str, withDefault, bool } from '../../params.js';
import { newChannelParams, newChannelSettings } from '../channel-params.js';
import { serverContext } from '../context.js';

export const getSubscriptions = endpoint({
  method: 'GET',
  path: '/users/me/subscriptions',
  auth: 'user',
  params: { include_subscribers: withDefault(enumOf(['true', 'false', 'partial'] as const), 'false') },
  async handle(ctx, p) {
    const state = ctx.realm.state;
    const subs = state.channels.activeSubscriptions(ctx.user.id);
    const channels = subs.map((s) => state.channels.byId.get(s.channelId)!);
    const traffic = await trafficFor(ctx.services.db, channels);
    // With "partial" the full list is sent too: every channel here is under the 250-subscriber threshold or
    // cheap enough to list.
    const subscribers = p.include_subscribers !== 'false';
    const subscriptions = subs
      .map((s, i) => formatSubscription(state, channels[i]!, s, traffic, { subscribers }))
      .sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : (a.name as string) > (b.name as string) ? 1 : 0));
    return { subscriptions };
  },
});

/** Channels to subscribe to by name (created when missing); a description is bounded here, before any render. */
const channelSpecs = list(
  object({ name: required(str()), description: optional(str({ maxLength: LIMITS.max_stream_description_length })) }),
  { maxItems: REQUEST_LIMITS.subscribeChannels },
);

/** Channels to unsubscribe from, by name. */
const channelNames = list(str(), { maxItems: REQUEST_LIMITS.subscribeChannels });

/** User IDs or emails. */
const principals = optional(list(oneOf(int(), str()), { maxItems: REQUEST_LIMITS.principals }));

export const subscribe = endpoint({
  method: 'POST',
  path: '/users/me/subscriptions',
  auth: 'user',
  params: {
    subscriptions: required(channelSpecs),
    principals,
    authorization_errors_fatal: withDefault(bool(), true),
    announce: withDefault(bool(), false),
    send_new_subscription_messages: withDefault(bool(), true),
    ...newChannelParams,
  },
  async handle(ctx, p) {
    const input: SubscribeInput = {
      actorId: ctx.user.id,
      channels: p.subscriptions,
      principals: p.principals ?? null,
      authorizationErrorsFatal: p.authorization_errors_fatal,
      announce: p.announce,
      settings: newChannelSettings(p),
      server: serverContext(ctx),
    };
    const r = await ctx.realm.dispatch('subscriptions.add', input);
    const out: Record<string, unknown> = { subscribed: r.subscribed, already_subscribed: r.alreadySubscribed };
    if (!p.authorization_errors_fatal) out.unauthorized = r.unauthorized;
    // Notification Bot direct messages to the other new subscribers are not sent by this server.
    if (p.send_new_subscription_messages) out.new_subscription_messages_sent = false;
    return out;
  },
});

export const unsubscribe = endpoint({
  method: 'DELETE',
  path: '/users/me/subscriptions',
  auth: 'user',
  params: { subscriptions: required(channelNames), principals },
  async handle(ctx, p) {
    const input: UnsubscribeInput = { actorId: ctx.user.id, names: p.subscriptions, principals: p.principals ?? null };
    const r = await ctx.realm.dispatch('subscriptions.remove', input);
    return { removed: r.removedNames, not_removed: r.notRemovedNames };
  },
});

/** Subscribes the caller to `add` and unsubscribes them from `delete`, in one transaction. New channels get the
 *  defaults POST would give them. */
export const updateSubscriptions = endpoint({
  method: 'PATCH',
  path: '/users/me/subscriptions',
  auth: 'user',
  params: { add: withDefault(channelSpecs, []), delete: withDefault(channelNames, []) },
  async handle(ctx, p) {
    if (p.add.length === 0 && p.delete.length === 0) throw errors.nothingToDoForSubscriptions();
    const add: SubscribeInput | null = p.add.length === 0 ? null : {
      actorId: ctx.user.id,
      channels: p.add,
      principals: null,
      authorizationErrorsFatal: true,
      announce: false,
      settings: { inviteOnly: false, isWebPublic: false, isDefault: false, groupSettings: {} },
      server: serverContext(ctx),
    };
    const remove: UnsubscribeInput | null = p.delete.length === 0 ? null : { actorId: ctx.user.id, names: p.delete, principals: null };
    const r = await ctx.realm.dispatch('subscriptions.update', { actorId: ctx.user.id, add, remove });
    return {
      subscribed: r.added?.subscribed ?? {},
      already_subscribed: r.added?.alreadySubscribed ?? {},
      removed: r.removed?.removedNames ?? [],
      not_removed: r.removed?.notRemovedNames ?? [],
    };
  },
});

export const updateSubscriptionProperties = endpoint({
  method: 'POST',
  path: '/users/me/subscriptions/properties',
  auth: 'user',
  params: {
    subscription_data: required(
      list(object({ stream_id: required(int()), property: required(str({ maxLength: 100 })), value: required(json()) }), { maxItems: REQUEST_LIMITS.propertyChanges }),
    ),
  },
  async handle(ctx, p) {
    const input: PropertiesInput = {
      actorId: ctx.user.id,
      changes: p.subscription_data.map((d) => ({ channelId: d.stream_id, property: d.property, value: d.value })),
    };
    await ctx.realm.dispatch('subscriptions.setProperties', input);
    return {};
  },
});

export const getSubscriptionStatus = endpoint({
  method: 'GET',
  path: '/users/{user_id}/subscriptions/{stream_id}',
  auth: 'user',
  params: { user_id: required(int()), stream_id: required(int()) },
  handle(ctx, p) {
    const state = ctx.realm.state;
    const target = targetUser(state, p.user_id);
    const ch = visibleChannel(state, ctx.user, p.stream_id, 'metadata');
    return { is_subscribed: state.channels.isSubscribed(target.id, ch.id) };
  },
});

export const subscriptionEndpoints = [getSubscriptions, subscribe, updateSubscriptions, unsubscribe, updateSubscriptionProperties, getSubscriptionStatus];
