// A realm's code playgrounds: where a code block of a language can be opened.
import type { IDatabase } from 'pg-promise';
import type { Playground } from '../../model/messages.js';

export class PlaygroundsRepository {
  constructor(private db: IDatabase<unknown>) {}

  forRealm(realmId: number): Promise<Playground[]> {
    return this.db.map('SELECT id, name, pygments_language, url_template FROM realm_playgrounds WHERE realm_id = $1 ORDER BY id', [realmId], (r) => ({
      id: r.id,
      name: r.name,
      pygmentsLanguage: r.pygments_language,
      urlTemplate: r.url_template,
    }));
  }

  /** Adds a playground; null when the realm has one of that name for that language. */
  async add(realmId: number, p: Omit<Playground, 'id'>): Promise<number | null> {
    const r = await this.db.oneOrNone(
      `INSERT INTO realm_playgrounds (realm_id, name, pygments_language, url_template) VALUES ($1, $2, $3, $4)
       ON CONFLICT DO NOTHING RETURNING id`,
      [realmId, p.name, p.pygmentsLanguage, p.urlTemplate],
    );
    return r ? (r.id as number) : null;
  }

  /** Removes a playground of the realm; false when it has none with that ID. */
  async remove(realmId: number, id: number): Promise<boolean> {
    return (await this.db.result('DELETE FROM realm_playgrounds WHERE realm_id = $1 AND id = $2', [realmId, id])).rowCount > 0;
  }
}
