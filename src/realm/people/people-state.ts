// The people domain's part of a realm's working set: user statuses and bot settings by user ID.
import type { Repos } from '../../persistence/db.js';
import type { BotSettings } from '../../persistence/repos/bots.js';
import type { UserStatus } from '../../persistence/repos/people.js';

export type { UserStatus, BotSettings };

export class PeopleState {
  constructor(
    readonly statuses: Map<number, UserStatus> = new Map(),
    readonly bots: Map<number, BotSettings> = new Map(),
  ) {}

  static async load(db: Repos, realmId: number): Promise<PeopleState> {
    const statuses = await db.people.statusesForRealm(realmId);
    const bots = await db.bots.forRealm(realmId);
    return new PeopleState(statuses, new Map(bots.map((b) => [b.userId, b])));
  }
}
