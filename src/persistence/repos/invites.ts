// Reusable invitation links, and the sign-up confirmations made through them.
import type { IDatabase } from 'pg-promise';
import type { Role } from '../../model/realm.js';
import type { MultiuseInvite, NewInvite, SignupConfirmation } from '../../model/people.js';

function toConfirmation(r: Record<string, any>): SignupConfirmation {
  return {
    id: r.id,
    realmId: r.realm_id,
    key: r.confirmation_key,
    email: r.email,
    inviteId: r.invite_id,
    expiresAt: seconds(r.expires_at),
    used: r.used,
  };
}

export const seconds = (d: Date) => Math.floor(d.getTime() / 1000);

/** The columns reusable links and email invitations share (multiuse_invites, email_invites). */
export function inviteFields(r: Record<string, any>): Omit<MultiuseInvite, 'createdAt' | 'revoked'> {
  return {
    id: r.id as number,
    realmId: r.realm_id as number,
    key: r.link_key as string,
    referredBy: r.referred_by as number,
    invitedAs: r.invited_as as Role,
    channelIds: r.stream_ids as number[],
    groupIds: r.group_ids as number[],
    includeRealmDefaultSubscriptions: r.include_realm_default_subscriptions as boolean,
    welcomeMessageCustomText: r.welcome_message_custom_text as string | null,
    expiresAt: r.expires_at ? seconds(r.expires_at) : null,
  };
}

function toInvite(r: Record<string, any>): MultiuseInvite {
  return { ...inviteFields(r), createdAt: seconds(r.created_at), revoked: r.revoked };
}

export class InvitesRepository {
  constructor(private db: IDatabase<unknown>) {}

  async insert(i: NewInvite): Promise<MultiuseInvite> {
    const row = await this.db.one(
      `INSERT INTO multiuse_invites (realm_id, link_key, referred_by, invited_as, stream_ids, group_ids,
         include_realm_default_subscriptions, welcome_message_custom_text, expires_at)
       VALUES ($1, $2, $3, $4, $5::int[], $6::int[], $7, $8, CASE WHEN $9::bigint IS NULL THEN NULL ELSE to_timestamp($9::bigint) END)
       RETURNING *`,
      [i.realmId, i.key, i.referredBy, i.invitedAs, i.channelIds, i.groupIds, i.includeRealmDefaultSubscriptions,
        i.welcomeMessageCustomText, i.expiresAt],
    );
    return toInvite(row);
  }

  async byId(realmId: number, id: number): Promise<MultiuseInvite | null> {
    const row = await this.db.oneOrNone('SELECT * FROM multiuse_invites WHERE realm_id = $1 AND id = $2', [realmId, id]);
    return row && toInvite(row);
  }

  async byKey(realmId: number, key: string): Promise<MultiuseInvite | null> {
    const row = await this.db.oneOrNone('SELECT * FROM multiuse_invites WHERE realm_id = $1 AND link_key = $2', [
      realmId,
      key,
    ]);
    return row && toInvite(row);
  }

  /** Invitations neither revoked nor expired at `now` (seconds), optionally only one user's. */
  async live(realmId: number, now: number, referredBy?: number): Promise<MultiuseInvite[]> {
    const rows = await this.db.any(
      `SELECT * FROM multiuse_invites WHERE realm_id = $1 AND NOT revoked
         AND (expires_at IS NULL OR expires_at > to_timestamp($2))
         AND ($3::int IS NULL OR referred_by = $3) ORDER BY id`,
      [realmId, now, referredBy ?? null],
    );
    return rows.map(toInvite);
  }

  revoke(id: number): Promise<null> {
    return this.db.none('UPDATE multiuse_invites SET revoked = true WHERE id = $1', [id]);
  }

  /** Revokes every invitation these users made (they were deactivated); returns how many. */
  revokeByCreators(userIds: number[]): Promise<number> {
    return this.db.result('UPDATE multiuse_invites SET revoked = true WHERE referred_by = ANY($1::int[]) AND NOT revoked', [userIds], (r) => r.rowCount);
  }

  async insertConfirmation(c: Omit<SignupConfirmation, 'id' | 'used'>): Promise<SignupConfirmation> {
    const row = await this.db.one(
      `INSERT INTO signup_confirmations (realm_id, confirmation_key, email, invite_id, expires_at)
       VALUES ($1, $2, $3, $4, to_timestamp($5::bigint)) RETURNING *`,
      [c.realmId, c.key, c.email, c.inviteId, c.expiresAt],
    );
    return toConfirmation(row);
  }

  async confirmationByKey(realmId: number, key: string): Promise<SignupConfirmation | null> {
    const row = await this.db.oneOrNone('SELECT * FROM signup_confirmations WHERE realm_id = $1 AND confirmation_key = $2', [realmId, key]);
    return row && toConfirmation(row);
  }

  /** Marks a confirmation used; false when it already was (a second submission racing the first). */
  useConfirmation(id: number): Promise<boolean> {
    return this.db.result('UPDATE signup_confirmations SET used = true WHERE id = $1 AND NOT used', [id], (r) => r.rowCount === 1);
  }
}
