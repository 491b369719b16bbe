// PATCH /users/me/subscriptions: subscribing and unsubscribing in one request, in one transaction.
import test from 'ava';
import type { TestServer } from '../helpers/server.js';
import { type Cast, createChannel, jsonForm, ofType, recordEvents, startChannelsServer, uniqueName } from './helpers.js';

let s: TestServer;
let cast: Cast;

test.before(async () => {
  ({ s, cast } = await startChannelsServer());
});
test.after.always(() => s?.close());

const patch = (as: { email: string; apiKey: string }, form: Record<string, unknown>) =>
  s.client.as(as).patch('/users/me/subscriptions', { form: jsonForm(form) });
const mine = async (as: { email: string; apiKey: string }) =>
  ((await s.client.as(as).get('/users/me/subscriptions')).json.subscriptions as { name: string }[]).map((x) => x.name);

test.serial('add and delete in one request: both done, both announced', async (t) => {
  const joining = uniqueName('joining');
  const leaving = uniqueName('leaving');
  await createChannel(s, cast.admin, joining, [cast.admin.id]);
  await createChannel(s, cast.admin, leaving, [cast.admin.id, cast.member.id]);
  const events = recordEvents(s);
  const r = await patch(cast.member, { add: [{ name: joining }], delete: [leaving] });
  t.deepEqual(r.json, {
    result: 'success',
    msg: '',
    subscribed: { [cast.member.id]: [joining] },
    already_subscribed: {},
    removed: [leaving],
    not_removed: [],
  });
  const published = events.take();
  events.stop();
  t.is(ofType(published, 'subscription', 'add').length, 1);
  t.is(ofType(published, 'subscription', 'remove').length, 1);
  const names = await mine(cast.member);
  t.true(names.includes(joining));
  t.false(names.includes(leaving));
});

test.serial('only one of the two, and a channel that does not exist yet is created', async (t) => {
  const fresh = uniqueName('made by patch');
  const r = await patch(cast.member, { add: [{ name: fresh, description: 'new' }] });
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json.removed, []);
  t.deepEqual(r.json.subscribed, { [cast.member.id]: [fresh] });
  const left = await patch(cast.member, { delete: [fresh] });
  t.deepEqual([left.json.removed, left.json.subscribed], [[fresh], {}]);
});

test.serial('a refused half refuses the whole: nothing is subscribed', async (t) => {
  const joining = uniqueName('not joined');
  await createChannel(s, cast.admin, joining, [cast.admin.id]);
  const r = await patch(cast.member, { add: [{ name: joining }], delete: ['no such channel anywhere'] });
  t.is(r.status, 400);
  t.is(r.json.code, 'STREAM_DOES_NOT_EXIST');
  t.false((await mine(cast.member)).includes(joining));
});

test('neither add nor delete: the reference error', async (t) => {
  const r = await patch(cast.member, {});
  t.deepEqual(r.json, { result: 'error', msg: 'Nothing to do. Specify at least one of "add" or "delete".', code: 'BAD_REQUEST' });
});
