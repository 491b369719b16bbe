-- What real clients call beyond the core: custom profile fields and users' values, muted users, code playgrounds,
-- bot storage, legacy push-device tokens, and reminders (scheduled messages delivered to their sender).

CREATE TABLE custom_profile_fields (
  id                         serial PRIMARY KEY,
  realm_id                   int NOT NULL REFERENCES realms(id),
  name                       text NOT NULL,
  hint                       text NOT NULL DEFAULT '',
  -- 1 short text, 2 long text, 3 list of options, 4 date, 5 link, 6 users, 7 external account, 8 pronouns.
  field_type                 smallint NOT NULL CHECK (field_type BETWEEN 1 AND 8),
  -- JSON text of the options (3) or the external account (7); '' otherwise.
  field_data                 text NOT NULL DEFAULT '',
  "order"                    int NOT NULL DEFAULT 0,
  display_in_profile_summary boolean NOT NULL DEFAULT false,
  required                   boolean NOT NULL DEFAULT false,
  editable_by_user           boolean NOT NULL DEFAULT true,
  UNIQUE (realm_id, name)
);

CREATE TABLE custom_profile_field_values (
  user_id        int NOT NULL REFERENCES users(id),
  field_id       int NOT NULL REFERENCES custom_profile_fields(id) ON DELETE CASCADE,
  value          text NOT NULL,
  -- HTML of text values (short and long text); NULL for the other types.
  rendered_value text,
  PRIMARY KEY (user_id, field_id)
);
CREATE INDEX custom_profile_field_values_field ON custom_profile_field_values (field_id);

CREATE TABLE muted_users (
  user_id       int NOT NULL REFERENCES users(id),
  muted_user_id int NOT NULL REFERENCES users(id),
  date_muted    timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, muted_user_id)
);
CREATE INDEX muted_users_muted ON muted_users (muted_user_id);

CREATE TABLE realm_playgrounds (
  id                serial PRIMARY KEY,
  realm_id          int NOT NULL REFERENCES realms(id),
  name              text NOT NULL,
  pygments_language text NOT NULL,
  url_template      text NOT NULL,
  UNIQUE (realm_id, pygments_language, name)
);

CREATE TABLE bot_storage (
  user_id int NOT NULL REFERENCES users(id),
  key     text NOT NULL,
  value   text NOT NULL,
  PRIMARY KEY (user_id, key)
);

-- Tokens of the legacy (not end-to-end encrypted) push registration endpoints.
CREATE TABLE push_device_tokens (
  id         serial PRIMARY KEY,
  user_id    int NOT NULL REFERENCES users(id),
  kind       text NOT NULL CHECK (kind IN ('apns', 'fcm')),
  token      text NOT NULL,
  ios_app_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, kind, token)
);

-- Reminders are scheduled messages to their sender, sent by the notification bot.
ALTER TABLE scheduled_messages
  ADD COLUMN delivery_type text NOT NULL DEFAULT 'send' CHECK (delivery_type IN ('send', 'remind')),
  ADD COLUMN reminder_target_message_id bigint;
