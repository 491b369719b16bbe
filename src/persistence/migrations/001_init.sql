-- Realms, users, system and user groups, and the change log the admin CLI writes to.

CREATE TABLE realms (
  id                     serial PRIMARY KEY,
  string_id              text NOT NULL UNIQUE,
  name                   text NOT NULL,
  description            text NOT NULL DEFAULT '',
  deactivated            boolean NOT NULL DEFAULT false,
  date_created           timestamptz NOT NULL DEFAULT now(),
  -- Realm settings that differ from the defaults in src/realm/realm-settings.ts.
  settings               jsonb NOT NULL DEFAULT '{}',
  -- Permission settings: name -> group-setting value (a group ID or {direct_members, direct_subgroups}).
  group_settings         jsonb NOT NULL DEFAULT '{}',
  -- Defaults of personal settings for users who join later (PATCH /realm/user_settings_defaults).
  user_settings_defaults jsonb NOT NULL DEFAULT '{}'
);

CREATE TABLE users (
  id               serial PRIMARY KEY,
  realm_id         integer NOT NULL REFERENCES realms(id),
  email            text NOT NULL,
  full_name        text NOT NULL,
  role             smallint NOT NULL CHECK (role IN (100, 200, 300, 400, 600)),
  is_bot           boolean NOT NULL DEFAULT false,
  bot_type         smallint,
  bot_owner_id     integer REFERENCES users(id),
  is_active        boolean NOT NULL DEFAULT true,
  api_key          text NOT NULL,
  password_hash    text,
  can_create_users boolean NOT NULL DEFAULT false,
  date_joined      timestamptz NOT NULL DEFAULT now(),
  timezone         text NOT NULL DEFAULT '',
  -- Personal settings that differ from the realm defaults at creation time.
  settings         jsonb NOT NULL DEFAULT '{}'
);
CREATE UNIQUE INDEX users_realm_email ON users (realm_id, lower(email));

CREATE TABLE user_groups (
  id              serial PRIMARY KEY,
  realm_id        integer NOT NULL REFERENCES realms(id),
  name            text NOT NULL,
  description     text NOT NULL DEFAULT '',
  is_system_group boolean NOT NULL DEFAULT false,
  deactivated     boolean NOT NULL DEFAULT false,
  creator_id      integer REFERENCES users(id),
  date_created    timestamptz NOT NULL DEFAULT now(),
  -- Group permission settings: name -> group-setting value.
  group_settings  jsonb NOT NULL DEFAULT '{}',
  UNIQUE (realm_id, name)
);

CREATE TABLE user_group_members (
  group_id integer NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  user_id  integer NOT NULL REFERENCES users(id),
  PRIMARY KEY (group_id, user_id)
);
CREATE INDEX user_group_members_user ON user_group_members (user_id);

CREATE TABLE user_group_subgroups (
  group_id    integer NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  subgroup_id integer NOT NULL REFERENCES user_groups(id) ON DELETE CASCADE,
  PRIMARY KEY (group_id, subgroup_id)
);

-- Writes made outside the server process (the admin CLI) note the realm here; the server reloads it.
CREATE TABLE external_changes (
  id       bigserial PRIMARY KEY,
  realm_id integer,
  at       timestamptz NOT NULL DEFAULT now()
);
