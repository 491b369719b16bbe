// Event queues across a restart (saved at graceful shutdown, restored at start-up), and the narrow resolver
// the router uses for register's narrow.
import type { Realms } from '../actors/realms.js';
import type { NarrowResolver } from '../narrow/index.js';
import type { Db } from '../persistence/db.js';
import { userByEmailFor } from '../realm/user-format.js';
import { dumpQueue } from './queue-dump.js';
import type { QueueRegistry } from './queue-registry.js';
import type { QueueRegistration } from './registration.js';
import type { EventRouter } from './router.js';

export async function saveQueues(db: Db, queues: QueueRegistry, router: EventRouter): Promise<number> {
  const dumps = [];
  for (const q of router.liveQueues()) {
    const actor = queues.get(q.queueId);
    if (actor && actor.getSnapshot().status === 'active') dumps.push({ ...q, dump: dumpQueue(actor.getSnapshot()) });
  }
  await db.eventQueues.save(dumps);
  return dumps.length;
}

export async function restoreQueues(db: Db, queues: QueueRegistry, router: EventRouter) {
  const rows = await db.eventQueues.takeAll();
  return queues.restore(
    rows.map((r) => r.dump),
    (input) => {
      router.restored(input.queueId, input.realmId, input.userId, input.registration as unknown as QueueRegistration);
      return undefined;
    },
  );
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
