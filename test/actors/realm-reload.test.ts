// A realm actor stopped for a reload (cluster mode: ownership moved) while the server runs: the commands it refused
// before any of them ran are sent to its successor and answered, not failed with 503; at shutdown they still fail.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => {
  await s?.close();
});

test('commands dispatched while the realm reloads are answered by its next actor', async (t) => {
  const { db, realms } = s.server.services;
  const realmId = (await db.realms.byStringId(''))!.id;
  const handle = await realms.get(realmId);
  const before = handle.dispatch('realm.reload');
  // STOP reaches the actor now: every command after it is refused by this actor before any of it runs.
  const reloading = realms.reload(realmId);
  const during = Array.from({ length: 5 }, () => handle.dispatch('realm.reload'));
  const results = await Promise.allSettled([before, ...during]);
  await reloading;
  t.deepEqual(
    results.map((r) => (r.status === 'fulfilled' ? 'ok' : String((r.reason as Error).message))),
    ['ok', 'ok', 'ok', 'ok', 'ok', 'ok'],
  );
  const next = await realms.get(realmId);
  t.not(next, handle, 'a fresh actor serves the realm');
});
