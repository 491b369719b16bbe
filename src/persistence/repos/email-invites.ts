// Email invitations: one address each, mailed a link; used once, revocable, resendable.
import type { IDatabase } from 'pg-promise';
import { inviteFields, seconds } from './invites.js';
import type { EmailInvite, EmailInviteStatus, NewEmailInvite } from '../../model/people.js';

function toInvite(r: Record<string, any>): EmailInvite {
  return {
    ...inviteFields(r),
    email: r.email,
    notifyReferrerOnJoin: r.notify_referrer_on_join,
    invitedAt: seconds(r.invited_at),
    status: r.status,
  };
}

export class EmailInvitesRepository {
  constructor(private db: IDatabase<unknown>) {}

  async insert(i: NewEmailInvite): Promise<EmailInvite> {
    const row = await this.db.one(
      `INSERT INTO email_invites (realm_id, email, link_key, referred_by, invited_as, stream_ids, group_ids,
         include_realm_default_subscriptions, notify_referrer_on_join, welcome_message_custom_text, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6::int[], $7::int[], $8, $9, $10,
         CASE WHEN $11::bigint IS NULL THEN NULL ELSE to_timestamp($11::bigint) END)
       RETURNING *`,
      [i.realmId, i.email, i.key, i.referredBy, i.invitedAs, i.channelIds, i.groupIds, i.includeRealmDefaultSubscriptions,
        i.notifyReferrerOnJoin, i.welcomeMessageCustomText, i.expiresAt],
    );
    return toInvite(row);
  }

  async byId(realmId: number, id: number): Promise<EmailInvite | null> {
    const row = await this.db.oneOrNone('SELECT * FROM email_invites WHERE realm_id = $1 AND id = $2', [realmId, id]);
    return row && toInvite(row);
  }

  async byKey(realmId: number, key: string): Promise<EmailInvite | null> {
    const row = await this.db.oneOrNone('SELECT * FROM email_invites WHERE realm_id = $1 AND link_key = $2', [realmId, key]);
    return row && toInvite(row);
  }

  /** Active invitations not expired at `now` (seconds), optionally only one user's. */
  async live(realmId: number, now: number, referredBy?: number): Promise<EmailInvite[]> {
    const rows = await this.db.any(
      `SELECT * FROM email_invites WHERE realm_id = $1 AND status = 'active'
         AND (expires_at IS NULL OR expires_at > to_timestamp($2))
         AND ($3::int IS NULL OR referred_by = $3) ORDER BY id`,
      [realmId, now, referredBy ?? null],
    );
    return rows.map(toInvite);
  }

  /** Invitation mails (first or resent) since `since` (seconds): what the daily sending limit counts. */
  sentSince(realmId: number, since: number): Promise<number> {
    return this.db.one(
      'SELECT count(*)::int AS n FROM invitation_sends WHERE realm_id = $1 AND sent_at > to_timestamp($2)',
      [realmId, since],
      (r) => r.n as number,
    );
  }

  /** Counts `n` invitation mails sent now, dropping the realm's records older than `keepSince` (seconds). */
  async recordSends(realmId: number, n: number, keepSince: number): Promise<void> {
    await this.db.none('DELETE FROM invitation_sends WHERE realm_id = $1 AND sent_at < to_timestamp($2)', [realmId, keepSince]);
    await this.db.none('INSERT INTO invitation_sends (realm_id) SELECT $1 FROM generate_series(1, $2)', [realmId, n]);
  }

  setStatus(id: number, status: EmailInviteStatus): Promise<null> {
    return this.db.none('UPDATE email_invites SET status = $2 WHERE id = $1', [id, status]);
  }

  /** Marks the invitation mailed again now; returns the new time (seconds). */
  resent(id: number): Promise<number> {
    return this.db.one('UPDATE email_invites SET invited_at = now() WHERE id = $1 RETURNING invited_at', [id], (r) => seconds(r.invited_at));
  }

  /** On sign-up: the other active invitations of the same address in the realm are revoked, as the reference does. */
  revokeOthersFor(realmId: number, email: string, exceptId: number): Promise<null> {
    return this.db.none(
      `UPDATE email_invites SET status = 'revoked' WHERE realm_id = $1 AND lower(email) = lower($2) AND id <> $3 AND status = 'active'`,
      [realmId, email, exceptId],
    );
  }

  /** A deactivated user's active invitations are revoked; returns how many. */
  revokeByReferrer(userIds: number[]): Promise<number> {
    return this.db.result(
      `UPDATE email_invites SET status = 'revoked' WHERE referred_by = ANY($1::int[]) AND status = 'active'`,
      [userIds],
      (r) => r.rowCount,
    );
  }
}
