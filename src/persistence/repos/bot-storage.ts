// Bot storage: a bot's own key-value entries (the reference's BotStorageData).
import type { IDatabase } from 'pg-promise';

export class BotStorageRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** The bot's entries, all or those of `keys` (missing keys are left out). */
  async get(userId: number, keys: string[] | null): Promise<Map<string, string>> {
    const rows = await this.db.any(
      'SELECT key, value FROM bot_storage WHERE user_id = $1 AND ($2::text[] IS NULL OR key = ANY($2::text[])) ORDER BY key',
      [userId, keys],
    );
    return new Map(rows.map((r) => [r.key as string, r.value as string]));
  }

  /** Characters the bot stores (keys and values), with `keys`' entries left out when given. */
  size(userId: number, without: string[] = []): Promise<number> {
    return this.db.one(
      'SELECT coalesce(sum(char_length(key) + char_length(value)), 0)::bigint AS n FROM bot_storage WHERE user_id = $1 AND NOT (key = ANY($2::text[]))',
      [userId, without],
      (r) => Number(r.n),
    );
  }

  put(userId: number, entries: [string, string][]): Promise<null> {
    if (entries.length === 0) return Promise.resolve(null);
    return this.db.none(
      `INSERT INTO bot_storage (user_id, key, value) SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS e(k, v)
       ON CONFLICT (user_id, key) DO UPDATE SET value = excluded.value`,
      [userId, entries.map((e) => e[0]), entries.map((e) => e[1])],
    );
  }

  /** Deletes the entries of `keys` (all when null); how many there were. */
  async remove(userId: number, keys: string[] | null): Promise<number> {
    return (await this.db.result('DELETE FROM bot_storage WHERE user_id = $1 AND ($2::text[] IS NULL OR key = ANY($2::text[]))', [userId, keys]))
      .rowCount;
  }
}
