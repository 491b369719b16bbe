// POST /realm/deactivate over HTTP: owners only; open event queues get the reference's realm event, and every later
// request of the organization is refused with REALM_DEACTIVATED.
import test from 'ava';
import { ROLE } from '../../src/model/realm.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

test('administrators are refused, a bad deletion delay is refused, then an owner deactivates the organization', async (t) => {
  const admin = await addUser(s, { role: ROLE.ADMINISTRATOR });
  const member = await addUser(s, { role: ROLE.MEMBER });
  for (const who of [admin, member]) {
    const r = await s.client.as(who).post('/realm/deactivate');
    t.is(r.status, 400);
    t.like(r.json, { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' });
  }
  const soon = await s.client.as(s.owner).post('/realm/deactivate', { form: { deletion_delay_days: '3' } });
  t.like(soon.json, { code: 'BAD_REQUEST', msg: 'Data deletion time must be at least 14 days in the future.' });

  t.is((await s.client.as(s.owner).patch('/realm', { form: { enable_spectator_access: 'true' } })).status, 200);
  t.is((await s.client.post('/register', { form: {} })).status, 200);
  const queue = (await s.client.as(member).post('/register', { form: { event_types: '["realm"]' } })).json;
  const parked = s.client.as(member).get('/events', { query: { queue_id: queue.queue_id, last_event_id: '-1' } });
  const done = await s.client.as(s.owner).post('/realm/deactivate');
  t.is(done.status, 200, done.text);
  const delivered = await parked;
  t.like(delivered.json.events[0], { type: 'realm', op: 'deactivated', realm_id: 1 });

  for (const who of [s.owner, member]) {
    const r = await s.client.as(who).get('/users/me');
    t.is(r.status, 401);
    t.like(r.json, { result: 'error', code: 'REALM_DEACTIVATED', msg: 'This organization has been deactivated' });
  }
  const spectator = await s.client.post('/register', { form: {} });
  t.is(spectator.status, 401);
  t.like(spectator.json, { code: 'REALM_DEACTIVATED' });
  const poll = await s.client.as(member).get('/events', { query: { queue_id: queue.queue_id, last_event_id: '0', dont_block: 'true' } });
  t.like(poll.json, { code: 'REALM_DEACTIVATED' });
});
