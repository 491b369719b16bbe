// Realm rows.
import type { IDatabase } from 'pg-promise';
import type { GroupSettingValue, Realm, RealmBranding, RealmEntry, StoredRealmDomain } from '../../model/realm.js';

interface RealmRow {
  id: number;
  string_id: string;
  name: string;
  description: string;
  deactivated: boolean;
  date_created: Date;
  settings: Record<string, unknown>;
  group_settings: Record<string, GroupSettingValue>;
  user_settings_defaults: Record<string, unknown>;
  domains: StoredRealmDomain[];
  branding: RealmBranding;
}

function toRealm(r: RealmRow): Realm {
  return {
    id: r.id,
    stringId: r.string_id,
    name: r.name,
    description: r.description,
    deactivated: r.deactivated,
    dateCreated: Math.floor(r.date_created.getTime() / 1000),
    settings: r.settings,
    groupSettings: r.group_settings,
    userSettingsDefaults: r.user_settings_defaults,
    domains: r.domains,
    branding: r.branding,
  };
}

export class RealmsRepository {
  constructor(private db: IDatabase<unknown>) {}

  directory(): Promise<RealmEntry[]> {
    return this.db.map('SELECT id, string_id, deactivated FROM realms ORDER BY id', [], (r) => ({
      id: r.id,
      stringId: r.string_id,
      deactivated: r.deactivated,
    }));
  }

  async get(id: number): Promise<Realm | null> {
    const row = await this.db.oneOrNone<RealmRow>('SELECT * FROM realms WHERE id = $1', [id]);
    return row && toRealm(row);
  }

  async byStringId(stringId: string): Promise<Realm | null> {
    const row = await this.db.oneOrNone<RealmRow>('SELECT * FROM realms WHERE string_id = $1', [stringId]);
    return row && toRealm(row);
  }

  async all(): Promise<Realm[]> {
    const rows = await this.db.any<RealmRow>('SELECT * FROM realms ORDER BY id');
    return rows.map(toRealm);
  }

  count(): Promise<number> {
    return this.db.one('SELECT count(*)::int AS n FROM realms', [], (r) => r.n);
  }

  async insert(r: { stringId: string; name: string; description?: string }): Promise<Realm> {
    const row = await this.db.one<RealmRow>(
      'INSERT INTO realms (string_id, name, description) VALUES ($1, $2, $3) RETURNING *',
      [r.stringId, r.name, r.description ?? ''],
    );
    return toRealm(row);
  }

  setGroupSettings(id: number, groupSettings: Record<string, GroupSettingValue>): Promise<null> {
    return this.db.none('UPDATE realms SET group_settings = $2 WHERE id = $1', [id, groupSettings]);
  }

  /** Merges changed defaults of personal settings for users who join later. */
  mergeUserSettingsDefaults(id: number, changes: Record<string, unknown>): Promise<null> {
    return this.db.none('UPDATE realms SET user_settings_defaults = user_settings_defaults || $2::jsonb WHERE id = $1', [
      id,
      JSON.stringify(changes),
    ]);
  }

  /** PATCH /realm: the name, the description, settings merged into the stored ones, permission groups merged. */
  async updateProperties(
    id: number,
    c: { name?: string; description?: string; settings: Record<string, unknown>; groupSettings: Record<string, GroupSettingValue> },
  ): Promise<void> {
    await this.db.none(
      `UPDATE realms SET name = coalesce($2, name), description = coalesce($3, description),
         settings = settings || $4::jsonb, group_settings = group_settings || $5::jsonb WHERE id = $1`,
      [id, c.name ?? null, c.description ?? null, JSON.stringify(c.settings), JSON.stringify(c.groupSettings)],
    );
  }

  setDomains(id: number, domains: StoredRealmDomain[]): Promise<null> {
    return this.db.none('UPDATE realms SET domains = $2::jsonb WHERE id = $1', [id, JSON.stringify(domains)]);
  }

  setBranding(id: number, branding: RealmBranding): Promise<null> {
    return this.db.none('UPDATE realms SET branding = $2::jsonb WHERE id = $1', [id, JSON.stringify(branding)]);
  }

  setDeactivated(id: number, deactivated: boolean): Promise<null> {
    return this.db.none('UPDATE realms SET deactivated = $2 WHERE id = $1', [id, deactivated]);
  }
}
