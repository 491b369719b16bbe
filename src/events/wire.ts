// The wire form of the realm's events: what a client receives for each internal event (src/bus/events.ts),
// before each queue's own form (queue-form.ts). Made once per published event by the event router.
import type { BusEvent, UpdateMessageEvent, UserRef, WireEvent } from '../bus/events.js';
import { formatDraft, formatNavigationView, formatSnippet } from '../realm/drafts/format.js';
import { legacyPresence, modernPresence } from '../realm/people/presence.js';
import { formatReminder, formatScheduled } from '../realm/scheduled/format.js';

const userRef = (u: UserRef) => ({ user_id: u.userId, email: u.email });

function updateMessage(e: UpdateMessageEvent): WireEvent {
  const out: WireEvent = { type: 'update_message', user_id: e.editorId, edit_timestamp: e.editTime, message_id: e.messageId, message_ids: e.messageIds, rendering_only: e.renderingOnly };
  if (e.channel) Object.assign(out, { stream_name: e.channel.name, stream_id: e.channel.id });
  const c = e.content;
  if (c) {
    if (c.before) Object.assign(out, { orig_content: c.before.content, orig_rendered_content: c.before.rendered });
    Object.assign(out, { content: c.content, rendered_content: c.rendered });
    if (c.isMeMessage !== undefined) out.is_me_message = c.isMeMessage;
  }
  const move = e.move;
  if (move) {
    Object.assign(out, { propagate_mode: move.propagateMode, orig_subject: move.origTopic, empty_topic_display_name: move.emptyTopicDisplayName });
    if (move.topic) Object.assign(out, { subject: move.topic.name, topic_links: move.topic.links });
    if (move.newChannelId !== undefined) out.new_stream_id = move.newChannelId;
  }
  return out;
}

export function toWire(e: BusEvent): WireEvent {
  switch (e.kind) {
    case undefined:
      return e;
    case 'message':
      return { type: 'message', message: e.message };
    case 'scheduled_message':
      if (e.op === 'remove') return { type: 'scheduled_messages', op: 'remove', scheduled_message_id: e.id };
      if (e.op === 'add') return { type: 'scheduled_messages', op: 'add', scheduled_messages: [formatScheduled(e.message)] };
      return { type: 'scheduled_messages', op: 'update', scheduled_message: formatScheduled(e.message) };
    case 'reminder':
      if (e.op === 'add') return { type: 'reminders', op: 'add', reminders: [formatReminder(e.reminder)] };
      return { type: 'reminders', op: 'remove', reminder_id: e.id };
    case 'drafts':
      if (e.op === 'add') return { type: 'drafts', op: 'add', drafts: e.drafts.map(formatDraft) };
      if (e.op === 'update') return { type: 'drafts', op: 'update', draft: formatDraft(e.draft) };
      return { type: 'drafts', op: 'remove', draft_id: e.draftId };
    case 'saved_snippet':
      if (e.op === 'remove') return { type: 'saved_snippets', op: 'remove', saved_snippet_id: e.snippetId };
      return { type: 'saved_snippets', op: e.op, saved_snippet: formatSnippet(e.snippet) };
    case 'navigation_view':
      if (e.op === 'add') return { type: 'navigation_view', op: 'add', navigation_view: formatNavigationView(e.view) };
      if (e.op === 'update') return { type: 'navigation_view', op: 'update', fragment: e.fragment, data: e.data };
      return { type: 'navigation_view', op: 'remove', fragment: e.fragment };
    case 'typing': {
      const common = { type: 'typing', op: e.op, message_type: e.to, sender: userRef(e.sender) };
      if (e.to === 'direct') return { ...common, recipients: e.recipients.map(userRef) };
      return { ...common, stream_id: e.channelId, topic: e.topic };
    }
    case 'typing_edit': {
      const to = e.to;
      const recipient = to.kind === 'direct' ? { type: 'direct', user_ids: to.userIds } : { type: 'channel', channel_id: to.channelId, topic: to.topic };
      return { type: 'typing_edit_message', op: e.op, sender_id: e.senderId, message_id: e.messageId, recipient };
    }
    case 'presence':
      if (e.form === 'slim') return { type: 'presence', presences: { [String(e.userId)]: modernPresence(e.dateJoined, e) } };
      return { type: 'presence', user_id: e.userId, email: e.email, server_timestamp: e.serverTimestamp, presence: { website: legacyPresence(e.dateJoined, e).website } };
    case 'user_status': {
      const out: WireEvent = { type: 'user_status', user_id: e.userId };
      if (e.away !== undefined) out.away = e.away;
      if (e.statusText !== undefined) out.status_text = e.statusText;
      if (e.emoji) Object.assign(out, { emoji_name: e.emoji.emojiName, emoji_code: e.emoji.emojiCode, reaction_type: e.emoji.reactionType });
      return out;
    }
    case 'reaction':
      return {
        type: 'reaction',
        op: e.op,
        user_id: e.user.userId,
        user: { ...userRef(e.user), full_name: e.user.fullName },
        message_id: e.messageId,
        emoji_name: e.emojiName,
        emoji_code: e.emojiCode,
        reaction_type: e.reactionType,
      };
    case 'message_flags': {
      const out: WireEvent = { type: 'update_message_flags', op: e.op, operation: e.op, flag: e.flag, messages: e.messageIds, all: false };
      if (e.details) out.message_details = e.details;
      return out;
    }
    case 'subscription':
      if (e.op === 'add') return { type: 'subscription', op: 'add', subscriptions: e.subscriptions };
      if (e.op === 'update') return { type: 'subscription', op: 'update', stream_id: e.channelId, property: e.property, value: e.value };
      if (e.op === 'remove') return { type: 'subscription', op: 'remove', subscriptions: e.channels.map((c) => ({ stream_id: c.id, name: c.name })) };
      return { type: 'subscription', op: e.op, stream_ids: e.channelIds, user_ids: e.userIds };
    case 'channel_update':
      return { type: 'stream', op: 'update', stream_id: e.channelId, name: e.name, property: e.property, value: e.value, ...e.extra };
    case 'channels_created':
      return { type: 'stream', op: 'create', streams: e.channels };
    case 'channels_deleted':
      return { type: 'stream', op: 'delete', streams: e.channelIds.map((id) => ({ stream_id: id })), stream_ids: e.channelIds };
    case 'default_channels':
      return { type: 'default_streams', default_streams: e.channelIds };
    case 'group_members':
      if ('userIds' in e) return { type: 'user_group', op: e.op, group_id: e.groupId, user_ids: e.userIds };
      return { type: 'user_group', op: e.op, group_id: e.groupId, direct_subgroup_ids: e.subgroupIds };
    case 'user_group':
      if (e.op === 'add') return { type: 'user_group', op: 'add', group: e.group };
      if (e.op === 'update') return { type: 'user_group', op: 'update', group_id: e.groupId, data: e.data };
      return { type: 'user_group', op: 'remove', group_id: e.groupId };
    case 'realm_user':
      return { type: 'realm_user', op: e.op, person: e.person };
    case 'delete_message': {
      const ids = 'messageIds' in e ? { message_ids: e.messageIds } : { message_id: e.messageId };
      const from = e.from;
      if (from.kind === 'direct') return { type: 'delete_message', message_type: 'private', ...ids };
      return { type: 'delete_message', message_type: 'stream', ...ids, stream_id: from.channelId, topic: from.topic, empty_topic_display_name: from.emptyTopicDisplayName };
    }
    case 'update_message':
      return updateMessage(e);
    case 'user_topic':
      return { type: 'user_topic', stream_id: e.channelId, topic_name: e.topic, last_updated: e.lastUpdated, visibility_policy: e.policy, empty_topic_display_name: e.emptyTopicDisplayName };
    case 'realm':
      if (e.op === 'update') return { type: 'realm', op: 'update', property: e.property, value: e.value };
      if (e.op === 'update_dict') return { type: 'realm', op: 'update_dict', property: e.property, data: e.data };
      return { type: 'realm', op: 'deactivated', realm_id: e.realmId };
    case 'realm_emoji':
      return { type: 'realm_emoji', op: 'update', realm_emoji: e.emoji };
    case 'realm_linkifiers':
      return { type: 'realm_linkifiers', realm_linkifiers: e.linkifiers };
    case 'realm_playgrounds':
      return { type: 'realm_playgrounds', realm_playgrounds: e.playgrounds };
    case 'realm_domains':
      if (e.op === 'remove') return { type: 'realm_domains', op: 'remove', domain: e.domain };
      return { type: 'realm_domains', op: e.op, realm_domain: e.domain };
    case 'realm_bot':
      return { type: 'realm_bot', op: e.op, bot: e.bot };
    case 'realm_export':
      return { type: 'realm_export', exports: e.exports };
    case 'realm_export_consent':
      return { type: 'realm_export_consent', user_id: e.userId, consented: e.consented };
    case 'realm_user_settings_defaults':
      return { type: 'realm_user_settings_defaults', op: 'update', property: e.property, value: e.value };
    case 'custom_profile_fields':
      return { type: 'custom_profile_fields', fields: e.fields };
    case 'invites_changed':
      return { type: 'invites_changed' };
    case 'channel_folder':
      if (e.op === 'add') return { type: 'channel_folder', op: 'add', channel_folder: e.folder };
      if (e.op === 'update') return { type: 'channel_folder', op: 'update', channel_folder_id: e.folderId, data: e.data };
      return { type: 'channel_folder', op: 'reorder', order: e.order };
    case 'alert_words':
      return { type: 'alert_words', alert_words: e.words };
    case 'muted_users':
      return { type: 'muted_users', muted_users: e.mutedUsers };
    case 'attachment':
      if (e.op === 'add') return { type: 'attachment', op: 'add', attachment: e.attachment, upload_space_used: e.spaceUsed };
      return { type: 'attachment', op: 'remove', attachment: { id: e.attachmentId }, upload_space_used: e.spaceUsed };
    case 'push_device':
      return { type: 'push_device', push_account_id: String(e.pushAccountId), status: e.status };
    case 'legacy_user_setting':
      if (e.group === 'display') return { type: 'update_display_settings', user: e.email, setting_name: e.property, setting: e.value };
      return { type: 'update_global_notifications', user: e.email, notification_name: e.property, setting: e.value };
    case 'user_setting':
      return { type: 'user_settings', op: 'update', property: e.property, value: e.value };
  }
}
