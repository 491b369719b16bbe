// Snapshot sections of the messages domain: max_message_id, unread_msgs, recent_private_conversations,
// starred_messages, alert_words, realm_linkifiers and realm_playgrounds.
import { formatPlaygrounds } from '../../realm/messages/playgrounds.js';
import { recentConversations, unreadMessages } from '../../realm/messages/unread.js';
import type { Section } from './types.js';

export const messageSections: Record<string, Section<'db'>> = {
  message: async ({ user, db }) => ({
    max_message_id: user ? await db.userMessages.maxMessageId(user.id) : -1,
  }),

  update_message_flags: async ({ state, user, db, registration, fetchTypes }) => {
    if (fetchTypes !== null && !fetchTypes.includes('message')) return {};
    if (!user) return {};
    return { unread_msgs: await unreadMessages(db, state, user.id, registration.capabilities.empty_topic_name) };
  },

  recent_private_conversations: async ({ user, db }) => ({
    recent_private_conversations: user ? await recentConversations(db, user.id) : [],
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
