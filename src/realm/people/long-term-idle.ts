// Long-term idle users: the reference's soft-deactivated users, whose avatar_url the server leaves out of
// realm_users for clients with the user_avatar_url_field_optional capability (they fetch /avatar/{id} instead).
import type { UserPresence } from './presence.js';
import type { User } from '../../model/realm.js';

/** The reference soft-deactivates users inactive this long (its soft_deactivate_users default). */
export const LONG_TERM_IDLE_DAYS = 28;

/**
 * IDs of users long-term idle at `now` (seconds): their last activity — the newer of their last presence
 * (connected or active) and the day they joined — is more than LONG_TERM_IDLE_DAYS ago.
 */
export function longTermIdleIds(users: Iterable<User>, presences: UserPresence[], now: number): Set<number> {
  const last = new Map<number, number>();
  for (const p of presences) last.set(p.userId, Math.max(p.lastActive, p.lastConnected));
  const cutoff = now - LONG_TERM_IDLE_DAYS * 86_400;
  const idle = new Set<number>();
  for (const u of users) {
    if (Math.max(u.dateJoined, last.get(u.id) ?? 0) < cutoff) idle.add(u.id);
  }
  return idle;
}
