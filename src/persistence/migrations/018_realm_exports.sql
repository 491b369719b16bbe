-- Data exports requested through the API (POST /export/realm): their type, state and stored archive.
CREATE TABLE realm_exports (
  id             serial PRIMARY KEY,
  realm_id       integer NOT NULL REFERENCES realms(id),
  acting_user_id integer NOT NULL REFERENCES users(id),
  -- 1 public, 2 standard (full with consent), as the reference's export_type.
  export_type    smallint NOT NULL CHECK (export_type IN (1, 2)),
  date_requested timestamptz NOT NULL DEFAULT now(),
  date_succeeded timestamptz,
  date_failed    timestamptz,
  date_deleted   timestamptz,
  -- The archive's storage key (below exports/); set once it is complete.
  storage_key    text,
  size           bigint
);
CREATE INDEX realm_exports_realm ON realm_exports (realm_id, date_requested);
