// Notices from the realm's notification bot (created on first use): the announcement of a new channel, and the
// notices of other domains (message reports). Written with the messages domain's insert and event format.
import type { RealmEvent } from '../../bus/events.js';
import type { Tx } from '../../persistence/db.js';
import { newMessage, storedMessage, type StoredMessage } from '../../model/messages.js';
import { flagNames, messageEvent } from '../messages/format.js';
import { silentMention } from '../messages/quoting.js';
import { renderContent, type Rendered } from '../messages/render.js';
import { applyCreatedUser } from '../people/users.commands.js';
import { NOTIFICATION_BOT_EMAIL } from '../people/bots.js';
import { realmUserAdd } from '../people/events.js';
import { createUser } from '../provision.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import { ROLE, type User } from '../../model/realm.js';
import { activeSubscriberIds } from './format.js';
import type { Channel } from '../../model/channels.js';

export { NOTIFICATION_BOT_EMAIL };
export const NOTIFICATION_BOT_NAME = 'Notification Bot';
/** Topics of the notices: in the realm's announcements channel, and in the new channel itself. */
export const NEW_CHANNELS_TOPIC = 'new channels';
export const CHANNEL_EVENTS_TOPIC = 'channel events';

export interface Notice {
  /** Set when the bot was created for this notice. */
  createdBot: User | null;
  message: StoredMessage;
  recipients: number[];
}

export async function notificationBot(t: Tx, state: RealmState): Promise<{ bot: User; created: boolean }> {
  // Several notices in one command: the bot made for the first is in the database, not yet in memory.
  const existing = state.userByEmail(NOTIFICATION_BOT_EMAIL) ?? (await t.users.byEmail(state.realm.id, NOTIFICATION_BOT_EMAIL));
  if (existing) return { bot: existing, created: false };
  const bot = await createUser(t, state.realm.id, {
    email: NOTIFICATION_BOT_EMAIL,
    fullName: NOTIFICATION_BOT_NAME,
    role: ROLE.MEMBER,
    isBot: true,
    botType: 1,
  });
  return { bot, created: true };
}

function policyName(ch: Channel): string {
  if (ch.isWebPublic) return 'Web-public';
  if (!ch.inviteOnly) return 'Public';
  return ch.historyPublicToSubscribers ? 'Private, shared history' : 'Private, protected history';
}

/** Where the creation of `ch` is announced: the realm's announcements channel (public channels), else the
 *  new channel itself. */
export function announcementTarget(state: RealmState, ch: Channel): { channel: Channel; topic: string; content: string } {
  const creator = ch.creatorId === null ? undefined : state.usersById.get(ch.creatorId);
  const by = creator ? silentMention(creator) : 'an administrator';
  const target = state.channels.byId.get(Number(realmSetting(state, 'new_stream_announcements_stream_id')));
  // Private channels are not announced elsewhere: that would reveal their names.
  if (target && !target.isArchived && target.id !== ch.id && !ch.inviteOnly) {
    return { channel: target, topic: NEW_CHANNELS_TOPIC, content: `${by} created a new channel #**${ch.name}**.` };
  }
  const description = ch.description === '' ? '*No description.*' : ch.description;
  const content = `**${policyName(ch)}** channel created by ${by}. **Description:**\n\`\`\`\` quote\n${description}\n\`\`\`\``;
  return { channel: ch, topic: ch.topicsPolicy === 'empty_topic_only' ? '' : CHANNEL_EVENTS_TOPIC, content };
}

/** Posts the announcement of a new channel (not yet in memory: its subscribers are given). */
export async function postAnnouncement(t: Tx, state: RealmState, ch: Channel, subscriberIds: number[], realmUrl: string): Promise<Notice> {
  const { channel, topic, content } = announcementTarget(state, ch);
  const recipients = channel.id === ch.id ? subscriberIds : activeSubscriberIds(state, channel.id);
  return postNotice(t, state, { channel, topic, content, recipients, realmUrl });
}

/**
 * Posts a message of the notification bot to a channel's topic, received by `recipients` (its subscribers).
 * Content that quotes what users wrote comes `rendered` on the worker pool; the bot's own short texts render here.
 */
export async function postNotice(
  t: Tx,
  state: RealmState,
  n: { channel: Channel; topic: string; content: string; recipients: number[]; realmUrl: string; rendered?: Rendered },
): Promise<Notice> {
  const { bot, created } = await notificationBot(t, state);
  const rendered = n.rendered ?? renderContent(state, bot, n.realmUrl, n.content);
  const to = { kind: 'stream' as const, channelId: n.channel.id, topic: n.topic, directRecipients: [] };
  const message = newMessage(state.realm.id, bot.id, to, n.content, { ...rendered, isMeMessage: false }, 'Internal');
  // The one message write: the message and its recipients' rows in one statement, as sends are written.
  const [inserted] = await t.messages.insertWithRecipients([message], [n.recipients.map((userId) => ({ userId, flags: 0 }))]);
  const id = inserted!.id;
  return {
    createdBot: created ? bot : null,
    message: storedMessage(message, id),
    recipients: n.recipients,
  };
}

export function applyNotice(state: RealmState, n: Notice): void {
  if (n.createdBot) applyCreatedUser(state, { user: n.createdBot, groupIds: [] });
  state.channels.noteMessage(n.message.channelId!, n.message.id, n.message.dateSent);
  state.messages.noteNew(n.message.id);
}

/** The bot's realm_user add (when new) and the message event to the notice's recipients. */
export function noticeEvents(state: RealmState, n: Notice): RealmEvent[] {
  const events: RealmEvent[] = n.createdBot ? realmUserAdd(state, n.createdBot) : [];
  if (n.recipients.length === 0) return events;
  const event = messageEvent(state, n.message);
  events.push({
    event,
    users: n.recipients.map((id) => ({ id, flags: flagNames(0) })),
    ...(event.facts.channelIsPublic ? { allPublicStreams: true } : {}),
  });
  return events;
}
