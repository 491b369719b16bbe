// The records of outgoing mail waiting in the outbox (as the repository returns them).

export interface OutgoingMail {
  id: number;
  realmId: number | null;
  to: string;
  subject: string;
  body: string;
  attempts: number;
}
