-- Channels, their folders, subscriptions, default channels, per-user topic policies, and the messages stub
-- (extended, never recreated, by the messages migration).

CREATE TABLE channel_folders (
  id                   serial PRIMARY KEY,
  realm_id             integer NOT NULL REFERENCES realms(id),
  name                 text NOT NULL,
  description          text NOT NULL DEFAULT '',
  rendered_description text NOT NULL DEFAULT '',
  -- 0-indexed display order; lower first.
  "order"              integer NOT NULL DEFAULT 0,
  is_archived          boolean NOT NULL DEFAULT false,
  creator_id           integer REFERENCES users(id),
  date_created         timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX channel_folders_realm_name ON channel_folders (realm_id, lower(name));

CREATE TABLE channels (
  id                            serial PRIMARY KEY,
  realm_id                      integer NOT NULL REFERENCES realms(id),
  name                          text NOT NULL,
  description                   text NOT NULL DEFAULT '',
  rendered_description          text NOT NULL DEFAULT '',
  invite_only                   boolean NOT NULL DEFAULT false,
  is_web_public                 boolean NOT NULL DEFAULT false,
  history_public_to_subscribers boolean NOT NULL DEFAULT true,
  is_archived                   boolean NOT NULL DEFAULT false,
  -- null inherits the realm's message_retention_days; -1 keeps forever.
  message_retention_days        integer,
  topics_policy                 text NOT NULL DEFAULT 'inherit'
    CHECK (topics_policy IN ('inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only')),
  folder_id                     integer REFERENCES channel_folders(id),
  creator_id                    integer REFERENCES users(id),
  date_created                  timestamptz NOT NULL DEFAULT now(),
  -- Channel permission settings: name -> group-setting value (a group ID or {direct_members, direct_subgroups}).
  group_settings                jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX channels_realm_name ON channels (realm_id, lower(name));

-- One row per user and channel ever subscribed; unsubscribing clears `active` and keeps the personal settings.
CREATE TABLE subscriptions (
  user_id                  integer NOT NULL REFERENCES users(id),
  channel_id               integer NOT NULL REFERENCES channels(id),
  realm_id                 integer NOT NULL REFERENCES realms(id),
  active                   boolean NOT NULL DEFAULT true,
  color                    text NOT NULL,
  is_muted                 boolean NOT NULL DEFAULT false,
  pin_to_top               boolean NOT NULL DEFAULT false,
  -- null inherits the user's corresponding setting.
  desktop_notifications    boolean,
  audible_notifications    boolean,
  push_notifications       boolean,
  email_notifications      boolean,
  wildcard_mentions_notify boolean,
  date_subscribed          timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, channel_id)
);
CREATE INDEX subscriptions_channel ON subscriptions (channel_id) WHERE active;
CREATE INDEX subscriptions_realm ON subscriptions (realm_id);

CREATE TABLE default_channels (
  realm_id   integer NOT NULL REFERENCES realms(id),
  channel_id integer NOT NULL REFERENCES channels(id),
  PRIMARY KEY (realm_id, channel_id)
);

-- Visibility policy per user and topic (1 muted, 2 unmuted, 3 followed); no row means 0 (inherit).
CREATE TABLE user_topics (
  user_id           integer NOT NULL REFERENCES users(id),
  channel_id        integer NOT NULL REFERENCES channels(id),
  topic             text NOT NULL,
  visibility_policy smallint NOT NULL CHECK (visibility_policy IN (1, 2, 3)),
  last_updated      timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX user_topics_key ON user_topics (user_id, channel_id, lower(topic));
CREATE INDEX user_topics_channel ON user_topics (channel_id, lower(topic));

-- The messages stub: what channels need (topics, topic deletion, retention, first_message_id).
CREATE TABLE messages (
  id                bigserial PRIMARY KEY,
  realm_id          int NOT NULL,
  sender_id         int NOT NULL REFERENCES users(id),
  recipient_kind    text NOT NULL CHECK (recipient_kind IN ('stream', 'direct')),
  stream_id         int REFERENCES channels(id),
  topic             text NOT NULL DEFAULT '',
  direct_recipients int[],
  content           text NOT NULL,
  rendered_content  text NOT NULL,
  date_sent         timestamptz NOT NULL DEFAULT now(),
  last_edit_time    timestamptz,
  has_link          bool NOT NULL DEFAULT false,
  has_attachment    bool NOT NULL DEFAULT false,
  has_image         bool NOT NULL DEFAULT false
);
CREATE INDEX messages_stream_topic ON messages (stream_id, lower(topic), id);
-- A channel's oldest message (first_message_id) and retention, oldest first.
CREATE INDEX messages_stream_id ON messages (stream_id, id);

CREATE TABLE user_messages (
  user_id    int NOT NULL,
  message_id bigint NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  flags      int NOT NULL DEFAULT 0,
  PRIMARY KEY (user_id, message_id)
);
-- Deleting a message cascades here by message ID.
CREATE INDEX user_messages_message ON user_messages (message_id);
