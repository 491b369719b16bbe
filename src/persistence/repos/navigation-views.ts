// A user's navigation views: settings for built-in views and custom views, keyed by their URL fragment.
import type { IDatabase } from 'pg-promise';
import type { NavigationView } from '../../model/drafts.js';

function toView(r: Record<string, any>): NavigationView {
  return { fragment: r.fragment, isPinned: r.is_pinned, name: r.name };
}

export class NavigationViewsRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forUser(userId: number): Promise<NavigationView[]> {
    return (await this.db.any('SELECT fragment, is_pinned, name FROM navigation_views WHERE user_id = $1 ORDER BY id', [userId])).map(toView);
  }

  async get(userId: number, fragment: string): Promise<NavigationView | null> {
    const r = await this.db.oneOrNone('SELECT fragment, is_pinned, name FROM navigation_views WHERE user_id = $1 AND fragment = $2', [
      userId,
      fragment,
    ]);
    return r ? toView(r) : null;
  }

  /** Whether the user has a view with this fragment or (when given) this name. */
  async exists(userId: number, fragment: string | null, name: string | null): Promise<boolean> {
    const r = await this.db.one(
      `SELECT EXISTS (SELECT 1 FROM navigation_views WHERE user_id = $1 AND (fragment = $2 OR name = $3)) AS found`,
      [userId, fragment, name],
    );
    return r.found;
  }

  async insert(realmId: number, userId: number, v: NavigationView): Promise<void> {
    await this.db.none('INSERT INTO navigation_views (realm_id, user_id, fragment, is_pinned, name) VALUES ($1, $2, $3, $4, $5)', [
      realmId,
      userId,
      v.fragment,
      v.isPinned,
      v.name,
    ]);
  }

  async update(userId: number, fragment: string, changes: { isPinned?: boolean; name?: string }): Promise<NavigationView | null> {
    const r = await this.db.oneOrNone(
      `UPDATE navigation_views SET is_pinned = coalesce($3, is_pinned), name = coalesce($4, name)
        WHERE user_id = $1 AND fragment = $2 RETURNING fragment, is_pinned, name`,
      [userId, fragment, changes.isPinned ?? null, changes.name ?? null],
    );
    return r ? toView(r) : null;
  }

  async delete(userId: number, fragment: string): Promise<boolean> {
    return (await this.db.result('DELETE FROM navigation_views WHERE user_id = $1 AND fragment = $2', [userId, fragment])).rowCount > 0;
  }
}
