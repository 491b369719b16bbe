// User rows.
import type { IDatabase } from 'pg-promise';
import type { Role, User, NewUser } from '../../model/realm.js';

interface UserRow {
  id: number;
  realm_id: number;
  email: string;
  full_name: string;
  role: number;
  is_bot: boolean;
  bot_type: number | null;
  bot_owner_id: number | null;
  is_active: boolean;
  api_key: string;
  password_hash: string | null;
  can_create_users: boolean;
  date_joined: Date;
  timezone: string;
  settings: Record<string, unknown>;
}

function toUser(r: UserRow): User {
  return {
    id: r.id,
    realmId: r.realm_id,
    email: r.email,
    fullName: r.full_name,
    role: r.role as Role,
    isBot: r.is_bot,
    botType: r.bot_type,
    botOwnerId: r.bot_owner_id,
    isActive: r.is_active,
    apiKey: r.api_key,
    passwordHash: r.password_hash,
    canCreateUsers: r.can_create_users,
    dateJoined: Math.floor(r.date_joined.getTime() / 1000),
    timezone: r.timezone,
    settings: r.settings,
  };
}

export class UsersRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forRealm(realmId: number): Promise<User[]> {
    const rows = await this.db.any<UserRow>('SELECT * FROM users WHERE realm_id = $1 ORDER BY id', [realmId]);
    return rows.map(toUser);
  }

  async byEmail(realmId: number, email: string): Promise<User | null> {
    const row = await this.db.oneOrNone<UserRow>(
      'SELECT * FROM users WHERE realm_id = $1 AND lower(email) = lower($2)',
      [realmId, email],
    );
    return row && toUser(row);
  }

  async insert(u: NewUser): Promise<User> {
    const row = await this.db.one<UserRow>(
      `INSERT INTO users (realm_id, email, full_name, role, api_key, password_hash, is_bot, bot_type, bot_owner_id,
                          can_create_users, settings)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) RETURNING *`,
      [u.realmId, u.email, u.fullName, u.role, u.apiKey, u.passwordHash, u.isBot ?? false, u.botType ?? null,
        u.botOwnerId ?? null, u.canCreateUsers ?? false, u.settings ?? {}],
    );
    return toUser(row);
  }

  setPasswordHash(id: number, hash: string): Promise<null> {
    return this.db.none('UPDATE users SET password_hash = $2 WHERE id = $1', [id, hash]);
  }

  setActive(id: number, active: boolean): Promise<null> {
    return this.db.none('UPDATE users SET is_active = $2 WHERE id = $1', [id, active]);
  }

  setRole(id: number, role: Role): Promise<null> {
    return this.db.none('UPDATE users SET role = $2 WHERE id = $1', [id, role]);
  }

  setApiKey(id: number, apiKey: string): Promise<null> {
    return this.db.none('UPDATE users SET api_key = $2 WHERE id = $1', [id, apiKey]);
  }

  setBotOwner(id: number, ownerId: number): Promise<null> {
    return this.db.none('UPDATE users SET bot_owner_id = $2 WHERE id = $1', [id, ownerId]);
  }

  setFullName(id: number, fullName: string): Promise<null> {
    return this.db.none('UPDATE users SET full_name = $2 WHERE id = $1', [id, fullName]);
  }

  setTimezone(id: number, timezone: string): Promise<null> {
    return this.db.none('UPDATE users SET timezone = $2 WHERE id = $1', [id, timezone]);
  }

  /** Merges changed personal settings into the stored ones. */
  mergeSettings(id: number, changes: Record<string, unknown>): Promise<null> {
    return this.db.none('UPDATE users SET settings = settings || $2::jsonb WHERE id = $1', [id, JSON.stringify(changes)]);
  }
}
