// User groups, their direct members and subgroups.
import type { IDatabase } from 'pg-promise';
import type { GroupSettingValue, UserGroup } from '../../model/realm.js';

interface GroupRow {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  is_system_group: boolean;
  deactivated: boolean;
  creator_id: number | null;
  date_created: Date;
  group_settings: Record<string, GroupSettingValue>;
}

export class GroupsRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forRealm(realmId: number): Promise<UserGroup[]> {
    const rows = await this.db.any<GroupRow>('SELECT * FROM user_groups WHERE realm_id = $1 ORDER BY id', [realmId]);
    const members = await this.db.any<{ group_id: number; user_id: number }>(
        `SELECT m.group_id, m.user_id FROM user_group_members m JOIN user_groups g ON g.id = m.group_id
         WHERE g.realm_id = $1`,
        [realmId],
    );
    const subgroups = await this.db.any<{ group_id: number; subgroup_id: number }>(
        `SELECT s.group_id, s.subgroup_id FROM user_group_subgroups s JOIN user_groups g ON g.id = s.group_id
         WHERE g.realm_id = $1`,
        [realmId],
    );
    const groups = new Map<number, UserGroup>();
    for (const r of rows) {
      groups.set(r.id, {
        id: r.id,
        realmId: r.realm_id,
        name: r.name,
        description: r.description,
        isSystemGroup: r.is_system_group,
        deactivated: r.deactivated,
        creatorId: r.creator_id,
        dateCreated: Math.floor(r.date_created.getTime() / 1000),
        groupSettings: r.group_settings,
        directMembers: new Set(),
        directSubgroups: new Set(),
      });
    }
    for (const m of members) groups.get(m.group_id)?.directMembers.add(m.user_id);
    for (const s of subgroups) groups.get(s.group_id)?.directSubgroups.add(s.subgroup_id);
    return [...groups.values()];
  }

  insert(g: {
    realmId: number;
    name: string;
    description: string;
    isSystemGroup: boolean;
    creatorId?: number | null;
    groupSettings?: Record<string, GroupSettingValue>;
  }): Promise<number> {
    return this.db.one(
      `INSERT INTO user_groups (realm_id, name, description, is_system_group, creator_id, group_settings)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb) RETURNING id`,
      [g.realmId, g.name, g.description, g.isSystemGroup, g.creatorId ?? null, JSON.stringify(g.groupSettings ?? {})],
      (r) => r.id,
    );
  }

  /** The creation time the database gave a group (seconds). */
  dateCreated(id: number): Promise<number> {
    return this.db.one('SELECT extract(epoch FROM date_created)::bigint AS t FROM user_groups WHERE id = $1', [id], (r) => Number(r.t));
  }

  addSubgroup(groupId: number, subgroupId: number): Promise<null> {
    return this.db.none(
      'INSERT INTO user_group_subgroups (group_id, subgroup_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [groupId, subgroupId],
    );
  }

  addMember(groupId: number, userId: number): Promise<null> {
    return this.db.none(
      'INSERT INTO user_group_members (group_id, user_id) VALUES ($1, $2) ON CONFLICT DO NOTHING',
      [groupId, userId],
    );
  }

  removeSubgroup(groupId: number, subgroupId: number): Promise<null> {
    return this.db.none('DELETE FROM user_group_subgroups WHERE group_id = $1 AND subgroup_id = $2', [groupId, subgroupId]);
  }

  /** Updates the given columns of a group (name, description, group_settings, deactivated). */
  update(
    id: number,
    fields: { name?: string; description?: string; groupSettings?: Record<string, GroupSettingValue>; deactivated?: boolean },
  ): Promise<null> {
    return this.db.none(
      `UPDATE user_groups SET name = coalesce($2, name), description = coalesce($3, description),
         group_settings = coalesce($4::jsonb, group_settings), deactivated = coalesce($5, deactivated)
       WHERE id = $1`,
      [id, fields.name ?? null, fields.description ?? null,
        fields.groupSettings ? JSON.stringify(fields.groupSettings) : null, fields.deactivated ?? null],
    );
  }

  removeMember(groupId: number, userId: number): Promise<null> {
    return this.db.none('DELETE FROM user_group_members WHERE group_id = $1 AND user_id = $2', [groupId, userId]);
  }
}
