// Event-socket tickets in PostgreSQL: one use, one queue, one realm, within their lifetime (the database's clock);
// only a digest is stored; expired ones are dropped as new ones are issued.
import test from 'ava';
import { SocketTickets, TICKET_TTL_MS } from '../../src/http/events-socket-tickets.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
let store: SocketTickets;
let realmId: number;
let userId: number;

test.before(async () => {
  s = await startTestServer();
  const { db } = s.server.services;
  store = new SocketTickets(db);
  ({ realmId, userId } = await db.one<{ realmId: number; userId: number }>('SELECT realm_id AS "realmId", id AS "userId" FROM users ORDER BY id LIMIT 1'));
});
test.after.always(async () => {
  await s?.close();
});

/** Moves every stored ticket's expiry `ms` earlier (time passing, as the database sees it). */
async function age(ms: number): Promise<void> {
  await s.server.services.db.none("UPDATE event_socket_tickets SET expires_at = expires_at - $1 * interval '1 millisecond'", [ms]);
}

test.serial('a ticket names its user for its realm and queue, once; only its digest is stored', async (t) => {
  const ticket = await store.issue(realmId, userId, 'q');
  const rows = await s.server.services.db.any('SELECT encode(digest, $1) AS d FROM event_socket_tickets', ['base64']);
  t.false(rows.some((r) => (r.d as string).includes(ticket)), 'the ticket itself is not in the database');
  t.is(await store.redeem(ticket, realmId, 'q'), userId);
  t.is(await store.redeem(ticket, realmId, 'q'), null, 'spent');
});

test.serial('a ticket for another queue or realm is refused, and spent by the try', async (t) => {
  const a = await store.issue(realmId, userId, 'q');
  t.is(await store.redeem(a, realmId, 'other'), null);
  t.is(await store.redeem(a, realmId, 'q'), null);
  const b = await store.issue(realmId, userId, 'q');
  t.is(await store.redeem(b, realmId + 1, 'q'), null);
  t.is(await store.redeem(b, realmId, 'q'), null);
  t.is(await store.redeem('made-up', realmId, 'q'), null);
});

test.serial('a ticket expires after its lifetime; expired ones are dropped as new ones are issued', async (t) => {
  const { db } = s.server.services;
  await db.none('DELETE FROM event_socket_tickets');
  const old = await store.issue(realmId, userId, 'q');
  await age(TICKET_TTL_MS);
  t.is(await store.redeem(old, realmId, 'q'), null);
  await store.issue(realmId, userId, 'q');
  await age(TICKET_TTL_MS + 1);
  const fresh = await store.issue(realmId, userId, 'q');
  t.is((await db.one<{ n: number }>('SELECT count(*)::int AS n FROM event_socket_tickets')).n, 1);
  t.is(await store.redeem(fresh, realmId, 'q'), userId);
});

test.serial('two tries of one ticket at the same time: exactly one gets the user', async (t) => {
  const ticket = await store.issue(realmId, userId, 'q');
  const got = await Promise.all(Array.from({ length: 8 }, () => store.redeem(ticket, realmId, 'q')));
  t.deepEqual(got.filter((u) => u !== null), [userId]);
});
