// The files domain's part of a realm's working set: its custom emoji by ID (attachments stay in the database).
import type { Repos } from '../../persistence/db.js';
import type { CustomEmoji } from '../../persistence/repos/realm-emoji.js';

export type { CustomEmoji };

export class FilesState {
  constructor(readonly emoji: Map<number, CustomEmoji> = new Map()) {}

  static async load(db: Repos, realmId: number): Promise<FilesState> {
    const list = await db.realmEmoji.forRealm(realmId);
    return new FilesState(new Map(list.map((e) => [e.id, e])));
  }

  /** The active emoji of this name. */
  activeByName(name: string): CustomEmoji | undefined {
    for (const e of this.emoji.values()) if (e.name === name && !e.deactivated) return e;
    return undefined;
  }
}
