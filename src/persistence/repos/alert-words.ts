// Users' alert words (words that flag a message with has_alert_word for that user).
import type { IDatabase } from 'pg-promise';

export class AlertWordsRepository {
  constructor(private db: IDatabase<unknown>) {}

  /** Every user's words in the realm, each list in the order added. */
  async forRealm(realmId: number): Promise<Map<number, string[]>> {
    const rows = await this.db.any('SELECT user_id, word FROM alert_words WHERE realm_id = $1 ORDER BY id', [realmId]);
    const out = new Map<number, string[]>();
    for (const r of rows) {
      let list = out.get(r.user_id);
      if (!list) out.set(r.user_id, (list = []));
      list.push(r.word);
    }
    return out;
  }

  add(realmId: number, userId: number, words: string[]): Promise<null> {
    if (words.length === 0) return Promise.resolve(null);
    return this.db.none(
      `INSERT INTO alert_words (realm_id, user_id, word) SELECT $1, $2, w FROM unnest($3::text[]) WITH ORDINALITY AS t(w, n)
       ORDER BY n ON CONFLICT DO NOTHING`,
      [realmId, userId, words],
    );
  }

  /** Removes words, compared case-insensitively. */
  remove(userId: number, words: string[]): Promise<null> {
    if (words.length === 0) return Promise.resolve(null);
    return this.db.none('DELETE FROM alert_words WHERE user_id = $1 AND lower(word) = ANY(SELECT lower(w) FROM unnest($2::text[]) AS w)', [
      userId,
      words,
    ]);
  }
}
