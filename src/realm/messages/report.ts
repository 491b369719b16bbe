// Reporting a message (POST /messages/{id}/report): the notification bot posts the report, with a quote of the
// message, to the realm's moderation request channel, in a topic per reported user (the reference's format).
import { errors } from '../../errors.js';
import type { StoredMessage } from '../../model/messages.js';
import { LIMITS } from '../../limits.js';
import { applyNotice, NOTIFICATION_BOT_EMAIL, noticeEvents, postNotice, type Notice } from '../channels/notices.js';
import { activeSubscriberIds } from '../channels/format.js';
import type { Channel } from '../../model/channels.js';
import type { CommandDef } from '../commands.js';
import { actor } from '../access/roles.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import { silentMention, unusedFence } from './quoting.js';
import { renderAs, type Rendered } from './render.js';
import { truncate } from './topic-rules.js';

export const REPORT_REASONS = {
  spam: 'Spam',
  harassment: 'Harassment',
  inappropriate: 'Inappropriate content',
  norms: 'Violates community norms',
  other: 'Other reason',
} as const;
export type ReportType = keyof typeof REPORT_REASONS;

/** The reference's Realm.MAX_REPORT_MESSAGE_EXPLANATION_LENGTH. */
export const MAX_REPORT_DESCRIPTION_LENGTH = 1000;
const MAX_SNIPPET_LENGTH = LIMITS.max_message_length - MAX_REPORT_DESCRIPTION_LENGTH - 500;

/** The realm's moderation request channel; "not enabled" when none is set. */
export function moderationChannel(state: RealmState): Channel {
  const ch = state.channels.byId.get(Number(realmSetting(state, 'moderation_request_channel_id')));
  if (!ch || ch.isArchived) throw errors.reportingDisabled();
  return ch;
}

export interface ReportInput {
  userId: number;
  /** The message, as the caller may see it (checked by the route). */
  message: StoredMessage;
  reportType: ReportType;
  description: string;
  realmUrl: string;
  /** The report's text and its rendering, made by the command's prepare (rendered on the worker pool). */
  prepared?: { content: string; rendered: Rendered };
}

type ReportPlan = { channel: Channel; topic: string; content: string; recipients: number[]; realmUrl: string; rendered: Rendered };

function reportContent(state: RealmState, reporter: { id: number; fullName: string }, m: StoredMessage, type: ReportType, description: string): string {
  const reported = state.usersById.get(m.senderId)!;
  let header: string;
  if (m.kind === 'direct' && m.directRecipients.length <= 2) {
    header = `${silentMention(reporter)} reported a DM sent by ${silentMention(reported)}.`;
  } else if (m.kind === 'direct') {
    const mentions = m.directRecipients.map((id) => silentMention(state.usersById.get(id)!));
    const last = mentions.pop()!;
    header = `${silentMention(reporter)} reported a DM sent by ${silentMention(reported)} to ${mentions.join(', ')}, and ${last}.`;
  } else {
    const channel = state.channels.byId.get(m.channelId!)!;
    header = `${silentMention(reporter)} reported #**${channel.name}>${m.topic}@${m.id}** sent by ${silentMention(reported)}.`;
  }
  const context = `\n- Reason: **${REPORT_REASONS[type]}**\n- Notes:\n\`\`\`quote\n${description}\n\`\`\``;
  const quoted = truncate(m.content, MAX_SNIPPET_LENGTH, '\n[message truncated]');
  const fence = unusedFence(quoted);
  const preview = `\n${fence} spoiler **Message sent by ${silentMention(reported)}**\n${quoted}\n${fence}\n`;
  return header + context + preview;
}

const reportMessage: CommandDef<ReportInput, ReportPlan, Notice> = {
  // The report quotes the message: rendered on the worker pool, as the notification bot (when it exists yet).
  async prepare(state, input) {
    const content = reportContent(state, actor(state, input.userId), input.message, input.reportType, input.description);
    const bot = state.userByEmail(NOTIFICATION_BOT_EMAIL) ?? null;
    return { ...input, prepared: { content, rendered: await renderAs(state, bot, input.realmUrl, content) } };
  },
  check(state, input) {
    actor(state, input.userId);
    const channel = moderationChannel(state);
    const reported = state.usersById.get(input.message.senderId)!;
    if (!input.prepared) throw new Error('a report reached the realm actor without its prepare step');
    return {
      channel,
      topic: `${reported.fullName}'s moderation requests`,
      content: input.prepared.content,
      rendered: input.prepared.rendered,
      recipients: activeSubscriberIds(state, channel.id),
      realmUrl: input.realmUrl,
    };
  },
  write: (t, p, state) => postNotice(t, state, p),
  apply: applyNotice,
  events: noticeEvents,
};

export const reportCommands = { 'messages.report': reportMessage };
