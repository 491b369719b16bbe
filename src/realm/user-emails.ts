// The users' API email addresses: the real one, or the reference's fake user{id}@{realm host} when the user's
// email_address_visibility hides it.
import { userSetting } from './people/user-settings.js';
import type { User } from '../model/realm.js';

const EMAIL_VISIBILITY_EVERYONE = 1;

/**
 * The domain of a realm's fake addresses: its host (the reference's get_fake_email_domain), or the root domain
 * (the reference's FAKE_EMAIL_DOMAIN default) when the host cannot end an address.
 */
export function realmEmailDomain(stringId: string, rootDomain: string): string {
  const host = (stringId === '' ? rootDomain : `${stringId}.${rootDomain}`).toLowerCase();
  return /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z][a-z0-9-]*[a-z0-9]$/.test(host) ? host : rootDomain;
}

/**
 * The address the API shows as `email` (sender_email, display_recipient, …) to everyone: the real address when
 * the user's email_address_visibility is "everyone" (and for bots), else the reference's fake
 * user{id}@{realm host}; the real one then appears only as delivery_email, to those allowed to see it.
 */
export function apiEmail(u: User, emailDomain: string): string {
  return u.isBot || userSetting(u, 'email_address_visibility') === EMAIL_VISIBILITY_EVERYONE ? u.email : `user${u.id}@${emailDomain}`;
}
