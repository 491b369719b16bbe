// Snapshot sections about bots: the bots the user may administer, and the kinds of embedded and incoming-webhook
// bots the server offers (none: this server has no bot integrations, so those lists are empty).
import { administeredBots, botRecord } from '../../realm/people/bots.js';
import type { Section } from './types.js';

export const botSections: Record<string, Section> = {
  // Administrators administer every bot of the realm; others the bots they own. The notification bot is the
  // server's (the reference's cross-realm system bot), administered by nobody.
  realm_bot: ({ state, user }) => ({ realm_bots: user ? administeredBots(state, user).map((b) => botRecord(state, b)) : [] }),
  realm_embedded_bots: () => ({ realm_embedded_bots: [] }),
  realm_incoming_webhook_bots: () => ({ realm_incoming_webhook_bots: [] }),
};
