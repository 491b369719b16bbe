// What a snapshot section gets to work with.
import type { Services } from '../../http/services.js';
import type { RealmState } from '../../realm/state.js';
import type { User } from '../../model/realm.js';
import type { QueueRegistration } from '../registration.js';

export interface SnapshotContext {
  state: RealmState;
  /** null for a spectator. */
  user: User | null;
  registration: QueueRegistration;
  services: Services;
  presenceHistoryLimitDays: number;
  /** Types the client fetches (fetch_event_types, else event_types); null for all. Sections that depend on a
   *  combination (unread_msgs needs message and update_message_flags) look here. */
  fetchTypes: string[] | null;
}

export type Section = (ctx: SnapshotContext) => Record<string, unknown> | Promise<Record<string, unknown>>;
