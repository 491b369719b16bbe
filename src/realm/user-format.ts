// User records as the API returns them (the reference's User object), per viewer; the users' API email
// addresses (the real one, or the reference's fake user{id}@{realm host} when the user's email_address_visibility
// hides it), and looking users up by an address a viewer may use.
import { createHash } from 'node:crypto';
import { userSetting } from './people/user-settings.js';
import type { RealmState } from './state.js';
import { ROLE, type User } from '../model/realm.js';

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

/**
 * The user an address names for this viewer (the reference's lookup, feature level 302): the fake
 * user{id}@{realm host} address of anyone, or a real address whose owner lets the viewer see it.
 */
export function userByEmailFor(state: RealmState, viewer: User | null, email: string): User | undefined {
  const fake = /^user(\d{1,10})@(.+)$/i.exec(email);
  if (fake && fake[2]!.toLowerCase() === state.emailDomain) return state.usersById.get(Number(fake[1]));
  const u = state.userByEmail(email);
  return u && (apiEmail(u, state.emailDomain) === u.email || canSeeDeliveryEmail(viewer, u)) ? u : undefined;
}

/** A gravatar URL; callers pass the API email, so a hidden address's hash is never shown. */
export function gravatarUrl(email: string): string {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=1`;
}

export interface UserFormatOptions {
  /** The domain of fake addresses (RealmState.emailDomain). */
  emailDomain: string;
  /** With client_gravatar, clients compute gravatar URLs themselves and avatar_url is null. */
  clientGravatar?: boolean;
  /** Force showing the real email address (the user's own record). */
  includeDeliveryEmail?: boolean;
  /** Who is looking: decides, by the target's email_address_visibility, whether delivery_email is shown. */
  viewer?: User | null;
  /** profile_data (custom profile field values) for humans; the reference leaves it out of GET /users unless asked. */
  includeCustomProfileFields?: boolean;
}

/** email_address_visibility: 1 everyone, 2 members, 3 administrators, 4 nobody, 5 moderators. */
export function canSeeDeliveryEmail(viewer: User | null | undefined, target: User): boolean {
  if (target.isBot) return true;
  if (!viewer) return false;
  if (viewer.id === target.id) return true;
  switch (userSetting(target, 'email_address_visibility')) {
    case 1:
      return true;
    case 2:
      return viewer.role <= ROLE.MEMBER;
    case 3:
      return viewer.role <= ROLE.ADMINISTRATOR;
    case 5:
      return viewer.role <= ROLE.MODERATOR;
    default:
      return false;
  }
}

export function formatUser(u: User, opts: UserFormatOptions): Record<string, unknown> {
  const seesEmail = opts.includeDeliveryEmail || (opts.viewer !== undefined ? canSeeDeliveryEmail(opts.viewer, u) : false);
  const email = apiEmail(u, opts.emailDomain);
  const out: Record<string, unknown> = {
    user_id: u.id,
    delivery_email: seesEmail ? u.email : null,
    email,
    full_name: u.fullName,
    date_joined: new Date(u.dateJoined * 1000).toISOString(),
    is_active: u.isActive,
    is_owner: u.role === ROLE.OWNER,
    is_admin: u.role === ROLE.OWNER || u.role === ROLE.ADMINISTRATOR,
    is_guest: u.role === ROLE.GUEST,
    is_bot: u.isBot,
    bot_type: u.isBot ? u.botType : null,
    role: u.role,
    timezone: u.timezone,
    avatar_url: opts.clientGravatar ? null : gravatarUrl(email),
    avatar_version: 1,
  };
  if (u.isBot) out.bot_owner_id = u.botOwnerId;
  else if (opts.includeCustomProfileFields !== false) out.profile_data = u.profileData ?? {};
  return out;
}
