// The files domain's part of a realm's working set: its custom emoji by ID (attachments stay in the database).
import type { Repos } from '../../persistence/db.js';
import type { CustomEmoji } from '../../model/files.js';

export type { CustomEmoji };

export class FilesState {
  private readonly byId = new Map<number, CustomEmoji>();
  /** The active emoji by name (the database keeps active names unique), for Markdown's `:name:` on every render. */
  private readonly activeByNameIndex = new Map<string, CustomEmoji>();

  constructor(list: Iterable<CustomEmoji> = []) {
    for (const e of list) this.put(e);
  }

  static async load(db: Repos, realmId: number): Promise<FilesState> {
    return new FilesState(await db.realmEmoji.forRealm(realmId));
  }

  /** Every custom emoji, deactivated ones included, by ID. */
  get emoji(): ReadonlyMap<number, CustomEmoji> {
    return this.byId;
  }

  /** Adds or replaces (by ID) an emoji. */
  put(e: CustomEmoji): void {
    const prev = this.byId.get(e.id);
    if (prev && this.activeByNameIndex.get(prev.name) === prev) this.activeByNameIndex.delete(prev.name);
    this.byId.set(e.id, e);
    if (!e.deactivated) this.activeByNameIndex.set(e.name, e);
  }

  /** The active emoji of this name. */
  activeByName(name: string): CustomEmoji | undefined {
    return this.activeByNameIndex.get(name);
  }
}
