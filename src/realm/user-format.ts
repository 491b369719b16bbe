// User records as the API returns them (the reference's User object), per viewer, and looking users up by an
// address a viewer may use (the addresses themselves are in user-emails.ts).
import { createHash } from 'node:crypto';
import { userSetting } from './people/user-settings.js';
import type { RealmState } from './state.js';
import { ROLE, type User } from '../model/realm.js';
import { apiEmail } from './user-emails.js';

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

/** Gravatar URLs by address: every message event carries its sender's, so each address is hashed once (the map is
 *  emptied when it reaches GRAVATAR_CACHE_SIZE, which bounds it). */
const gravatarUrls = new Map<string, string>();
const GRAVATAR_CACHE_SIZE = 50_000;

/** A gravatar URL; callers pass the API email, so a hidden address's hash is never shown. */
export function gravatarUrl(email: string): string {
  let url = gravatarUrls.get(email);
  if (url === undefined) {
    const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
    url = `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=1`;
    if (gravatarUrls.size >= GRAVATAR_CACHE_SIZE) gravatarUrls.clear();
    gravatarUrls.set(email, url);
  }
  return url;
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
  return roleSeesDeliveryEmail(viewer.role, target);
}

/** Whether a viewer of `role` other than `target` sees target's delivery_email. */
export function roleSeesDeliveryEmail(role: number, target: User): boolean {
  if (target.isBot) return true;
  switch (userSetting(target, 'email_address_visibility')) {
    case 1:
      return true;
    case 2:
      return role <= ROLE.MEMBER;
    case 3:
      return role <= ROLE.ADMINISTRATOR;
    case 5:
      return role <= ROLE.MODERATOR;
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
