// The people domain's part of a realm's working set: user statuses by user ID.
import type { Repos } from '../../persistence/db.js';
import type { UserStatus } from '../../persistence/repos/people.js';

export type { UserStatus };

export class PeopleState {
  constructor(readonly statuses: Map<number, UserStatus> = new Map()) {}

  static async load(db: Repos, realmId: number): Promise<PeopleState> {
    return new PeopleState(await db.people.statusesForRealm(realmId));
  }
}
