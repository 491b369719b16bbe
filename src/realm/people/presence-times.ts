// A user's presence timestamps and the thresholds the reference reads them with (the user-session actor keeps
// them; the domain formats them).
/** A client is offline after this long without a ping (the register value server_presence_offline_threshold_seconds). */
export const OFFLINE_THRESHOLD_S = 140;
/** Timestamps move forward at most this often unless the user becomes active or comes online. */
export const UPDATE_MIN_FREQ_S = 55;
/** The legacy format calls a user active when their last activity is this close to their last connection. */
export const ACTIVE_OFFSET_S = 70;

export interface PresenceTimes {
  /** Seconds; 0 when never. */
  lastConnected: number;
  lastActive: number;
  lastUpdateId: number;
}
