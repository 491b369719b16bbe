// The owner's side of replication and fencing, on a real NATS and PostgreSQL: the batches a realm's owner commits in
// one turn travel in one NATS message, in commit order; a realm transaction checks its lease after its work, so a takeover during the work refuses it and
// nothing of it commits.
import test from 'ava';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { setImmediate as turn } from 'node:timers/promises';
import { ensureNats, type Nats } from '../../bench/lib/nats.js';
import type { Realms } from '../../src/actors/realms.js';
import { isFenced, Leases } from '../../src/cluster/leases.js';
import { RealmOwnership, realmKey, type PublishedBatch } from '../../src/cluster/owners.js';
import { decode, decodeBatches, encode, Subjects } from '../../src/cluster/wire.js';
import { createLogger } from '../../src/log.js';
import { createDatabase, type Database } from '../../src/persistence/db.js';
import { migrate } from '../../src/persistence/migrate.js';
import { createTestDatabase, type TestDatabase } from '../helpers/database.js';

let scratch: TestDatabase;
let database: Database;
let nats: Nats;
let owner: NatsConnection;
let other: NatsConnection;
const subjects = new Subjects(`publish${process.pid}`);

test.before(async () => {
  scratch = await createTestDatabase();
  database = createDatabase(scratch.url, { max: 6 });
  await migrate(database.db);
  await database.db.none('CREATE TABLE realm_writes (v text)');
  nats = await ensureNats();
  owner = await connect({ servers: nats.url, noEcho: true });
  other = await connect({ servers: nats.url });
});

test.after.always(async () => {
  await owner?.close();
  await other?.close();
  await nats?.stop();
  await database?.close();
  await scratch?.drop();
});

/** An owner of `realmId` (its lease taken in the database); its realm actor is not needed here. */
async function ownerOf(realmId: number, node: string): Promise<{ ownership: RealmOwnership; leases: Leases }> {
  const leases = new Leases(database.db, node, 60_000);
  const ownership = new RealmOwnership(owner, subjects, leases, 2000, createLogger('silent'));
  ownership.realms = { reload: async () => undefined, get: async () => undefined } as unknown as Realms;
  if (!(await ownership.claim(realmId))) throw new Error(`realm ${realmId} was not claimed`);
  return { ownership, leases };
}

const batchEvent = (n: number) => [{ event: { kind: 'typing', op: 'start', n }, users: [] }] as unknown as PublishedBatch['events'];

test.serial("one turn's batches go out in one message, in commit order, counted by the owner's position", async (t) => {
  const realmId = 1;
  const { ownership } = await ownerOf(realmId, 'owner-1');
  const messages: PublishedBatch[][] = [];
  const sub = other.subscribe(subjects.batches(realmId), { callback: (err, msg) => void (err || messages.push(decodeBatches<PublishedBatch>(msg.data))) });
  await other.flush();
  // Three batches settle in one turn (as a pipeline's do when their commits land together), with shared references
  // and a Map, which structured cloning keeps. They settle on a message the owner receives just before a request for
  // its position: the position counts them, and they reached the other process first.
  const shared = { id: 7 };
  const settle = owner.subscribe(`${subjects.batches(realmId)}.settle`, {
    callback: () => {
      ownership.publish('owner-1', realmId, [{ kind: 'item.add', value: { a: shared, b: shared, m: new Map([[1, 'x']]) } }], batchEvent(1), '101');
      ownership.publish('owner-1', realmId, [], batchEvent(2), null);
      ownership.publish('owner-1', realmId, [{ kind: 'item.add', value: 3 }], batchEvent(3), '103');
    },
  });
  await owner.flush();
  other.publish(`${subjects.batches(realmId)}.settle`);
  const position = decode<{ epoch: number; seq: number }>((await other.request(subjects.position(realmId), encode(null), { timeout: 5000 })).data);
  settle.unsubscribe();
  t.is(position.seq, 3);
  t.is(messages.length, 1, 'the batches arrived before the position, in one message');
  t.deepEqual(messages[0]!.map((b) => b.seq), [1, 2, 3]);
  const first = messages[0]![0]!.applied[0]![1] as { a: object; b: object; m: Map<number, string> };
  t.is(first.a, first.b, 'a shared reference stays shared');
  t.is(first.m.get(1), 'x');
  t.deepEqual(messages[0]!.map((b) => b.commitId), ['101', null, '103']);
  // A batch of a later turn is a message of its own, sent once the turn's I/O is done.
  await turn();
  ownership.publish('owner-1', realmId, [], batchEvent(4), null);
  await turn();
  await other.flush();
  await owner.flush();
  for (let i = 0; i < 50 && messages.length < 2; i++) await new Promise((r) => setTimeout(r, 20));
  t.deepEqual(messages.map((m) => m.map((b) => b.seq)), [[1, 2, 3], [4]]);
  sub.unsubscribe();
  await ownership.releaseAll();
});

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
