// Tickets for opening an event socket from a browser, which cannot set an Authorization header on a WebSocket: an
// authenticated POST /events/socket/ticket issues one for one queue; the upgrade presents it as `ticket=` instead of
// HTTP Basic. A ticket is 256 random bits, good for one upgrade within TICKET_TTL_MS; the API key never enters a URL.
// Tickets live in PostgreSQL (by SHA-256 digest), not in the issuing process: in cluster mode the upgrade may reach any
// process, and the first try on any of them spends the ticket.
import { createHash, randomBytes } from 'node:crypto';
import type { Db } from '../persistence/db.js';

export const TICKET_TTL_MS = 30_000;

function digest(ticket: string): Buffer {
  return createHash('sha256').update(ticket).digest();
}

export class SocketTickets {
  constructor(private readonly db: Db) {}

  async issue(realmId: number, userId: number, queueId: string): Promise<string> {
    const ticket = randomBytes(32).toString('base64url');
    await this.db.socketTickets.add(digest(ticket), realmId, userId, queueId, TICKET_TTL_MS);
    return ticket;
  }

  /** The user a ticket was issued to, for this realm and queue; null when unknown, used, expired or for another queue.
   *  A ticket is spent by any attempt to use it. */
  async redeem(ticket: string, realmId: number, queueId: string): Promise<number | null> {
    const t = await this.db.socketTickets.take(digest(ticket));
    if (!t || t.realmId !== realmId || t.queueId !== queueId) return null;
    return t.userId;
  }
}
