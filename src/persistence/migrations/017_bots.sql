-- Bot settings: default channels, and the outgoing-webhook service (payload URL, interface, token).
CREATE TABLE bot_settings (
  user_id                           integer PRIMARY KEY REFERENCES users(id),
  default_sending_stream_id         integer,
  default_events_register_stream_id integer,
  default_all_public_streams        boolean NOT NULL DEFAULT false,
  service_name                      text,
  service_base_url                  text,
  service_interface                 smallint,
  service_token                     text
);
