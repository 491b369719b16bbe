-- A user's drafts, saved snippets and navigation views, and scheduled messages with their delivery state.

CREATE TABLE drafts (
  id             bigserial PRIMARY KEY,
  realm_id       int NOT NULL REFERENCES realms(id),
  user_id        int NOT NULL REFERENCES users(id),
  -- '' (unaddressed), 'stream' or 'private'.
  type           text NOT NULL CHECK (type IN ('', 'stream', 'private')),
  -- [channel ID] for channel drafts, user IDs for direct ones, [] when unaddressed.
  recipients     int[] NOT NULL DEFAULT '{}',
  topic          text NOT NULL DEFAULT '',
  content        text NOT NULL,
  -- Seconds (with fraction) of the last edit, as the client gave or the server filled in.
  last_edit_time double precision NOT NULL
);
CREATE INDEX drafts_user ON drafts (user_id, last_edit_time DESC);

CREATE TABLE saved_snippets (
  id           bigserial PRIMARY KEY,
  realm_id     int NOT NULL REFERENCES realms(id),
  user_id      int NOT NULL REFERENCES users(id),
  title        text NOT NULL,
  content      text NOT NULL,
  date_created timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX saved_snippets_user ON saved_snippets (user_id, id);

CREATE TABLE navigation_views (
  id        bigserial PRIMARY KEY,
  realm_id  int NOT NULL REFERENCES realms(id),
  user_id   int NOT NULL REFERENCES users(id),
  fragment  text NOT NULL,
  is_pinned boolean NOT NULL,
  -- NULL for built-in views.
  name      text,
  UNIQUE (user_id, fragment)
);
CREATE UNIQUE INDEX navigation_views_user_name ON navigation_views (user_id, name) WHERE name IS NOT NULL;

CREATE TABLE scheduled_messages (
  id                   bigserial PRIMARY KEY,
  realm_id             int NOT NULL REFERENCES realms(id),
  sender_id            int NOT NULL REFERENCES users(id),
  -- 'stream' or 'private'.
  type                 text NOT NULL CHECK (type IN ('stream', 'private')),
  stream_id            int,
  -- Direct recipients' user IDs (sorted), NULL for channel messages.
  user_ids             int[],
  topic                text NOT NULL DEFAULT '',
  content              text NOT NULL,
  rendered_content     text NOT NULL,
  scheduled_at         bigint NOT NULL,
  -- NULL: decide at sending time by the server's rule.
  read_by_sender       boolean,
  sending_client       text NOT NULL DEFAULT '',
  -- Bumped by every edit: a delivery that read an older version does not claim the row.
  version              int NOT NULL DEFAULT 1,
  delivered            boolean NOT NULL DEFAULT false,
  delivered_message_id bigint,
  failed               boolean NOT NULL DEFAULT false,
  failure_message      text,
  date_created         timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX scheduled_messages_sender ON scheduled_messages (sender_id, scheduled_at) WHERE NOT delivered;
CREATE INDEX scheduled_messages_pending ON scheduled_messages (scheduled_at) WHERE NOT delivered AND NOT failed;
