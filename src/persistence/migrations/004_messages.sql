-- Messages: extends the messages and user_messages tables 002 created with the search vector and recipients,
-- and adds reactions, alert words and linkifiers.

-- Direct conversations by their sorted, distinct participants (sender included): the source of a direct
-- message's recipient_id (2 * id + 1; a channel message's is 2 * channel ID).
CREATE TABLE direct_conversations (
  id         serial PRIMARY KEY,
  realm_id   int NOT NULL,
  member_ids int[] NOT NULL,
  UNIQUE (realm_id, member_ids)
);

ALTER TABLE messages
  ADD COLUMN IF NOT EXISTS recipient_id int NOT NULL DEFAULT 0,
  ADD COLUMN IF NOT EXISTS sending_client text NOT NULL DEFAULT 'API',
  ADD COLUMN IF NOT EXISTS is_me_message bool NOT NULL DEFAULT false,
  ADD COLUMN IF NOT EXISTS last_moved_time timestamptz,
  -- Newest first, as the API's edit_history; NULL when never edited or moved.
  ADD COLUMN IF NOT EXISTS edit_history jsonb,
  -- Must stay exactly searchVectorSql('topic', 'rendered_content') (src/narrow/search.ts).
  ADD COLUMN IF NOT EXISTS search_tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', regexp_replace((topic) || ' ' || regexp_replace((rendered_content), '<[^>]*>|&#?[A-Za-z0-9]+;', ' ', 'g'), '[\x01-\x2F\x3A-\x40\x5B-\x60\x7B-\x7F]+', ' ', 'g'))) STORED;

-- messages_stream_id, messages_stream_topic and user_messages_message are 002's.
CREATE INDEX IF NOT EXISTS messages_realm_id ON messages (realm_id, id);
CREATE INDEX IF NOT EXISTS messages_search ON messages USING gin (search_tsv);

-- flags bits: read 1, starred 2, mentioned 8|16|32, is_private 256 (internal).
CREATE INDEX IF NOT EXISTS user_messages_unread ON user_messages (user_id, message_id) WHERE (flags & 1) = 0;
CREATE INDEX IF NOT EXISTS user_messages_starred ON user_messages (user_id, message_id) WHERE (flags & 2) <> 0;
CREATE INDEX IF NOT EXISTS user_messages_private ON user_messages (user_id, message_id) WHERE (flags & 256) <> 0;

CREATE TABLE reactions (
  id            bigserial PRIMARY KEY,
  message_id    bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  user_id       int NOT NULL REFERENCES users(id),
  emoji_name    text NOT NULL,
  emoji_code    text NOT NULL,
  reaction_type text NOT NULL,
  UNIQUE (message_id, user_id, reaction_type, emoji_code)
);

CREATE TABLE alert_words (
  id       serial PRIMARY KEY,
  realm_id int NOT NULL,
  user_id  int NOT NULL REFERENCES users(id),
  word     text NOT NULL
);
CREATE UNIQUE INDEX alert_words_user_word ON alert_words (user_id, lower(word));

CREATE TABLE linkifiers (
  id           serial PRIMARY KEY,
  realm_id     int NOT NULL REFERENCES realms(id),
  pattern      text NOT NULL,
  url_template text NOT NULL,
  "order"      int NOT NULL DEFAULT 0,
  UNIQUE (realm_id, pattern)
);
