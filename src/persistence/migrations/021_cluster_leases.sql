-- Cluster mode: who owns what. A lease per key ('realm:<id>' for a realm's writer, 'singleton' for once-only work):
-- the owner renews expires_at; when it lapses another process takes the lease over and the epoch goes up. A realm's
-- write transactions check their epoch against this row (FOR SHARE), so a former owner can no longer commit.
CREATE TABLE cluster_leases (
  key        text PRIMARY KEY,
  owner      text NOT NULL,
  epoch      bigint NOT NULL,
  expires_at timestamptz NOT NULL
);
