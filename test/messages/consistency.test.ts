// The consistency check (test/helpers/verify-action.ts) over the messages domain's operations whose snapshot
// sections the shared reducers follow: max_message_id, user_topics, alert_words, realm_linkifiers.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { verifyAction } from '../helpers/verify-action.js';
import { dm, makeCast, makeChannel, post, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const types = (events: Record<string, any>[]) => events.map((e) => (e.op ? `${e.type}:${e.op}` : e.type));

test.serial('message: a direct message and a new topic (max_message_id, user_topics)', async (t) => {
  const { member, other } = await makeCast(s);
  const direct = await verifyAction(t, s, member, () => dm(s, other, [member.id], 'hello'), { eventTypes: ['message'] });
  t.deepEqual(types(direct), ['message']);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  const started = await verifyAction(t, s, member, () => post(s, member, name, 'brand new', 'first'), { eventTypes: ['message', 'user_topic'] });
  t.deepEqual(types(started), ['user_topic', 'message']);
});

test.serial('alert_words: adding and removing', async (t) => {
  const { member } = await makeCast(s);
  const opts = { eventTypes: ['alert_words'] };
  const add = () => s.client.as(member).post('/users/me/alert_words', { form: { alert_words: '["alpha","beta"]' } });
  t.deepEqual(types(await verifyAction(t, s, member, add, opts)), ['alert_words']);
  const remove = () => s.client.as(member).delete('/users/me/alert_words', { form: { alert_words: '["ALPHA"]' } });
  t.deepEqual(types(await verifyAction(t, s, member, remove, opts)), ['alert_words']);
});

test.serial('realm_linkifiers: add, change, reorder, remove (clients with linkifier_url_template)', async (t) => {
  const { member, admin } = await makeCast(s);
  const opts = { eventTypes: ['realm_linkifiers'], register: { client_capabilities: '{"linkifier_url_template":true}' } };
  let first = 0;
  let second = 0;
  await verifyAction(t, s, member, async () => {
    first = (await s.client.as(admin).post('/realm/filters', { form: { pattern: 'A(?P<n>[0-9]+)', url_template: 'https://a.example/{n}' } })).json.id;
  }, opts);
  await verifyAction(t, s, member, async () => {
    second = (await s.client.as(admin).post('/realm/filters', { form: { pattern: 'B(?P<n>[0-9]+)', url_template: 'https://b.example/{n}' } })).json.id;
  }, opts);
  await verifyAction(t, s, member, () => s.client.as(admin).patch(`/realm/filters/${first}`, { form: { pattern: 'A(?P<n>[0-9]+)', url_template: 'https://a2.example/{n}' } }), opts);
  await verifyAction(t, s, member, () => s.client.as(admin).patch('/realm/linkifiers', { form: { ordered_linkifier_ids: JSON.stringify([second, first]) } }), opts);
  const removed = await verifyAction(t, s, member, () => s.client.as(admin).delete(`/realm/filters/${first}`), opts);
  t.deepEqual(types(removed), ['realm_linkifiers']);
  t.deepEqual(removed[0]!.realm_linkifiers.map((l: { id: number }) => l.id), [second]);
});
