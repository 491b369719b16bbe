// Bot settings rows: default channels and the outgoing-webhook service of each bot.
import type { IDatabase } from 'pg-promise';
import type { BotSettings } from '../../model/people.js';

interface BotSettingsRow {
  user_id: number;
  default_sending_stream_id: number | null;
  default_events_register_stream_id: number | null;
  default_all_public_streams: boolean;
  service_name: string | null;
  service_base_url: string | null;
  service_interface: number | null;
  service_token: string | null;
}

function toSettings(r: BotSettingsRow): BotSettings {
  return {
    userId: r.user_id,
    defaultSendingChannelId: r.default_sending_stream_id,
    defaultEventsRegisterChannelId: r.default_events_register_stream_id,
    defaultAllPublicChannels: r.default_all_public_streams,
    service:
      r.service_base_url === null
        ? null
        : { name: r.service_name ?? '', baseUrl: r.service_base_url, interface: r.service_interface ?? 1, token: r.service_token ?? '' },
  };
}

export class BotsRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forRealm(realmId: number): Promise<BotSettings[]> {
    const rows = await this.db.any<BotSettingsRow>(
      'SELECT b.* FROM bot_settings b JOIN users u ON u.id = b.user_id WHERE u.realm_id = $1',
      [realmId],
    );
    return rows.map(toSettings);
  }

  /** Inserts or replaces a bot's settings. */
  save(s: BotSettings): Promise<null> {
    return this.db.none(
      `INSERT INTO bot_settings (user_id, default_sending_stream_id, default_events_register_stream_id,
                                 default_all_public_streams, service_name, service_base_url, service_interface, service_token)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (user_id) DO UPDATE SET
         default_sending_stream_id = EXCLUDED.default_sending_stream_id,
         default_events_register_stream_id = EXCLUDED.default_events_register_stream_id,
         default_all_public_streams = EXCLUDED.default_all_public_streams,
         service_name = EXCLUDED.service_name, service_base_url = EXCLUDED.service_base_url,
         service_interface = EXCLUDED.service_interface, service_token = EXCLUDED.service_token`,
      [s.userId, s.defaultSendingChannelId, s.defaultEventsRegisterChannelId, s.defaultAllPublicChannels,
        s.service?.name ?? null, s.service?.baseUrl ?? null, s.service?.interface ?? null, s.service?.token ?? null],
    );
  }
}
