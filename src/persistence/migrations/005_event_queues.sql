-- Live event queues written at graceful shutdown and restored at start-up (msgpackr dumps), so clients keep
-- their queue_id across a restart.
CREATE TABLE event_queue_dumps (
  queue_id  text PRIMARY KEY,
  realm_id  integer NOT NULL,
  user_id   integer NOT NULL,
  dump      bytea NOT NULL,
  saved_at  timestamptz NOT NULL DEFAULT now()
);
