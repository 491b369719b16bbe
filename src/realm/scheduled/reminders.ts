// Reminders (POST /reminders): a scheduled message to oneself about a message, delivered by the notification
// bot as a direct message (the reference's format); listed, cancelled and delivered with the scheduled messages.
import { errors } from '../../errors.js';
import { LIMITS } from '../../limits.js';
import { channelNarrowUrl } from '../../markdown/urls.js';
import type { StoredMessage } from '../../model/messages.js';
import type { NewScheduledMessage, ScheduledMessage } from '../../model/scheduled.js';
import { NOTIFICATION_BOT_EMAIL, notificationBot } from '../channels/notices.js';
import { byUser, type CommandDef } from '../commands.js';
import type { Prerendered } from '../messages/render.js';
import { prerender, type SendInput } from '../messages/send.js';
import { silentMention, unusedFence } from '../messages/quoting.js';
import { truncate } from '../messages/topic-rules.js';
import { realmUserAdd } from '../people/events.js';
import { actor } from '../access/roles.js';
import { applyCreatedUser } from '../people/users.commands.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { scheduledAdded, scheduledRemoved } from './format.js';
import { checkScheduled, newScheduled } from './validate.js';

/** The reference's message_link_url: the message in its conversation. */
function messageUrl(state: RealmState, m: StoredMessage, realmUrl: string): string {
  if (m.kind === 'stream') {
    const ch = state.channels.byId.get(m.channelId!)!;
    return `${realmUrl}${channelNarrowUrl(ch.id, ch.name, m.topic)}/near/${m.id}`;
  }
  const ids = [...m.directRecipients].sort((a, b) => a - b);
  return `${realmUrl}/#narrow/dm/${ids.join(',')}-${ids.length >= 3 ? 'group' : 'dm'}/near/${m.id}`;
}

/** The reference's get_reminder_formatted_content. */
export function reminderContent(state: RealmState, m: StoredMessage, note: string, realmUrl: string): string {
  let content: string;
  if (m.kind === 'stream') {
    const ch = state.channels.byId.get(m.channelId!)!;
    const link = `#**${ch.name}>${m.topic}@${m.id}**`;
    content = note ? `You requested a reminder for ${link}. Note:\n > ${note}` : `You requested a reminder for ${link}.`;
  } else {
    content = note
      ? `You requested a reminder for the following direct message. Note:\n > ${note}`
      : 'You requested a reminder for the following direct message.';
  }
  const sender = silentMention(state.usersById.get(m.senderId)!);
  const url = messageUrl(state, m, realmUrl);
  content += '\n\n';
  if (m.content.startsWith('/poll')) return content + `${sender} [sent](${url}) a poll.`;
  if (m.content.startsWith('/todo')) return content + `${sender} [sent](${url}) a todo list.`;
  content += `${sender} [said](${url}):\n`;
  const fence = unusedFence(content);
  const room = LIMITS.max_message_length - [...`${content}${fence}quote\n\n${fence}`].length;
  return content + `${fence}quote\n${truncate(m.content, room, '\n[message truncated]')}\n${fence}`;
}

/** The reference's normalize_note_text: trailing space and leading newlines go; at most max_reminder_note_length. */
export function normalizeNote(note: string): string {
  const body = note.trimEnd().replace(/^\n+/, '');
  if ([...body].length > LIMITS.max_reminder_note_length) throw errors.reminderNoteTooLong(LIMITS.max_reminder_note_length);
  return body;
}

export interface CreateReminderInput {
  userId: number;
  /** The message, as the user may see it (checked by the route). */
  message: StoredMessage;
  note: string;
  /** Seconds. */
  scheduledAt: number;
  client: string;
  realmUrl: string;
  /** The reminder's text and its rendering, made by the command's prepare (rendered on the worker pool). */
  content?: string;
  rendered?: Prerendered;
}

type CreatePlan = NewScheduledMessage;
type CreateResult = { reminder: ScheduledMessage; createdBot: User | null };

const createReminder: CommandDef<CreateReminderInput, CreatePlan, CreateResult> = {
  prepare(state, input) {
    const content = reminderContent(state, input.message, input.note ? normalizeNote(input.note) : '', input.realmUrl);
    return prerender(state, { ...input, content }, input.userId, input.realmUrl, content);
  },
  orderKey: (input) => byUser(input.userId),
  check(state, input) {
    actor(state, input.userId);
    const content = input.content;
    if (content === undefined) throw new Error('a reminder reached the realm actor without its prepare step');
    // Checked as the user's message to themself, as the reference does.
    const draft = { type: 'private' as const, to: [input.userId], content };
    const checked = checkScheduled(state, input.userId, draft, input.client, input.realmUrl, input.rendered);
    return {
      ...newScheduled(state, input.userId, checked, input.scheduledAt, false, input.client),
      deliveryType: 'remind',
      reminderTargetMessageId: input.message.id,
    };
  },
  async write(t, plan, state) {
    // The notification bot delivers it: made now if the realm has none yet.
    const { bot, created } = await notificationBot(t, state);
    return { reminder: await t.scheduledMessages.insert(plan), createdBot: created ? bot : null };
  },
  apply(state, r) {
    if (r.createdBot) applyCreatedUser(state, { user: r.createdBot, groupIds: [] });
  },
  events: (state, r) => [...(r.createdBot ? realmUserAdd(state, r.createdBot) : []), scheduledAdded(r.reminder)],
};

const deleteReminder: CommandDef<{ userId: number; id: number }, { userId: number; id: number }, ScheduledMessage> = {
  batchable: true,
  check(state, input) {
    actor(state, input.userId);
    return input;
  },
  async write(t, p) {
    const row = await t.scheduledMessages.lockOf(p.userId, p.id, 'remind');
    if (!row || row.delivered) throw errors.reminderNotFound();
    await t.scheduledMessages.delete(row.id);
    return row;
  },
  events: (_state, row) => [scheduledRemoved(row)],
};

/** The send of a due reminder: the notification bot's direct message to the reminder's owner. */
export function reminderSendInput(state: RealmState, m: ScheduledMessage, realmUrl: string): SendInput {
  const bot = state.userByEmail(NOTIFICATION_BOT_EMAIL);
  if (!bot) throw errors.badRequest('The notification bot is missing.');
  return { senderId: bot.id, type: 'direct', to: [m.senderId], content: m.content, readBySender: false, client: 'Internal', realmUrl };
}

export const reminderCommands = { 'reminders.create': createReminder, 'reminders.delete': deleteReminder };
