// Presence records in the modern and legacy formats, who is visible, and the realm commands presence uses:
// an announcement (no write; publishes the presence event) and the batched flush (one statement per batch).
import type { PresenceEvent } from '../../bus/events.js';
import { ACTIVE_OFFSET_S, type PresenceTimes } from './presence-times.js';
import type { PresenceRow } from '../../model/people.js';
import type { CommandDef } from '../commands.js';
import { realmSetting } from '../realm-settings.js';
import type { RealmState } from '../state.js';
import type { User } from '../../model/realm.js';
import { audienceOf } from '../access/users.js';
import { userSetting } from './user-settings.js';

export const DEFAULT_HISTORY_DAYS = 14;

export interface UserPresence extends PresenceTimes {
  userId: number;
}

/** Whether a user's presence is shown at all: active humans with presence_enabled, in a realm with presence on. */
export function presenceVisible(state: RealmState, user: User | undefined): user is User {
  if (!user || !user.isActive || user.isBot) return false;
  if (realmSetting(state, 'presence_disabled')) return false;
  return userSetting(user, 'presence_enabled') !== false;
}

export function modernPresence(dateJoined: number, p: Pick<PresenceTimes, 'lastActive' | 'lastConnected'>): { active_timestamp: number; idle_timestamp: number } {
  return {
    active_timestamp: p.lastActive || dateJoined,
    idle_timestamp: p.lastConnected || dateJoined,
  };
}

/** `{website, aggregated}` with identical data (feature level 178). */
export function legacyPresence(dateJoined: number, p: Pick<PresenceTimes, 'lastActive' | 'lastConnected'>): Record<string, Record<string, unknown>> {
  const active = p.lastActive !== 0 && p.lastActive + ACTIVE_OFFSET_S >= p.lastConnected;
  const status = active ? 'active' : 'idle';
  const timestamp = active ? p.lastActive : p.lastConnected || dateJoined;
  return {
    website: { client: 'website', status, timestamp, pushable: false },
    aggregated: { client: 'website', status, timestamp },
  };
}

export interface PresenceQuery {
  /** The users a restricted viewer can see (can_access_all_users_group); null or absent: everyone. */
  accessible?: Set<number> | null;
  /** The client's last_update_id; undefined when it sent none. */
  lastUpdateId?: number;
  historyDays?: number;
  /** Modern format keyed by user ID; otherwise legacy keyed by email. */
  modern: boolean;
  /** Seconds. */
  now: number;
}

/** The presences a client receives, and the presence_last_update_id to answer with. */
export function presenceResponse(
  state: RealmState,
  all: Iterable<UserPresence>,
  q: PresenceQuery,
): { presences: Record<string, unknown>; lastUpdateId: number } {
  const fetched = q.lastUpdateId ?? -1;
  const cutoff = fetched > 0 ? -Infinity : q.now - (q.historyDays ?? DEFAULT_HISTORY_DAYS) * 86400;
  const presences: Record<string, unknown> = {};
  let max = fetched;
  for (const p of all) {
    if (p.lastUpdateId <= fetched || p.lastConnected < cutoff) continue;
    const user = state.usersById.get(p.userId);
    if (!presenceVisible(state, user) || (q.accessible && !q.accessible.has(user.id))) continue;
    if (q.modern) presences[String(user.id)] = modernPresence(user.dateJoined, p);
    else presences[state.apiEmailOf(user)] = legacyPresence(user.dateJoined, p);
    max = Math.max(max, p.lastUpdateId);
  }
  return { presences, lastUpdateId: max };
}

type Announcement = UserPresence & {
  serverTimestamp: number;
  /** Most users the event goes to: none when more may see the user (see PRESENCE_EVENTS_USER_LIMIT); no limit when absent. */
  userLimit?: number;
};

/**
 * Publishes a presence event for a user who came online or became active (no database write), unless more users than
 * the limit would receive it (the reference skips these events in larger realms).
 */
const announce: CommandDef<Announcement, Announcement | null, Announcement | null> = {
  batchable: true,
  answeredAtOnce: true,
  check: (state, input) => (presenceVisible(state, state.usersById.get(input.userId)) ? input : null),
  events(state, presence) {
    if (!presence) return [];
    const user = state.usersById.get(presence.userId)!;
    const users = audienceOf(state, user);
    if (presence.userLimit !== undefined && users.length > presence.userLimit) return [];
    const { lastActive, lastConnected, serverTimestamp } = presence;
    const event: PresenceEvent = { kind: 'presence', form: 'slim', userId: user.id, email: state.apiEmailOf(user), lastActive, lastConnected, dateJoined: user.dateJoined, serverTimestamp };
    // Clients without simplified_presence_events get the legacy form.
    return [{ event, users, legacy: { simplified_presence_events: [{ ...event, form: 'legacy' as const }] } }];
  },
};

/** Writes every presence row changed since the last flush in one statement. */
const flush: CommandDef<PresenceRow[], PresenceRow[], number> = {
  batchable: true,
  check: (_state, rows) => rows,
  async write(t, rows) {
    await t.presence.upsertMany(rows);
    return rows.length;
  },
};

export const presenceCommands = { 'presence.announce': announce, 'presence.flush': flush };
