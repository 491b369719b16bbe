-- Email invitations (the reference's PreregistrationUser rows made by POST /invites): one address, the role, channels
-- and groups the invitee joins with, and the confirmation key of the link mailed to them.
CREATE TABLE email_invites (
  id                                  serial PRIMARY KEY,
  realm_id                            integer NOT NULL REFERENCES realms(id),
  email                               text NOT NULL,
  link_key                            text NOT NULL UNIQUE,
  referred_by                         integer NOT NULL REFERENCES users(id),
  invited_as                          smallint NOT NULL CHECK (invited_as IN (100, 200, 300, 400, 600)),
  stream_ids                          integer[] NOT NULL DEFAULT '{}',
  group_ids                           integer[] NOT NULL DEFAULT '{}',
  include_realm_default_subscriptions boolean NOT NULL DEFAULT false,
  notify_referrer_on_join             boolean NOT NULL DEFAULT true,
  welcome_message_custom_text         text,
  -- When the invitation was last mailed (resending moves it).
  invited_at                          timestamptz NOT NULL DEFAULT now(),
  -- null: never expires.
  expires_at                          timestamptz,
  -- 'active', 'used' (an account was created with it) or 'revoked'.
  status                              text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'used', 'revoked'))
);
CREATE INDEX email_invites_realm ON email_invites (realm_id);
CREATE INDEX email_invites_referrer ON email_invites (referred_by) WHERE status = 'active';

-- One row per invitation mail (first sending or resending): what the daily sending limit counts. Rows older than
-- the limit's window are pruned as new ones are written.
CREATE TABLE invitation_sends (
  realm_id integer NOT NULL REFERENCES realms(id),
  sent_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX invitation_sends_realm ON invitation_sends (realm_id, sent_at);
