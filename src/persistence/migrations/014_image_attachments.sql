-- Inline image previews: what the header of each uploaded image said and the thumbnails made of it (the
-- reference's ImageAttachment), and server-wide secrets (the image proxy's signing key).

CREATE TABLE image_attachments (
  path_id      text PRIMARY KEY REFERENCES attachments(path_id) ON DELETE CASCADE,
  realm_id     integer NOT NULL REFERENCES realms(id),
  -- As displayed, after EXIF rotation.
  width        integer NOT NULL,
  height       integer NOT NULL,
  frames       integer NOT NULL,
  content_type text NOT NULL,
  -- The thumbnails made so far ([] while pending): [{maxWidth, maxHeight, animated, extension, width, height,
  -- byteSize, contentType}].
  thumbnails   jsonb NOT NULL DEFAULT '[]'
);
CREATE INDEX image_attachments_pending ON image_attachments (realm_id) WHERE thumbnails = '[]';

CREATE TABLE server_secrets (
  name  text PRIMARY KEY,
  value text NOT NULL
);
