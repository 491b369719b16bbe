// Creating a channel (POST /channels/create): the channel, its first subscribers, its default-channel row
// and the optional announcement, in one transaction.
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import type { NewChannel, Channel, Subscription } from '../../model/channels.js';
import { byUser, type CommandDef } from '../commands.js';
import { prerenderDescriptions, type RenderedDescriptions } from './render.js';
import { actor, targetUser } from '../access/roles.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { metadataAudience } from '../access/channels.js';
import { applyNewChannels, planNewChannels, writeNewChannels, type NewChannelSettings, type ServerContext } from './creating.js';
import { defaultStreamsEvent, streamCreate } from './events.js';
import { applyNotice, noticeEvents, postAnnouncement, type Notice } from './notices.js';
import { applySubscriptions, planSubscriptions, subscriptionAddedEvents, writeSubscriptions, type NewSubscription } from './subscribing.js';
import { checkChannelName } from './validate.js';

export interface CreateChannelInput {
  actorId: number;
  name: string;
  description: string;
  subscriberIds: number[];
  announce: boolean;
  settings: NewChannelSettings;
  server: ServerContext;
  /** The description rendered on the worker pool (the command's prepare). */
  renderedDescriptions?: RenderedDescriptions;
}

interface Plan {
  row: NewChannel;
  subscribers: User[];
  announce: boolean;
  isDefault: boolean;
  realmUrl: string;
}

export interface CreatedChannels {
  channels: Channel[];
  isDefault: boolean;
  subscriptions: NewSubscription[];
  rows: Subscription[];
  notices: Notice[];
}

/** Applies new channels, their subscriptions and notices to memory. */
export function applyCreated(state: RealmState, r: CreatedChannels): void {
  applyNewChannels(state, r.channels, r.isDefault);
  applySubscriptions(state, r.rows);
  for (const n of r.notices) applyNotice(state, n);
}

/** stream create to everyone who sees the new channels, default_streams, subscription events, notices. */
export function createdEvents(state: RealmState, r: CreatedChannels): RealmEvent[] {
  const events: RealmEvent[] = [];
  for (const ch of r.channels) events.push(...streamCreate(state, [state.channels.byId.get(ch.id)!], metadataAudience(state, ch)));
  if (r.isDefault && r.channels.length > 0) events.push(...defaultStreamsEvent(state));
  events.push(...subscriptionAddedEvents(state, r.subscriptions));
  for (const n of r.notices) events.push(...noticeEvents(state, n));
  return events;
}

const createChannel: CommandDef<CreateChannelInput, Plan, CreatedChannels> = {
  prepare: (state, input) => prerenderDescriptions(state, input, [input.description], input.server.realmUrl),
  orderKey: (input) => byUser(input.actorId),
  check(state, input) {
    const creator = actor(state, input.actorId);
    const name = checkChannelName(input.name);
    if (state.channels.channelByName(name)) throw errors.channelExists(name);
    const subscribers = [...new Set(input.subscriberIds)].map((id) => targetUser(state, id));
    if (subscribers.some((u) => u.id !== creator.id) && !state.userHasRealmPermission(creator.id, 'can_add_subscribers_group')) {
      throw errors.insufficientPermission();
    }
    const [row] = planNewChannels(state, creator, [{ name, description: input.description }], input.settings, input.server, input.renderedDescriptions);
    return { row: row!, subscribers, announce: input.announce, isDefault: input.settings.isDefault, realmUrl: input.server.realmUrl };
  },
  async write(t, plan, state) {
    const channels = await writeNewChannels(t, [plan.row], plan.isDefault);
    const ch = channels[0]!;
    const subscriptions = planSubscriptions(state, plan.subscribers.map((u) => ({ userId: u.id, channelId: ch.id })), new Set([ch.id]));
    const rows = await writeSubscriptions(t, state.realm.id, subscriptions);
    const notices = plan.announce ? [await postAnnouncement(t, state, ch, subscriptions.map((s) => s.userId), plan.realmUrl)] : [];
    return { channels, isDefault: plan.isDefault, subscriptions, rows, notices };
  },
  apply: applyCreated,
  events: createdEvents,
};

export const createCommands = { 'channels.create': createChannel };
