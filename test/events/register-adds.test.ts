// register on one process while drafts, saved snippets and scheduled messages are added: each row in the snapshot or
// an add event, never both (src/events/snapshot-adds.ts; the cluster's case is in test/cluster/cluster.test.ts).
import test from 'ava';
import { registerDuringAdds } from '../helpers/register-race.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

test('register while rows of database-read sections are added: each row once, in the snapshot or as an add event', async (t) => {
  const user = await addUser(s);
  await registerDuringAdds(t, { writer: s.client, registrars: [s.client], auth: user, userId: user.id, registrations: 30 });
});
