// Tickets for opening an event socket from a browser, which cannot set an Authorization header on a WebSocket: an
// authenticated POST /events/socket/ticket issues one for one queue; the upgrade presents it as `ticket=` instead of
// HTTP Basic. A ticket is 256 random bits, good for one upgrade within TICKET_TTL_MS; the API key never enters a URL.
import { randomBytes } from 'node:crypto';

export const TICKET_TTL_MS = 30_000;
/** Tickets outstanding at once; past it the oldest are dropped (every issue is by an authenticated user). */
export const MAX_TICKETS = 100_000;

interface Ticket {
  realmId: number;
  userId: number;
  queueId: string;
  expires: number;
}

export class SocketTickets {
  /** Insertion order is expiry order (one TTL for all): the oldest are first. */
  private readonly tickets = new Map<string, Ticket>();

  constructor(private readonly now: () => number = Date.now) {}

  get size(): number {
    return this.tickets.size;
  }

  issue(realmId: number, userId: number, queueId: string): string {
    this.dropExpired();
    if (this.tickets.size >= MAX_TICKETS) this.tickets.delete(this.tickets.keys().next().value!);
    const ticket = randomBytes(32).toString('base64url');
    this.tickets.set(ticket, { realmId, userId, queueId, expires: this.now() + TICKET_TTL_MS });
    return ticket;
  }

  /** The user a ticket was issued to, for this realm and queue; null when unknown, used, expired or for another queue.
   *  A ticket is spent by any attempt to use it. */
  redeem(ticket: string, realmId: number, queueId: string): number | null {
    const t = this.tickets.get(ticket);
    if (!t) return null;
    this.tickets.delete(ticket);
    if (t.expires <= this.now() || t.realmId !== realmId || t.queueId !== queueId) return null;
    return t.userId;
  }

  private dropExpired(): void {
    const now = this.now();
    for (const [key, t] of this.tickets) {
      if (t.expires > now) break;
      this.tickets.delete(key);
    }
  }
}
