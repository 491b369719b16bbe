// Channel folder rows.
import type { IDatabase } from 'pg-promise';
import type { ChannelFolder, FolderChanges } from '../../model/channels.js';

interface FolderRow {
  id: number;
  realm_id: number;
  name: string;
  description: string;
  rendered_description: string;
  order: number;
  is_archived: boolean;
  creator_id: number | null;
  date_created: Date;
}

function toFolder(r: FolderRow): ChannelFolder {
  return {
    id: r.id,
    realmId: r.realm_id,
    name: r.name,
    description: r.description,
    renderedDescription: r.rendered_description,
    order: r.order,
    isArchived: r.is_archived,
    creatorId: r.creator_id,
    dateCreated: Math.floor(r.date_created.getTime() / 1000),
  };
}

export class ChannelFoldersRepository {
  constructor(private db: IDatabase<unknown>) {}

  async forRealm(realmId: number): Promise<ChannelFolder[]> {
    const rows = await this.db.any<FolderRow>('SELECT * FROM channel_folders WHERE realm_id = $1 ORDER BY "order", id', [realmId]);
    return rows.map(toFolder);
  }

  async insert(f: Omit<ChannelFolder, 'id' | 'dateCreated' | 'isArchived'>): Promise<ChannelFolder> {
    const row = await this.db.one<FolderRow>(
      `INSERT INTO channel_folders (realm_id, name, description, rendered_description, "order", creator_id)
       VALUES ($1, $2, $3, $4, $5, $6) RETURNING *`,
      [f.realmId, f.name, f.description, f.renderedDescription, f.order, f.creatorId],
    );
    return toFolder(row);
  }

  async update(id: number, c: FolderChanges): Promise<ChannelFolder> {
    const row = await this.db.one<FolderRow>(
      `UPDATE channel_folders SET name = coalesce($2, name), description = coalesce($3, description),
         rendered_description = coalesce($4, rendered_description), is_archived = coalesce($5, is_archived)
       WHERE id = $1 RETURNING *`,
      [id, c.name ?? null, c.description ?? null, c.renderedDescription ?? null, c.isArchived ?? null],
    );
    return toFolder(row);
  }

  /** Sets each folder's order to its index in `ids`. */
  setOrder(ids: number[]): Promise<null> {
    return this.db.none(
      `UPDATE channel_folders f SET "order" = o.ord - 1 FROM unnest($1::int[]) WITH ORDINALITY AS o(id, ord) WHERE f.id = o.id`,
      [ids],
    );
  }
}
