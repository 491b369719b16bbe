// The outgoing-email outbox: messages are queued here and marked when a sender delivered them.
import type { IDatabase } from 'pg-promise';
import type { OutgoingMail } from '../../model/mail.js';

export class OutboxRepository {
  constructor(private db: IDatabase<unknown>) {}

  enqueue(m: { realmId: number | null; to: string; subject: string; body: string }): Promise<number> {
    return this.db.one(
      'INSERT INTO email_outbox (realm_id, to_address, subject, body) VALUES ($1, $2, $3, $4) RETURNING id',
      [m.realmId, m.to, m.subject, m.body],
      (r) => Number(r.id),
    );
  }

  /** Unsent messages after `afterId`, oldest first, that have not yet failed `maxAttempts` times. */
  unsent(limit: number, maxAttempts: number, afterId = 0): Promise<OutgoingMail[]> {
    return this.db.map(
      `SELECT * FROM email_outbox WHERE sent_at IS NULL AND attempts < $2 AND id > $3 ORDER BY id LIMIT $1`,
      [limit, maxAttempts, afterId],
      (r) => ({ id: Number(r.id), realmId: r.realm_id, to: r.to_address, subject: r.subject, body: r.body, attempts: r.attempts }),
    );
  }

  all(): Promise<(OutgoingMail & { sent: boolean; lastError: string | null })[]> {
    return this.db.map('SELECT * FROM email_outbox ORDER BY id', [], (r) => ({
      id: Number(r.id),
      realmId: r.realm_id,
      to: r.to_address,
      subject: r.subject,
      body: r.body,
      attempts: r.attempts,
      sent: r.sent_at !== null,
      lastError: r.last_error,
    }));
  }

  markSent(id: number): Promise<null> {
    return this.db.none('UPDATE email_outbox SET sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = $1', [id]);
  }

  markFailed(id: number, error: string): Promise<null> {
    return this.db.none('UPDATE email_outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1', [id, error]);
  }
}
