// Subscribing (creating missing channels by name) and unsubscribing users: POST and DELETE /users/me/subscriptions,
// and both in one command (PATCH /users/me/subscriptions).
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { REQUEST_LIMITS } from '../../limits.js';
import { byUser, type CommandDef } from '../commands.js';
import { prerenderDescriptions, type RenderedDescriptions } from './render.js';
import { actor, targetUserByIdOrEmail } from '../access/roles.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { canAddSubscribers, canRemoveSubscriber, canSubscribeSelf, hasContentAccess, hasMetadataAccess } from '../access/channels.js';
import { applyCreated, createdEvents, type CreatedChannels } from './create.commands.js';
import { planNewChannels, writeNewChannels, type NewChannelSettings, type ServerContext } from './creating.js';
import { postAnnouncement } from './notices.js';
import {
  applyUnsubscriptions,
  planSubscriptions,
  subscriptionRemovedEvents,
  writeSubscriptions,
  type RemovedSubscription,
} from './subscribing.js';
import type { Channel } from '../../model/channels.js';
import { checkChannelName, checkDescription } from './validate.js';

/** The users a request names (user IDs or emails), or the caller when it names none. */
function principalUsers(state: RealmState, caller: User, principals: (number | string)[] | null): User[] {
  if (principals === null) return [caller];
  const users = principals.map((p) => targetUserByIdOrEmail(state, caller, String(p)));
  return [...new Map(users.map((u) => [u.id, u])).values()];
}

export interface SubscribeInput {
  actorId: number;
  channels: { name: string; description?: string }[];
  principals: (number | string)[] | null;
  authorizationErrorsFatal: boolean;
  announce: boolean;
  settings: NewChannelSettings;
  server: ServerContext;
  /** Descriptions of channels it may create, rendered on the worker pool (the command's prepare). */
  renderedDescriptions?: RenderedDescriptions;
}

interface SubscribePlan {
  users: User[];
  existing: Channel[];
  newRows: ReturnType<typeof planNewChannels>;
  unauthorized: string[];
  input: SubscribeInput;
}

export interface Subscribed extends CreatedChannels {
  /** User ID → names of channels newly subscribed / already subscribed. */
  subscribed: Record<string, string[]>;
  alreadySubscribed: Record<string, string[]>;
  unauthorized: string[];
}

const subscribe: CommandDef<SubscribeInput, SubscribePlan, Subscribed> = {
  prepare: (state, input) => prerenderDescriptions(state, input, input.channels.map((c) => c.description), input.server.realmUrl),
  orderKey: (input) => byUser(input.actorId),
  check(state, input) {
    const caller = actor(state, input.actorId);
    const users = principalUsers(state, caller, input.principals);
    const others = users.some((u) => u.id !== caller.id);
    const existing: Channel[] = [];
    const toCreate = new Map<string, { name: string; description: string }>();
    const unauthorized: string[] = [];
    for (const spec of input.channels) {
      const name = checkChannelName(spec.name);
      const description = checkDescription(spec.description ?? '');
      const ch = state.channels.channelByName(name);
      if (!ch) {
        toCreate.set(name.toLowerCase(), { name, description });
        continue;
      }
      if (existing.includes(ch)) continue;
      if (others ? canAddSubscribers(state, caller, ch) : canSubscribeSelf(state, caller, ch)) existing.push(ch);
      else if (others && hasContentAccess(state, caller, ch)) throw errors.insufficientPermission();
      else if (input.authorizationErrorsFatal) throw errors.unableToAccessChannel(ch.name);
      else unauthorized.push(ch.name);
    }
    if (toCreate.size > REQUEST_LIMITS.createdChannels) throw errors.tooManyItems('new channels', REQUEST_LIMITS.createdChannels);
    if ((existing.length + toCreate.size) * users.length > REQUEST_LIMITS.subscriptionPairs) {
      throw errors.tooManyItems('subscriptions (users × channels)', REQUEST_LIMITS.subscriptionPairs);
    }
    if (toCreate.size > 0 && others && !state.userHasRealmPermission(caller.id, 'can_add_subscribers_group')) {
      throw errors.insufficientPermission();
    }
    const newRows = planNewChannels(state, caller, [...toCreate.values()], input.settings, input.server, input.renderedDescriptions);
    return { users, existing, newRows, unauthorized, input };
  },
  async write(t, plan, state) {
    const created = await writeNewChannels(t, plan.newRows, plan.input.settings.isDefault);
    const channels = [...plan.existing, ...created];
    const pairs = channels.flatMap((ch) => plan.users.map((u) => ({ userId: u.id, channelId: ch.id })));
    const subscriptions = planSubscriptions(state, pairs, new Set(created.map((c) => c.id)));
    const rows = await writeSubscriptions(t, state.realm.id, subscriptions);
    const notices = [];
    if (plan.input.announce) {
      for (const ch of created) notices.push(await postAnnouncement(t, state, ch, plan.users.map((u) => u.id), plan.input.server.realmUrl));
    }
    const subscribed: Record<string, string[]> = {};
    const alreadySubscribed: Record<string, string[]> = {};
    const fresh = new Set(subscriptions.map((s) => `${s.userId}:${s.channelId}`));
    for (const u of plan.users) {
      for (const ch of channels) {
        const into = fresh.has(`${u.id}:${ch.id}`) ? subscribed : alreadySubscribed;
        (into[String(u.id)] ??= []).push(ch.name);
      }
    }
    return {
      channels: created,
      isDefault: plan.input.settings.isDefault,
      subscriptions,
      rows,
      notices,
      subscribed,
      alreadySubscribed,
      unauthorized: plan.unauthorized,
    };
  },
  apply: applyCreated,
  events: createdEvents,
};

export interface UnsubscribeInput {
  actorId: number;
  names: string[];
  principals: (number | string)[] | null;
}

export interface Unsubscribed {
  removed: RemovedSubscription[];
  removedNames: string[];
  notRemovedNames: string[];
}

const unsubscribe: CommandDef<UnsubscribeInput, Unsubscribed, Unsubscribed> = {
  check(state, input) {
    const caller = actor(state, input.actorId);
    const users = principalUsers(state, caller, input.principals);
    const channels: Channel[] = [];
    for (const raw of input.names) {
      const name = raw.trim();
      const ch = state.channels.channelByName(name);
      if (!ch || !hasMetadataAccess(state, caller, ch)) throw errors.channelDoesNotExist(name);
      if (!channels.includes(ch)) channels.push(ch);
    }
    const out: Unsubscribed = { removed: [], removedNames: [], notRemovedNames: [] };
    for (const ch of channels) {
      for (const u of users) {
        if (!canRemoveSubscriber(state, caller, ch, u)) throw errors.insufficientPermission();
        if (state.channels.isSubscribed(u.id, ch.id)) {
          out.removed.push({ userId: u.id, channelId: ch.id });
          out.removedNames.push(ch.name);
        } else out.notRemovedNames.push(ch.name);
      }
    }
    return out;
  },
  async write(t, plan) {
    await t.subscriptions.deactivate(plan.removed);
    return plan;
  },
  apply: (state, r) => applyUnsubscriptions(state, r.removed),
  events: (state, r): RealmEvent[] => subscriptionRemovedEvents(state, r.removed),
};

export interface UpdateSubscriptionsInput {
  actorId: number;
  add: SubscribeInput | null;
  remove: UnsubscribeInput | null;
}

export interface UpdatedSubscriptions {
  added: Subscribed | null;
  removed: Unsubscribed | null;
}

/** Both halves checked against one working set and written in one transaction, as the reference composes its two
 *  views atomically: a refused half refuses the whole. (A channel named in both lists is checked against the
 *  subscriptions before the additions.) */
const updateSubscriptions: CommandDef<UpdateSubscriptionsInput, { add: SubscribePlan | null; remove: Unsubscribed | null }, UpdatedSubscriptions> = {
  prepare: async (state, input) => (input.add ? { ...input, add: await subscribe.prepare!(state, input.add) } : input),
  orderKey: (input) => byUser(input.actorId),
  check: (state, input) => ({
    add: input.add && subscribe.check(state, input.add),
    remove: input.remove && unsubscribe.check(state, input.remove),
  }),
  async write(t, plan, state) {
    const added = plan.add && (await subscribe.write!(t, plan.add, state));
    const removed = plan.remove && (await unsubscribe.write!(t, plan.remove, state));
    return { added, removed };
  },
  apply(state, r) {
    if (r.added) subscribe.apply!(state, r.added);
    if (r.removed) unsubscribe.apply!(state, r.removed);
  },
  events: (state, r) => [
    ...(r.added ? subscribe.events!(state, r.added) : []),
    ...(r.removed ? unsubscribe.events!(state, r.removed) : []),
  ],
};

export const subscriptionCommands = {
  'subscriptions.add': subscribe,
  'subscriptions.remove': unsubscribe,
  'subscriptions.update': updateSubscriptions,
};
