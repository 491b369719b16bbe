-- People and the organization: statuses, presence, reusable invitations, push devices and the mail outbox.

CREATE TABLE user_statuses (
  user_id       integer PRIMARY KEY REFERENCES users(id),
  status_text   text NOT NULL DEFAULT '',
  emoji_name    text NOT NULL DEFAULT '',
  emoji_code    text NOT NULL DEFAULT '',
  reaction_type text NOT NULL DEFAULT 'unicode_emoji',
  updated_at    timestamptz NOT NULL DEFAULT now()
);

-- Written in batches by the presence flush, never once per ping.
CREATE TABLE user_presence (
  user_id             integer PRIMARY KEY REFERENCES users(id),
  realm_id            integer NOT NULL REFERENCES realms(id),
  last_connected_time bigint NOT NULL,
  last_active_time    bigint NOT NULL,
  last_update_id      bigint NOT NULL
);
CREATE INDEX user_presence_realm ON user_presence (realm_id, last_update_id);

CREATE TABLE multiuse_invites (
  id                                  serial PRIMARY KEY,
  realm_id                            integer NOT NULL REFERENCES realms(id),
  link_key                            text NOT NULL UNIQUE,
  referred_by                         integer NOT NULL REFERENCES users(id),
  invited_as                          smallint NOT NULL CHECK (invited_as IN (100, 200, 300, 400, 600)),
  stream_ids                          integer[] NOT NULL DEFAULT '{}',
  group_ids                           integer[] NOT NULL DEFAULT '{}',
  include_realm_default_subscriptions boolean NOT NULL DEFAULT false,
  welcome_message_custom_text         text,
  created_at                          timestamptz NOT NULL DEFAULT now(),
  -- null: never expires.
  expires_at                          timestamptz,
  revoked                             boolean NOT NULL DEFAULT false
);
CREATE INDEX multiuse_invites_realm ON multiuse_invites (realm_id);

CREATE TABLE push_devices (
  id                          serial PRIMARY KEY,
  user_id                     integer NOT NULL REFERENCES users(id),
  push_account_id             bigint NOT NULL,
  token_kind                  text NOT NULL CHECK (token_kind IN ('fcm', 'apns')),
  push_public_key             text NOT NULL,
  bouncer_public_key          text NOT NULL,
  encrypted_push_registration text NOT NULL,
  registered_at               timestamptz NOT NULL DEFAULT now(),
  UNIQUE (user_id, push_account_id)
);

-- Outgoing email: kept until a sender delivers it (and after, with sent_at set).
CREATE TABLE email_outbox (
  id         bigserial PRIMARY KEY,
  realm_id   integer REFERENCES realms(id),
  to_address text NOT NULL,
  subject    text NOT NULL,
  body       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  sent_at    timestamptz,
  attempts   integer NOT NULL DEFAULT 0,
  last_error text
);
CREATE INDEX email_outbox_unsent ON email_outbox (id) WHERE sent_at IS NULL;
