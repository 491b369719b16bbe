// Snapshot sections about bots: the bots the user may administer, and the kinds of embedded and incoming-webhook
// bots the server offers (none: this server has no bot integrations, so those lists are empty).
import { NOTIFICATION_BOT_EMAIL } from '../../realm/channels/notices.js';
import { ROLE, type User } from '../../realm/types.js';
import { gravatarUrl } from '../../realm/user-format.js';
import type { Section } from './types.js';

/** The reference's Bot object. Bots here have no default channels and no outgoing services. */
function formatBot(bot: User): Record<string, unknown> {
  return {
    user_id: bot.id,
    full_name: bot.fullName,
    email: bot.email,
    api_key: bot.apiKey,
    bot_type: bot.botType,
    is_active: bot.isActive,
    default_sending_stream: null,
    default_events_register_stream: null,
    default_all_public_streams: false,
    avatar_url: gravatarUrl(bot.email),
    owner_id: bot.botOwnerId,
    services: [],
  };
}

export const botSections: Record<string, Section> = {
  // Administrators administer every bot of the realm; others the bots they own. The notification bot is the
  // server's (the reference's cross-realm system bot), administered by nobody.
  realm_bot: ({ state, user }) => ({
    realm_bots: user
      ? [...state.usersById.values()]
          .filter((u) => u.isBot && u.email !== NOTIFICATION_BOT_EMAIL && (user.role <= ROLE.ADMINISTRATOR || u.botOwnerId === user.id))
          .sort((a, b) => a.id - b.id)
          .map(formatBot)
      : [],
  }),
  realm_embedded_bots: () => ({ realm_embedded_bots: [] }),
  realm_incoming_webhook_bots: () => ({ realm_incoming_webhook_bots: [] }),
};
