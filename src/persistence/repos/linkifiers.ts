// A realm's linkifiers: regular-expression patterns turned into links, in display (and matching) order.
import type { IDatabase } from 'pg-promise';
import type { Linkifier } from '../../model/messages.js';

export class LinkifiersRepository {
  constructor(private db: IDatabase<unknown>) {}

  forRealm(realmId: number): Promise<Linkifier[]> {
    return this.db.map(
      'SELECT id, pattern, url_template FROM linkifiers WHERE realm_id = $1 ORDER BY "order", id',
      [realmId],
      (r) => ({ id: r.id, pattern: r.pattern, urlTemplate: r.url_template }),
    );
  }

  /** Adds a linkifier at the end of the order; its ID. */
  add(realmId: number, pattern: string, urlTemplate: string): Promise<number> {
    return this.db.one(
      `INSERT INTO linkifiers (realm_id, pattern, url_template, "order")
       VALUES ($1, $2, $3, (SELECT coalesce(max("order"), -1) + 1 FROM linkifiers WHERE realm_id = $1)) RETURNING id`,
      [realmId, pattern, urlTemplate],
      (r) => r.id as number,
    );
  }

  update(id: number, pattern: string, urlTemplate: string): Promise<null> {
    return this.db.none('UPDATE linkifiers SET pattern = $2, url_template = $3 WHERE id = $1', [id, pattern, urlTemplate]);
  }

  remove(id: number): Promise<null> {
    return this.db.none('DELETE FROM linkifiers WHERE id = $1', [id]);
  }

  /** Stores the order: each ID gets its index in `ids`. */
  reorder(ids: number[]): Promise<null> {
    return this.db.none(
      'UPDATE linkifiers l SET "order" = t.n - 1 FROM unnest($1::int[]) WITH ORDINALITY AS t(id, n) WHERE l.id = t.id',
      [ids],
    );
  }
}
