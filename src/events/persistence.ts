// Event queues across a restart (saved at graceful shutdown, restored at start-up), and the narrow resolver
// the router uses for register's narrow.
import type { Realms } from '../actors/realms.js';
import type { NarrowResolver } from '../narrow/index.js';
import type { Db } from '../persistence/db.js';
import { userByEmailFor } from '../realm/user-format.js';
import { dumpQueue } from './queue-dump.js';
import type { QueueRegistry } from './queue-registry.js';
import type { EventRouter } from './router.js';

export async function saveQueues(db: Db, queues: QueueRegistry, router: EventRouter): Promise<number> {
  const dumps = [];
  for (const q of router.liveQueues()) {
    const queue = queues.get(q.queueId);
    if (queue && queue.status === 'active') dumps.push({ ...q, dump: dumpQueue(queue) });
  }
  await db.eventQueues.save(dumps);
  return dumps.length;
}

export interface RestoreOutcome {
  restored: number;
  /** Dumps that cannot be restored (undecodable, or a registration that no longer resolves), removed. */
  dropped: number;
  /** Dumps of realms that could not be loaded, left saved. */
  kept: number;
}

/**
 * Restores saved queues once the realms they belong to are loaded (their registrations' narrows resolve against the
 * realms' users and channels). Each queue is restored on its own: one that cannot be is dropped and reported through
 * `onDropped`, the others are restored all the same. A dump is removed from the table only once its queue is restored
 * (or dropped).
 */
export async function restoreQueues(
  db: Db,
  realms: Realms,
  router: EventRouter,
  onDropped: (queueId: string, realmId: number, err: unknown) => void,
): Promise<RestoreOutcome> {
  const rows = await db.eventQueues.all();
  const loaded = new Set<number>();
  for (const realmId of new Set(rows.map((r) => r.realmId))) {
    try {
      await realms.get(realmId);
      loaded.add(realmId);
    } catch (err) {
      for (const r of rows) if (r.realmId === realmId) onDropped(r.queueId, realmId, err);
    }
  }
  const done: string[] = [];
  let restored = 0;
  for (const row of rows) {
    if (!loaded.has(row.realmId)) continue;
    done.push(row.queueId);
    try {
      if (router.restore(row.dump)) restored++;
      else onDropped(row.queueId, row.realmId, new Error('the dump does not decode, or its queue is already live'));
    } catch (err) {
      onDropped(row.queueId, row.realmId, err);
    }
  }
  await db.eventQueues.remove(done);
  return { restored, dropped: done.length - restored, kept: rows.length - done.length };
}

/** Resolves narrow operands against a realm's working set (users by email or ID). */
export function narrowResolver(realms: Realms) {
  return (realmId: number, userId: number): NarrowResolver => {
    const state = realms.stateIfLoaded(realmId);
    const viewer = state?.usersById.get(userId) ?? null;
    return {
      channelByNameOrId: (x) => (typeof x === 'number' ? state?.channels.byId.get(x) : state?.channels.channelByName(x)),
      userByEmailOrId: (x) => (typeof x !== 'number' ? state && userByEmailFor(state, viewer, x) : state?.usersById.get(x)),
    };
  };
}
