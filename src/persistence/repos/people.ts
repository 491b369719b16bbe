// User statuses and push-device registrations: small per-user records of the people domain.
import type { IDatabase } from 'pg-promise';
import type { PushDevice, UserStatus } from '../../model/people.js';

export class PeopleRepository {
  constructor(private db: IDatabase<unknown>) {}

  async statusesForRealm(realmId: number): Promise<Map<number, UserStatus>> {
    const rows = await this.db.any(
      `SELECT s.* FROM user_statuses s JOIN users u ON u.id = s.user_id WHERE u.realm_id = $1`,
      [realmId],
    );
    return new Map(
      rows.map((r) => [
        r.user_id as number,
        { statusText: r.status_text, emojiName: r.emoji_name, emojiCode: r.emoji_code, reactionType: r.reaction_type },
      ]),
    );
  }

  setStatus(userId: number, s: UserStatus): Promise<null> {
    return this.db.none(
      `INSERT INTO user_statuses (user_id, status_text, emoji_name, emoji_code, reaction_type, updated_at)
       VALUES ($1, $2, $3, $4, $5, now())
       ON CONFLICT (user_id) DO UPDATE SET status_text = $2, emoji_name = $3, emoji_code = $4, reaction_type = $5,
         updated_at = now()`,
      [userId, s.statusText, s.emojiName, s.emojiCode, s.reactionType],
    );
  }

  /** Registers a device, replacing an earlier registration with the same push_account_id. */
  upsertPushDevice(d: PushDevice): Promise<null> {
    return this.db.none(
      `INSERT INTO push_devices (user_id, push_account_id, token_kind, push_public_key, bouncer_public_key,
                                 encrypted_push_registration)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (user_id, push_account_id) DO UPDATE SET token_kind = $3, push_public_key = $4,
         bouncer_public_key = $5, encrypted_push_registration = $6, registered_at = now()`,
      [d.userId, d.pushAccountId, d.tokenKind, d.pushPublicKey, d.bouncerPublicKey, d.encryptedPushRegistration],
    );
  }

  pushDevices(userId: number): Promise<PushDevice[]> {
    return this.db.map('SELECT * FROM push_devices WHERE user_id = $1 ORDER BY id', [userId], (r) => ({
      userId: r.user_id,
      pushAccountId: Number(r.push_account_id),
      tokenKind: r.token_kind,
      pushPublicKey: r.push_public_key,
      bouncerPublicKey: r.bouncer_public_key,
      encryptedPushRegistration: r.encrypted_push_registration,
    }));
  }

  removePushDevices(userIds: number[]): Promise<null> {
    return this.db.none('DELETE FROM push_devices WHERE user_id = ANY($1::int[])', [userIds]);
  }
}
