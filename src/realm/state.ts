// A realm's working set in memory: the realm row, its users and groups, with lookups and permission checks.
import type { Db, Repos } from '../persistence/db.js';
import { readInOneSnapshot } from '../persistence/snapshots.js';
import { ChannelsState } from './channels/channels-state.js';
import { FilesState } from './files/files-state.js';
import { MessagesState } from './messages/messages-state.js';
import { PeopleState } from './people/people-state.js';
import { profileDataOf } from './people/profile-values.js';
import type { GroupSettingValue, Realm, User, UserGroup } from '../model/realm.js';
import { apiEmail, realmEmailDomain } from './user-emails.js';

export class RealmState {
  readonly usersById = new Map<number, User>();
  readonly usersByEmail = new Map<string, User>();
  readonly groupsById = new Map<number, UserGroup>();
  readonly groupsByName = new Map<string, UserGroup>();
  /** Statuses and other per-user records of the people domain (src/realm/people/). */
  people = new PeopleState();
  /** Channels, subscriptions, default channels and folders (src/realm/channels/). */
  channels = new ChannelsState();
  /** Linkifiers, alert words and conversation IDs (src/realm/messages/). */
  messages = new MessagesState();
  /** Custom emoji (src/realm/files/). */
  files = new FilesState();
  /** The server's ROOT_DOMAIN, set by the realm actor when it loads the working set (kept across reloads). */
  rootDomain = 'localhost';
  /** The database for reads made outside the actor (render lookups); set by the realm actor, null in bare states. */
  reads: Pick<Repos, 'messages'> | null = null;
  /**
   * The database snapshot the working set was read in (loadFresh), null when unknown: cluster mode tells by it which
   * committed batches of the realm's owner it already holds (persistence/snapshots.ts).
   */
  loadedAt: string | null = null;

  constructor(public realm: Realm, users: User[], groups: UserGroup[]) {
    for (const u of users) this.putUser(u);
    for (const g of groups) this.putGroup(g);
  }

  static async load(db: Repos, realmId: number): Promise<RealmState> {
    // Sequential: inside a transaction all three share one connection.
    const realm = await db.realms.get(realmId);
    const users = await db.users.forRealm(realmId);
    const groups = await db.groups.forRealm(realmId);
    if (!realm) throw new Error(`realm ${realmId} does not exist`);
    const state = new RealmState(realm, users, groups);
    state.people = await PeopleState.load(db, realmId);
    for (const [userId, values] of await db.profileFields.valuesForRealm(realmId)) {
      const u = state.usersById.get(userId);
      if (u) state.putUser({ ...u, profileData: profileDataOf(values) });
    }
    state.channels = await ChannelsState.load(db, realmId);
    state.messages = await MessagesState.load(db, realmId);
    state.files = await FilesState.load(db, realmId);
    return state;
  }

  /** The working set read from the database in one snapshot, which it remembers (loadedAt). */
  static async loadFresh(db: Db, realmId: number): Promise<RealmState> {
    const { value: state, snapshot } = await readInOneSnapshot(db, (t) => RealmState.load(t, realmId));
    state.loadedAt = snapshot;
    return state;
  }

  /** Takes over another working set of the same realm (after a reload). */
  replaceFrom(other: RealmState): void {
    this.realm = other.realm;
    this.people = other.people;
    this.channels = other.channels;
    this.messages = other.messages;
    this.files = other.files;
    this.loadedAt = other.loadedAt;
    for (const m of ['usersById', 'usersByEmail', 'groupsById', 'groupsByName'] as const) {
      const target = this[m] as Map<unknown, unknown>;
      target.clear();
      for (const [k, v] of other[m] as Map<unknown, unknown>) target.set(k, v);
    }
  }

  putUser(u: User): void {
    const previous = this.usersById.get(u.id);
    if (previous) this.usersByEmail.delete(previous.email.toLowerCase());
    this.usersById.set(u.id, u);
    this.usersByEmail.set(u.email.toLowerCase(), u);
  }

  putGroup(g: UserGroup): void {
    this.groupsById.set(g.id, g);
    this.groupsByName.set(g.name, g);
  }

  private domainOf: { stringId: string; rootDomain: string; domain: string } | null = null;

  /** The domain of the users' fake addresses (realmEmailDomain), remembered while the realm's host stays. */
  get emailDomain(): string {
    const { stringId } = this.realm;
    const known = this.domainOf;
    if (known && known.stringId === stringId && known.rootDomain === this.rootDomain) return known.domain;
    const domain = realmEmailDomain(stringId, this.rootDomain);
    this.domainOf = { stringId, rootDomain: this.rootDomain, domain };
    return domain;
  }

  /** The address the API shows for a user (apiEmail): real, or fake when their email_address_visibility hides it. */
  apiEmailOf(u: User): string {
    return apiEmail(u, this.emailDomain);
  }

  /** A user by real email address (sign-in, uniqueness); what users may name others by is userByEmailFor. */
  userByEmail(email: string): User | undefined {
    return this.usersByEmail.get(email.toLowerCase());
  }

  systemGroup(name: string): UserGroup {
    const g = this.groupsByName.get(name);
    if (!g || !g.isSystemGroup) throw new Error(`system group ${name} missing in realm ${this.realm.id}`);
    return g;
  }

  /** Whether a user is in a group directly or through its subgroups. */
  isInGroup(userId: number, groupId: number, seen: Set<number> = new Set()): boolean {
    if (seen.has(groupId)) return false;
    seen.add(groupId);
    const g = this.groupsById.get(groupId);
    if (!g || g.deactivated) return false;
    if (g.directMembers.has(userId)) return true;
    for (const sub of g.directSubgroups) if (this.isInGroup(userId, sub, seen)) return true;
    return false;
  }

  /** Whether an active user satisfies a group-setting value. */
  userHasGroupSetting(userId: number, value: GroupSettingValue): boolean {
    const user = this.usersById.get(userId);
    if (!user || !user.isActive) return false;
    if (typeof value === 'number') return this.isInGroup(userId, value);
    if (value.direct_members.includes(userId)) return true;
    return value.direct_subgroups.some((g) => this.isInGroup(userId, g));
  }

  /** A realm permission by setting name, e.g. `can_create_groups`. */
  userHasRealmPermission(userId: number, setting: string): boolean {
    const value = this.realm.groupSettings[setting];
    return value !== undefined && this.userHasGroupSetting(userId, value);
  }
}
