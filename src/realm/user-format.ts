// User records as the API returns them.
import { createHash } from 'node:crypto';
import { ROLE, type User } from './types.js';

export function gravatarUrl(email: string): string {
  const hash = createHash('md5').update(email.trim().toLowerCase()).digest('hex');
  return `https://secure.gravatar.com/avatar/${hash}?d=identicon&version=1`;
}

export interface UserFormatOptions {
  /** With client_gravatar, clients compute gravatar URLs themselves and avatar_url is null. */
  clientGravatar?: boolean;
  /** Whether the viewer may see the account's real email address. */
  includeDeliveryEmail?: boolean;
}

export function formatUser(u: User, opts: UserFormatOptions = {}): Record<string, unknown> {
  const out: Record<string, unknown> = {
    user_id: u.id,
    email: u.email,
    full_name: u.fullName,
    date_joined: new Date(u.dateJoined * 1000).toISOString(),
    is_active: u.isActive,
    is_owner: u.role === ROLE.OWNER,
    is_admin: u.role === ROLE.OWNER || u.role === ROLE.ADMINISTRATOR,
    is_guest: u.role === ROLE.GUEST,
    is_bot: u.isBot,
    role: u.role,
    timezone: u.timezone,
    avatar_url: opts.clientGravatar ? null : gravatarUrl(u.email),
    avatar_version: 1,
    profile_data: {},
  };
  if (opts.includeDeliveryEmail) out.delivery_email = u.email;
  if (u.isBot) {
    out.bot_type = u.botType;
    out.bot_owner_id = u.botOwnerId;
  }
  return out;
}
