// One actor system per server: the operators' actor list is the system's actors (and their children), and shutdown
// stops every one of them — root and realms, event queues, user sessions, scheduled delivery, retention.
import test from 'ava';
import type { Viewed } from '../../src/operators/actor-directory.js';
import { bearer, startOperatorServer } from '../operators/helpers.js';
import { addUser } from '../helpers/users.js';
import type { TestServer } from '../helpers/server.js';

let s: TestServer;
test.before(async () => {
  s = await startOperatorServer();
});
test.after.always(() => s?.close());

test.serial('operators list the actor system\'s actors, and shutdown stops every one', async (t) => {
  const user = await addUser(s);
  const queueId = (await s.client.as(user).post('/register')).json.queue_id as string;
  t.is((await s.client.as(user).post('/users/me/presence', { form: { status: 'active' } })).status, 200);

  const system = s.server.actors;
  const topLevel = [...system.actors()];
  // Event queues are records of the queue registry, shown to operators as actors beside the system's.
  const queues = [...s.server.services.queues.all()];
  const ids = [...topLevel, ...queues].map((a) => a.id).sort();
  for (const id of ['root', 'retention', 'scheduled-delivery', `queue:${queueId}`]) t.true(ids.includes(id), id);
  t.true(ids.some((id) => id.startsWith('session:')));
  const rows = (await s.client.get('/operators/actors', { root: true, headers: bearer(), query: { limit: '10000' } })).json.actors as any[];
  t.deepEqual(rows.filter((r) => r.parent === null).map((r) => r.id).sort(), ids, 'the top-level actors operators see are the system\'s');

  // Children too (the realm actors under the root): everything operators saw must be stopped.
  const everything: Viewed[] = [...s.server.services.operators.actors.all()];
  t.true(everything.some((a) => a.id.startsWith('realm:')));
  await s.stop();
  t.is(system.size, 0);
  t.deepEqual(
    everything.filter((a) => ('getSnapshot' in a ? a.getSnapshot().status : a.status) === 'active').map((a) => a.id),
    [],
    'no actor is left running after shutdown',
  );
});
