// The database a realm's owner writes through (RealmOwnership.fencedDb), on a real PostgreSQL: a realm transaction
// checks its lease after its work, just before its COMMIT, so a takeover during the work refuses it and nothing of it
// commits; under its lease it commits and reports its transaction ID.
import test from 'ava';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { ensureNats, type Nats } from '../../bench/lib/nats.js';
import type { Realms } from '../../src/actors/realms.js';
import { isFenced, Leases } from '../../src/cluster/leases.js';
import { RealmOwnership, realmKey } from '../../src/cluster/owners.js';
import { Subjects } from '../../src/cluster/wire.js';
import { createLogger } from '../../src/log.js';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { migrate } from '../../src/persistence/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let scratch: TestDatabase;
let database: Database;
let nats: Nats;
let nc: NatsConnection;
const subjects = new Subjects(`fenced${process.pid}`);

test.before(async () => {
  scratch = await createTestDatabase();
  database = createDatabase(scratch.url, { max: 6 });
  await migrate(database.db);
  await database.db.none('CREATE TABLE realm_writes (v text)');
  nats = await ensureNats();
  nc = await connect({ servers: nats.url, noEcho: true });
});

test.after.always(async () => {
  await nc?.close();
  await nats?.stop();
  await database?.close();
  await scratch?.drop();
});

/** An owner of `realmId` (its lease taken in the database, its commands subscribed on NATS); no realm actor. */
async function ownerOf(realmId: number, node: string): Promise<{ ownership: RealmOwnership; leases: Leases }> {
  const leases = new Leases(database.db, node, 60_000);
  const ownership = new RealmOwnership(nc, subjects, leases, 2000, createLogger('silent'));
  ownership.realms = { reload: async () => undefined, get: async () => undefined } as unknown as Realms;
  if (!(await ownership.claim(realmId))) throw new Error(`realm ${realmId} was not claimed`);
  return { ownership, leases };
}

test.serial('a takeover while a realm transaction works refuses it at its end, and nothing of it commits', async (t) => {
  const realmId = 3;
  const { ownership, leases } = await ownerOf(realmId, 'owner-3');
  const epoch = leases.epochOf(realmKey(realmId))!;
  const db = ownership.fencedDb(database.db, realmId);
  const err = await t.throwsAsync(
    db.tx(async (tx) => {
      await tx.none("INSERT INTO realm_writes (v) VALUES ('before the takeover')");
      // Another process takes the lease while this transaction works. Were the lease row locked from the start of
      // the transaction, this would wait for it, and it for this: the check comes after the work.
      await database.db.tx(async (other) => {
        await other.none("SET LOCAL lock_timeout = '5s'");
        await other.none("UPDATE cluster_leases SET owner = 'intruder', epoch = epoch + 1 WHERE key = $1", [realmKey(realmId)]);
      });
      await tx.none("INSERT INTO realm_writes (v) VALUES ('after the takeover')");
    }),
  );
  t.true(isFenced(err), String(err));
  t.deepEqual(await database.db.any('SELECT v FROM realm_writes'), [], 'nothing of the fenced transaction committed');
  t.is(leases.epochOf(realmKey(realmId)), undefined, 'the former owner forgot the lease');
  t.false(ownership.owns(realmId));
  t.true(epoch > 0);
  // An owner's transaction under its lease commits, with its transaction ID for the replicas.
  const { ownership: next } = await ownerOf(4, 'owner-4');
  const tag = { name: 'realm-batch', writes: 1 } as { name: 'realm-batch'; writes: number; commitId?: string };
  await next.fencedDb(database.db, 4).tx({ tag }, (tx) => tx.none("INSERT INTO realm_writes (v) VALUES ('owned')"));
  t.deepEqual(await database.db.map('SELECT v FROM realm_writes', [], (r: { v: string }) => r.v), ['owned']);
  t.regex(tag.commitId ?? '', /^\d+$/);
  await next.releaseAll();
});
