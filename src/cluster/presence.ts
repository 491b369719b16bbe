// Presence in a cluster: a realm's user sessions live on the realm's owner, so every process answers the same
// presence. A ping or a read taken elsewhere goes to the owner like a command (RealmOwnership.services); the owner
// flushes its sessions as one process does. When the realm moves, the new owner starts from the last flush.
import type { RealmHandle } from '../actors/realms.js';
import type { Db } from '../persistence/db.js';
import { PresenceSessions, type PresenceSessionsOptions } from '../actors/presence-sessions.js';
import type { ActorHost } from '../actors/system.js';
import type { UserPresence } from '../realm/people/presence.js';
import type { RealmOwnership } from './owners.js';

export class ClusterPresence extends PresenceSessions {
  constructor(db: Db, actors: ActorHost, opts: PresenceSessionsOptions, private readonly owners: RealmOwnership) {
    super(db, actors, opts);
    const handle = (realmId: number) => owners.realms.get(realmId);
    owners.services.set('@presence.ping', async (realmId, i: { userId: number; status: 'active' | 'idle' }) => super.ping(await handle(realmId), i.userId, i.status));
    owners.services.set('@presence.all', async (realmId) => super.all(await handle(realmId)));
    owners.services.set('@presence.of', async (realmId, i: { userId: number }) => (await super.of(await handle(realmId), i.userId)) ?? null);
  }

  override async ping(realm: RealmHandle, userId: number, status: 'active' | 'idle'): Promise<void> {
    await this.owners.call(realm.id, '@presence.ping', { userId, status });
  }

  override async all(realm: RealmHandle): Promise<UserPresence[]> {
    return (await this.owners.call(realm.id, '@presence.all', null)) as UserPresence[];
  }

  override async of(realm: RealmHandle, userId: number): Promise<UserPresence | undefined> {
    return ((await this.owners.call(realm.id, '@presence.of', { userId })) as UserPresence | null) ?? undefined;
  }
}
