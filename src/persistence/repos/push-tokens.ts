// Push-device tokens of the legacy registration endpoints (APNs device tokens, FCM registration IDs).
import type { IDatabase } from 'pg-promise';
import type { PushTokenKind } from '../../model/people.js';

export class PushTokensRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Registers a token for the user (again: the app ID is updated). */
  add(userId: number, kind: PushTokenKind, token: string, iosAppId: string | null): Promise<null> {
    return this.db.none(
      `INSERT INTO push_device_tokens (user_id, kind, token, ios_app_id) VALUES ($1, $2, $3, $4)
       ON CONFLICT (user_id, kind, token) DO UPDATE SET ios_app_id = $4`,
      [userId, kind, token, iosAppId],
    );
  }

  /** Removes a token of the user; false when the user has no such token. */
  async remove(userId: number, kind: PushTokenKind, token: string): Promise<boolean> {
    return (await this.db.result('DELETE FROM push_device_tokens WHERE user_id = $1 AND kind = $2 AND token = $3', [userId, kind, token])).rowCount > 0;
  }

  /** Deactivated users' tokens go (the reference clears them on deactivation). */
  removeForUsers(userIds: number[]): Promise<null> {
    return this.db.none('DELETE FROM push_device_tokens WHERE user_id = ANY($1::int[])', [userIds]);
  }

  forUser(userId: number): Promise<{ kind: PushTokenKind; token: string; iosAppId: string | null }[]> {
    return this.db.map('SELECT kind, token, ios_app_id FROM push_device_tokens WHERE user_id = $1 ORDER BY id', [userId], (r) => ({
      kind: r.kind,
      token: r.token,
      iosAppId: r.ios_app_id,
    }));
  }
}
