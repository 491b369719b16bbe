// A realm's custom emoji: name, image file and author; deactivated ones are kept (old messages still show them).
import type { IDatabase } from 'pg-promise';
import type { CustomEmoji } from '../../model/files.js';

function toEmoji(r: any): CustomEmoji {
  return { id: r.id, name: r.name, fileName: r.file_name, authorId: r.author_id, deactivated: r.deactivated };
}

export class RealmEmojiRepository {
  constructor(private db: IDatabase<unknown>) {}

  forRealm(realmId: number): Promise<CustomEmoji[]> {
    return this.db.map('SELECT id, name, file_name, author_id, deactivated FROM realm_emoji WHERE realm_id = $1 ORDER BY id', [realmId], toEmoji);
  }

  add(realmId: number, name: string, fileName: string, authorId: number): Promise<CustomEmoji> {
    return this.db.one(
      `INSERT INTO realm_emoji (realm_id, name, file_name, author_id) VALUES ($1, $2, $3, $4)
       RETURNING id, name, file_name, author_id, deactivated`,
      [realmId, name, fileName, authorId],
      toEmoji,
    );
  }

  deactivate(id: number): Promise<null> {
    return this.db.none('UPDATE realm_emoji SET deactivated = true WHERE id = $1', [id]);
  }
}
