// What a snapshot section gets to work with: the request (realm state, user, registration) and the sources it
// names, no more (a section that reads the database says so in its type).
import type { Config } from '../../config.js';
import type { Db } from '../../persistence/db.js';
import type { UserPresence } from '../../realm/people/presence.js';
import type { RealmState } from '../../realm/state.js';
import type { User } from '../../model/realm.js';
import type { QueueRegistration } from '../registration.js';

/** What sections read besides the realm's state and the request. */
export interface SnapshotSources {
  db: Db;
  config: Config;
  /** The realm's presences and the presence clock (seconds). */
  presence: { all(): Promise<UserPresence[]>; now(): number };
}

export interface SnapshotRequest {
  state: RealmState;
  /** null for a spectator. */
  user: User | null;
  registration: QueueRegistration;
  presenceHistoryLimitDays: number;
  /** Types the client fetches (fetch_event_types, else event_types); null for all. Sections that depend on a
   *  combination (unread_msgs needs message and update_message_flags) look here. */
  fetchTypes: string[] | null;
  /**
   * The newest message the snapshot shows: the client's queue, created first, receives every later one as an event
   * (and the database may already hold some of those when the snapshot reads it).
   */
  messagesUpTo: number;
}

/** The request with the sources `K`. */
export type SnapshotContext<K extends keyof SnapshotSources = never> = SnapshotRequest & Pick<SnapshotSources, K>;

/** A section taking the sources `K` (none by default). */
export type Section<K extends keyof SnapshotSources = never> = (ctx: SnapshotContext<K>) => Record<string, unknown> | Promise<Record<string, unknown>>;
