-- Sign-up confirmations: an email address given on an invitation link's page, waiting for its owner to follow
-- the link mailed to it (the account is created only then).
CREATE TABLE signup_confirmations (
  id               serial PRIMARY KEY,
  realm_id         integer NOT NULL REFERENCES realms(id),
  confirmation_key text NOT NULL UNIQUE,
  email            text NOT NULL,
  invite_id        integer NOT NULL REFERENCES multiuse_invites(id),
  created_at       timestamptz NOT NULL DEFAULT now(),
  expires_at       timestamptz NOT NULL,
  used             boolean NOT NULL DEFAULT false
);
CREATE INDEX signup_confirmations_realm ON signup_confirmations (realm_id);
