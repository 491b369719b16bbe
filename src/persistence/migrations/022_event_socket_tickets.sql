-- Tickets a browser opens an event socket with (POST /events/socket/ticket). Kept here rather than in one process's
-- memory so that, in cluster mode, any process can take the upgrade, and a ticket is spent once on every process
-- (DELETE … RETURNING). Only the SHA-256 of a ticket is stored; rows past expires_at are deleted as tickets are issued.
CREATE TABLE event_socket_tickets (
  digest     bytea PRIMARY KEY,
  realm_id   integer NOT NULL REFERENCES realms(id) ON DELETE CASCADE,
  user_id    integer NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  queue_id   text NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX event_socket_tickets_expires_at ON event_socket_tickets (expires_at);
