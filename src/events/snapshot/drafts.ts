// Snapshot sections of a user's compose aids and scheduled messages: drafts, saved snippets, navigation views
// and undelivered scheduled messages and reminders, read from the database.
import { formatDraft, formatNavigationView, formatSnippet } from '../../realm/drafts/format.js';
import { userSetting } from '../../realm/people/user-settings.js';
import { formatReminder, formatScheduled } from '../../realm/scheduled/format.js';
import type { Section } from './types.js';

/** Zulip's MAX_DRAFTS_IN_REGISTER_RESPONSE. */
const MAX_DRAFTS_IN_REGISTER = 1000;

const navigationViews: Section<'db'> = async ({ user, db }) => ({
  navigation_views: user ? (await db.navigationViews.forUser(user.id)).map(formatNavigationView) : [],
});

export const draftsSections: Record<string, Section<'db'>> = {
  drafts: async ({ user, db }) => ({
    drafts:
      user && userSetting(user, 'enable_drafts_synchronization') === true
        ? (await db.drafts.forUser(user.id, MAX_DRAFTS_IN_REGISTER)).map(formatDraft)
        : [],
  }),
  saved_snippets: async ({ user, db }) => ({
    saved_snippets: user ? (await db.savedSnippets.forUser(user.id)).map(formatSnippet) : [],
  }),
  // The event type is navigation_view; clients also ask for the key's name.
  navigation_view: navigationViews,
  navigation_views: navigationViews,
  scheduled_messages: async ({ user, db }) => ({
    scheduled_messages: user ? (await db.scheduledMessages.undeliveredOf(user.id)).map(formatScheduled) : [],
  }),
  reminders: async ({ user, db }) => ({
    reminders: user ? (await db.scheduledMessages.undeliveredOf(user.id, 'remind')).map(formatReminder) : [],
  }),
};
