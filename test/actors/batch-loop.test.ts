// The batch loop on its own, as retention uses it: a sweep walks every realm with expiring messages, each until a
// short batch, and a realm that cannot be reached ends the sweep with the error (the next sweep tries again).
import test from 'ava';
import { createActor, toPromise } from 'xstate';
import { batchLoopMachine } from '../../src/actors/batch-loop.machine.js';
import { retentionSweep } from '../../src/actors/retention.machine.js';
import type { Db } from '../../src/persistence/db.js';
import type { Realms } from '../../src/actors/realms.js';

const sweepMachine = batchLoopMachine('retentionSweep');

/** Realms whose expired messages number `expired[realmId]`; records each batch as its realm id. */
function fakeRealms(expired: Record<number, number>, unreachable: number[] = []) {
  const batches: number[] = [];
  const db = { channels: { realmsWithRetention: async () => Object.keys(expired).map(Number) } } as unknown as Db;
  const realms: Pick<Realms, 'get'> = {
    get: async (realmId) => {
      if (unreachable.includes(realmId)) throw new Error(`realm ${realmId} unavailable`);
      return {
        dispatch: async (_kind: string, input: { batchSize: number }) => {
          batches.push(realmId);
          const deleted = Math.min(input.batchSize, expired[realmId]!);
          expired[realmId]! -= deleted;
          return { deleted };
        },
      } as never;
    },
  };
  return { db, realms, batches };
}

test('a sweep deletes realm after realm, each until a short batch, and counts what went', async (t) => {
  const { db, realms, batches } = fakeRealms({ 1: 5, 2: 0, 3: 4 });
  const out = await toPromise(createActor(sweepMachine, { input: retentionSweep(db, realms, 2) }).start());
  t.deepEqual(out, { complete: true, count: 9, error: null });
  // Realm 1: 2, 2, 1 (short); realm 2: 0 (short); realm 3: 2, 2, 0 (an exact multiple needs one more batch).
  t.deepEqual(batches, [1, 1, 1, 2, 3, 3, 3]);
});

test('no realm with retention: one step, nothing deleted', async (t) => {
  const { db, realms, batches } = fakeRealms({});
  t.deepEqual(await toPromise(createActor(sweepMachine, { input: retentionSweep(db, realms, 2) }).start()), { complete: true, count: 0, error: null });
  t.deepEqual(batches, []);
});

test('a realm that cannot be reached ends the sweep with its error', async (t) => {
  const { db, realms, batches } = fakeRealms({ 1: 1, 2: 3 }, [2]);
  const out = await toPromise(createActor(sweepMachine, { input: retentionSweep(db, realms, 2) }).start());
  t.false(out.complete);
  t.is(out.count, 1);
  t.regex(String(out.error), /realm 2 unavailable/);
  t.deepEqual(batches, [1]);
});
