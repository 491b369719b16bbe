// The people domain's part of a realm's working set: user statuses, custom profile fields, muted users and
// bot settings.
import type { Repos } from '../../persistence/db.js';
import type { BotSettings, UserStatus, ProfileField } from '../../model/people.js';

export type { UserStatus, BotSettings };

export class PeopleState {
  constructor(
    /** Changed through setStatus. */
    readonly statuses: Map<number, UserStatus> = new Map(),
    /** The realm's custom profile fields in display order (users' values are on their User records). */
    public profileFields: ProfileField[] = [],
    /** Muter's ID → muted user's ID → when muted (seconds). */
    readonly mutes: Map<number, Map<number, number>> = new Map(),
    /** Bot ID → its default channels and outgoing-webhook service. */
    readonly bots: Map<number, BotSettings> = new Map(),
  ) {}

  static async load(db: Repos, realmId: number): Promise<PeopleState> {
    const statuses = await db.people.statusesForRealm(realmId);
    const fields = await db.profileFields.forRealm(realmId);
    const mutes = await db.mutedUsers.forRealm(realmId);
    const bots = await db.bots.forRealm(realmId);
    return new PeopleState(statuses, fields, mutes, new Map(bots.map((b) => [b.userId, b])));
  }

  /** Counts changes to the statuses: what is derived from all of them is kept while it stays. */
  statusesVersion = 0;

  /** Sets a user's status (the one way statuses change after loading). */
  setStatus(userId: number, status: UserStatus): void {
    this.statuses.set(userId, status);
    this.statusesVersion++;
  }

  /** Whether `muterId` has muted `userId`. */
  hasMuted(muterId: number, userId: number): boolean {
    return this.mutes.get(muterId)?.has(userId) ?? false;
  }
}
