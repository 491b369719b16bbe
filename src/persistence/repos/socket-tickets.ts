// Event-socket tickets (src/http/events-socket-tickets.ts): stored by digest, spent by the first try on any process.
import type { IDatabase } from 'pg-promise';

export class SocketTicketsRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Stores a ticket good for `ttlMs` (the database's clock: every process agrees); drops the expired ones. */
  add(digest: Buffer, realmId: number, userId: number, queueId: string, ttlMs: number): Promise<null> {
    return this.db.none(
      `WITH expired AS (DELETE FROM event_socket_tickets WHERE expires_at <= now())
       INSERT INTO event_socket_tickets (digest, realm_id, user_id, queue_id, expires_at)
       VALUES ($1, $2, $3, $4, now() + $5 * interval '1 millisecond')`,
      [digest, realmId, userId, queueId, ttlMs],
    );
  }

  /** Deletes the ticket and returns what it was for while it was still valid; null when unknown, spent or expired. */
  take(digest: Buffer): Promise<{ realmId: number; userId: number; queueId: string } | null> {
    return this.db.oneOrNone(
      `DELETE FROM event_socket_tickets WHERE digest = $1
       RETURNING realm_id, user_id, queue_id, expires_at > now() AS live`,
      [digest],
      (r: { realm_id: number; user_id: number; queue_id: string; live: boolean } | null) =>
        r?.live ? { realmId: r.realm_id, userId: r.user_id, queueId: r.queue_id } : null,
    );
  }
}
