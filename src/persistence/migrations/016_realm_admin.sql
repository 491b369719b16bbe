-- Organization administration: the realm's email domains (the reference's RealmDomain rows, a short list kept with
-- the realm) and its uploaded icon and logos (source and version of each).
ALTER TABLE realms ADD COLUMN domains jsonb NOT NULL DEFAULT '[]';
-- {icon: {source, version}, logo: {source, version}, night_logo: {source, version}}; absent: not uploaded.
ALTER TABLE realms ADD COLUMN branding jsonb NOT NULL DEFAULT '{}';
