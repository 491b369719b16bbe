-- Files: uploaded attachments, which messages link them (for download access), and custom emoji.

CREATE TABLE attachments (
  id           serial PRIMARY KEY,
  realm_id     integer NOT NULL REFERENCES realms(id),
  owner_id     integer NOT NULL REFERENCES users(id),
  -- "<realm_id>/<2 hex>/<random>/<sanitized name>": the storage key below files/ and the URL below /user_uploads/.
  path_id      text NOT NULL UNIQUE,
  -- The name as uploaded (the `filename` of the upload response and `name` in GET /attachments).
  name         text NOT NULL,
  content_type text NOT NULL,
  size         bigint NOT NULL,
  create_time  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX attachments_owner ON attachments (owner_id);
CREATE INDEX attachments_realm_time ON attachments (realm_id, create_time);

-- A row per message whose content links the attachment; whoever can read one of them may download it.
CREATE TABLE attachment_messages (
  attachment_id integer NOT NULL REFERENCES attachments(id) ON DELETE CASCADE,
  message_id    bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  PRIMARY KEY (attachment_id, message_id)
);
CREATE INDEX attachment_messages_message ON attachment_messages (message_id);

CREATE TABLE realm_emoji (
  id          serial PRIMARY KEY,
  realm_id    integer NOT NULL REFERENCES realms(id),
  name        text NOT NULL,
  -- The image's name below /user_avatars/<realm_id>/emoji/images/.
  file_name   text NOT NULL,
  author_id   integer REFERENCES users(id),
  deactivated boolean NOT NULL DEFAULT false
);
-- A deactivated emoji's name may be used again.
CREATE UNIQUE INDEX realm_emoji_active_name ON realm_emoji (realm_id, name) WHERE NOT deactivated;
