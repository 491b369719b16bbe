// Snapshot sections of the messages domain: max_message_id, unread_msgs, recent_private_conversations,
// starred_messages, alert_words, realm_linkifiers and realm_playgrounds.
import { formatPlaygrounds } from '../../realm/messages/playgrounds.js';
import { recentConversations, unreadMessages } from '../../realm/messages/unread.js';
import type { Section } from './types.js';

export const messageSections: Record<string, Section<'db'>> = {
  // The message sections read up to messagesUpTo: later messages reach the queue as events.
  message: async ({ user, db, messagesUpTo }) => ({
    max_message_id: user ? await db.userMessages.maxMessageId(user.id, messagesUpTo) : -1,
  }),

  update_message_flags: async ({ state, user, db, registration, fetchTypes, messagesUpTo }) => {
    if (fetchTypes !== null && !fetchTypes.includes('message')) return {};
    if (!user) return {};
    return { unread_msgs: await unreadMessages(db, state, user.id, registration.capabilities.empty_topic_name, messagesUpTo) };
  },

  recent_private_conversations: async ({ user, db, messagesUpTo }) => ({
    recent_private_conversations: user ? await recentConversations(db, user.id, messagesUpTo) : [],
  }),

  starred_messages: async ({ user, db }) => ({
    starred_messages: user ? await db.userMessages.starred(user.id) : [],
  }),

  alert_words: ({ state, user }) => ({ alert_words: user ? [...state.messages.wordsOf(user.id)] : [] }),

  realm_linkifiers: ({ state, registration }) => ({
    realm_linkifiers: registration.capabilities.linkifier_url_template
      ? state.messages.linkifiers.map((l) => ({ pattern: l.pattern, url_template: l.urlTemplate, id: l.id }))
      : [],
  }),

  realm_filters: () => ({ realm_filters: [] }),

  realm_playgrounds: async ({ state, db }) => ({
    realm_playgrounds: formatPlaygrounds(await db.playgrounds.forRealm(state.realm.id)),
  }),
};
