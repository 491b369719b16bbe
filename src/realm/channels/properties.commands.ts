// A subscriber's personal settings for channels (POST /users/me/subscriptions/properties).
import type { RealmEvent } from '../../bus/events.js';
import { errors } from '../../errors.js';
import { type SubscriptionColumn, SUBSCRIPTION_NOTIFICATION_PROPERTIES, type Subscription, type SubscriptionNotificationProperty } from '../../model/channels.js';
import type { CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';
import { visibleChannel } from '../access/channels.js';
import { subscriptionUpdate } from './events.js';

export const SUBSCRIPTION_PROPERTIES = ['color', 'is_muted', 'in_home_view', 'pin_to_top', ...SUBSCRIPTION_NOTIFICATION_PROPERTIES] as const;
type Property = (typeof SUBSCRIPTION_PROPERTIES)[number];

const HEX_COLOR = /^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/;

export interface PropertyChange {
  channelId: number;
  property: string;
  value: unknown;
}

interface CheckedChange {
  channelId: number;
  column: SubscriptionColumn;
  value: string | boolean;
  /** The property as the client named it (in_home_view is stored inverted as is_muted). */
  property: Property;
}

export interface PropertiesInput {
  actorId: number;
  changes: PropertyChange[];
}

function checkChange(property: string, value: unknown): Omit<CheckedChange, 'channelId'> {
  if (!(SUBSCRIPTION_PROPERTIES as readonly string[]).includes(property)) throw errors.unknownSubscriptionProperty(property);
  const p = property as Property;
  if (p === 'color') {
    if (typeof value !== 'string' || !HEX_COLOR.test(value)) throw errors.invalidParam('color is not a valid hex color code');
    return { column: 'color', value, property: p };
  }
  if (typeof value !== 'boolean') throw errors.invalidParam(`${property} is not a boolean`);
  if (p === 'in_home_view') return { column: 'is_muted', value: !value, property: p };
  return { column: p as 'is_muted' | 'pin_to_top' | SubscriptionNotificationProperty, value, property: p };
}

function withChange(sub: Subscription, c: CheckedChange): Subscription {
  if (c.column === 'color') return { ...sub, color: c.value as string };
  if (c.column === 'is_muted') return { ...sub, isMuted: c.value as boolean };
  if (c.column === 'pin_to_top') return { ...sub, pinToTop: c.value as boolean };
  return { ...sub, notifications: { ...sub.notifications, [c.column]: c.value as boolean } };
}

const updateSubscriptionProperties: CommandDef<PropertiesInput, { userId: number; changes: CheckedChange[] }, { userId: number; changes: CheckedChange[] }> = {
  batchable: true,
  check(state, input) {
    const user = actor(state, input.actorId);
    const changes = input.changes.map((c) => {
      const ch = visibleChannel(state, user, c.channelId, 'metadata');
      if (!state.channels.isSubscribed(user.id, ch.id)) throw errors.notSubscribedToChannel(ch.id);
      return { channelId: ch.id, ...checkChange(c.property, c.value) };
    });
    return { userId: user.id, changes };
  },
  async write(t, plan) {
    for (const c of plan.changes) await t.subscriptions.setProperty(plan.userId, c.channelId, c.column, c.value);
    return plan;
  },
  apply(state, r) {
    for (const c of r.changes) {
      const sub = state.channels.subscription(r.userId, c.channelId);
      if (sub) state.channels.putSubscription(withChange(sub, c));
    }
  },
  events(_state, r) {
    const events: RealmEvent[] = [];
    for (const c of r.changes) {
      if (c.column === 'is_muted') {
        // Muting is told both ways: is_muted and the deprecated in_home_view.
        events.push(subscriptionUpdate(r.userId, c.channelId, 'is_muted', c.value));
        events.push(subscriptionUpdate(r.userId, c.channelId, 'in_home_view', !c.value));
      } else events.push(subscriptionUpdate(r.userId, c.channelId, c.property, c.value));
    }
    return events;
  },
};

export const propertyCommands = { 'subscriptions.setProperties': updateSubscriptionProperties };
