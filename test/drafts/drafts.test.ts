// Drafts over HTTP: the Draft object's rules, create/list/edit/delete, drafts events, and turning
// enable_drafts_synchronization off.
import test from 'ava';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';
import { makeChannel, uniqueName } from '../messages/helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const create = (as: Credentials, drafts: unknown[]) => s.client.as(as).post('/drafts', { form: { drafts: JSON.stringify(drafts) } });
const list = async (as: Credentials) => (await s.client.as(as).get('/drafts')).json;
const edit = (as: Credentials, id: number, draft: unknown) => s.client.as(as).patch(`/drafts/${id}`, { form: { draft: JSON.stringify(draft) } });

async function userWithChannel(): Promise<{ user: TestUser; channelId: number }> {
  const user = await addUser(s);
  const channelId = await makeChannel(s, uniqueName('drafts'), [user.id]);
  return { user, channelId };
}

test('E10: drafts of every type are created in order, returned by ID, and listed newest edit first', async (t) => {
  const { user, channelId } = await userWithChannel();
  const friend = await addUser(s);
  const r = await create(user, [
    { type: 'stream', to: [channelId], topic: 'plans', content: 'first', timestamp: 1_595_479_019 },
    { type: 'private', to: [friend.id], topic: '', content: 'second', timestamp: 1_595_479_020 },
    { type: '', to: [], topic: '', content: 'third', timestamp: 1_595_479_021 },
  ]);
  t.is(r.status, 200, r.text);
  t.is(r.json.ids.length, 3);
  t.true(r.json.ids[0] < r.json.ids[1] && r.json.ids[1] < r.json.ids[2]);
  const got = await list(user);
  t.is(got.count, 3);
  t.deepEqual(got.drafts, [
    { id: r.json.ids[2], type: '', to: [], topic: '', content: 'third', timestamp: 1_595_479_021 },
    { id: r.json.ids[1], type: 'private', to: [friend.id], topic: '', content: 'second', timestamp: 1_595_479_020 },
    { id: r.json.ids[0], type: 'stream', to: [channelId], topic: 'plans', content: 'first', timestamp: 1_595_479_019 },
  ]);
});

test('E10: the server fills in the timestamp when absent; drafts param absent creates nothing', async (t) => {
  const user = await addUser(s);
  const before = Math.floor(Date.now() / 1000);
  const r = await create(user, [{ type: '', to: [], topic: '', content: 'no time' }]);
  t.is(r.status, 200, r.text);
  const [d] = (await list(user)).drafts;
  t.true(d.timestamp >= before && d.timestamp <= Math.ceil(Date.now() / 1000));
  const empty = await s.client.as(user).post('/drafts');
  t.is(empty.status, 200);
  t.deepEqual(empty.json.ids, []);
});

test('E10: a channel draft needs exactly one channel ID, and one the user may see', async (t) => {
  const { user, channelId } = await userWithChannel();
  for (const to of [[], [channelId, channelId + 1]]) {
    const r = await create(user, [{ type: 'stream', to, topic: 't', content: 'c' }]);
    t.is(r.status, 400);
    t.deepEqual(r.json, { result: 'error', msg: 'Must specify exactly 1 channel ID for channel messages', code: 'BAD_REQUEST' });
  }
  const hidden = await makeChannel(s, uniqueName('secret'), [], { inviteOnly: true });
  const r = await create(user, [{ type: 'stream', to: [hidden], topic: 't', content: 'c' }]);
  t.is(r.status, 400);
  t.is(r.json.msg, 'Invalid channel ID');
  t.is((await list(user)).count, 0, 'a refused batch stores nothing');
});

test('E10: null bytes in topic or content are refused', async (t) => {
  const { user, channelId } = await userWithChannel();
  const topic = await create(user, [{ type: 'stream', to: [channelId], topic: 'a\u0000b', content: 'c' }]);
  t.is(topic.status, 400);
  t.is(topic.json.msg, 'Topic must not contain null bytes');
  const content = await create(user, [{ type: '', to: [], topic: '', content: 'a\u0000b' }]);
  t.is(content.status, 400);
  t.is(content.json.msg, 'Content must not contain null bytes');
});

test('E10: id is refused on create and on edit; other malformed drafts are refused', async (t) => {
  const user = await addUser(s);
  const withId = await create(user, [{ id: 5, type: '', to: [], topic: '', content: 'x' }]);
  t.is(withId.status, 400);
  t.is(withId.json.code, 'BAD_REQUEST');
  t.regex(withId.json.msg, /id/);
  const ok = await create(user, [{ type: '', to: [], topic: '', content: 'x' }]);
  const editWithId = await edit(user, ok.json.ids[0], { id: ok.json.ids[0], type: '', to: [], topic: '', content: 'y' });
  t.is(editWithId.status, 400);
  for (const bad of [
    { type: 'group', to: [], topic: '', content: 'x' },
    { type: '', to: [], topic: '', content: '   ' },
    { type: '', to: [], content: 'x' },
    { type: '', to: [], topic: '', content: 'x', timestamp: -1 },
    { type: 'private', to: [999_999], topic: '', content: 'x' },
  ]) {
    const r = await create(user, [bad]);
    t.is(r.status, 400, JSON.stringify(bad));
  }
  t.is((await create(user, [{ type: '', to: [], topic: '', content: 'x', timestamp: -1 }])).json.msg, 'Timestamp must not be negative.');
  t.is((await create(user, [{ type: 'private', to: [999_999], topic: '', content: 'x' }])).json.msg, 'Invalid user ID 999999');
});

test('E10: direct drafts list the other participants; without recipients they are unaddressed; topics are ignored', async (t) => {
  const user = await addUser(s);
  const a = await addUser(s);
  const b = await addUser(s);
  const r = await create(user, [
    { type: 'private', to: [b.id, a.id, user.id, a.id], topic: 'ignored', content: 'group', timestamp: 3 },
    { type: 'private', to: [user.id], topic: '', content: 'note to self', timestamp: 2 },
    { type: 'private', to: [], topic: '', content: 'nobody yet', timestamp: 1 },
  ]);
  t.is(r.status, 200, r.text);
  const drafts = (await list(user)).drafts;
  t.deepEqual(
    drafts.map((d: any) => [d.type, d.to, d.topic]),
    [
      ['private', [a.id, b.id].sort((x, y) => x - y), ''],
      ['private', [user.id], ''],
      ['', [], ''],
    ],
  );
});

test('PATCH /drafts/{id} replaces a draft; DELETE removes it; other users and unknown IDs get "Draft does not exist"', async (t) => {
  const { user, channelId } = await userWithChannel();
  const stranger = await addUser(s);
  const id = (await create(user, [{ type: '', to: [], topic: '', content: 'v1', timestamp: 10 }])).json.ids[0];
  const r = await edit(user, id, { type: 'stream', to: [channelId], topic: 'now addressed', content: 'v2', timestamp: 20 });
  t.is(r.status, 200, r.text);
  t.deepEqual((await list(user)).drafts, [{ id, type: 'stream', to: [channelId], topic: 'now addressed', content: 'v2', timestamp: 20 }]);
  const notYours = await edit(stranger, id, { type: '', to: [], topic: '', content: 'hijack' });
  t.is(notYours.status, 404);
  t.deepEqual(notYours.json, { result: 'error', msg: 'Draft does not exist', code: 'BAD_REQUEST' });
  t.is((await s.client.as(stranger).delete(`/drafts/${id}`)).status, 404);
  const del = await s.client.as(user).delete(`/drafts/${id}`);
  t.is(del.status, 200);
  t.is((await list(user)).count, 0);
  const again = await s.client.as(user).delete(`/drafts/${id}`);
  t.is(again.status, 404);
  t.is(again.json.msg, 'Draft does not exist');
  t.is((await edit(user, id, { type: '', to: [], topic: '', content: 'gone' })).status, 404);
});

test('drafts events: add, update and remove reach the user\'s clients and keep a register snapshot current', async (t) => {
  const user = await addUser(s);
  let id = 0;
  const added = await verifyAction(t, s, user, async () => {
    id = (await create(user, [{ type: '', to: [], topic: '', content: 'hello', timestamp: 100 }])).json.ids[0];
  }, { eventTypes: ['drafts'] });
  t.deepEqual(added.map(({ id: _id, ...e }) => e), [
    { type: 'drafts', op: 'add', drafts: [{ id, type: '', to: [], topic: '', content: 'hello', timestamp: 100 }] },
  ]);
  const updated = await verifyAction(t, s, user, () => edit(user, id, { type: '', to: [], topic: '', content: 'edited', timestamp: 200 }), {
    eventTypes: ['drafts'],
  });
  t.deepEqual(updated.map(({ id: _id, ...e }) => e), [
    { type: 'drafts', op: 'update', draft: { id, type: '', to: [], topic: '', content: 'edited', timestamp: 200 } },
  ]);
  const removed = await verifyAction(t, s, user, () => s.client.as(user).delete(`/drafts/${id}`), { eventTypes: ['drafts'] });
  t.deepEqual(removed.map(({ id: _id, ...e }) => e), [{ type: 'drafts', op: 'remove', draft_id: id }]);
});

test('another user\'s clients get no drafts events', async (t) => {
  const user = await addUser(s);
  const other = await addUser(s);
  const events = await verifyAction(t, s, other, () => create(user, [{ type: '', to: [], topic: '', content: 'private' }]), {
    eventTypes: ['drafts'],
  });
  t.deepEqual(events.filter((e) => e.type === 'drafts'), []);
});

test('turning enable_drafts_synchronization off deletes the stored drafts; with it off the endpoints refuse', async (t) => {
  const user = await addUser(s);
  await create(user, [
    { type: '', to: [], topic: '', content: 'one' },
    { type: '', to: [], topic: '', content: 'two' },
  ]);
  t.is((await list(user)).count, 2);
  await verifyAction(t, s, user, async () => {
    const r = await s.client.as(user).patch('/settings', { form: { enable_drafts_synchronization: 'false' } });
    t.is(r.status, 200, r.text);
  }, { eventTypes: ['drafts', 'user_settings'] });
  const count = await s.server.services.db.one('SELECT count(*)::int AS n FROM drafts WHERE user_id = $1', [user.id]);
  t.is(count.n, 0);
  const refused = await s.client.as(user).get('/drafts');
  t.is(refused.status, 400);
  t.is(refused.json.msg, 'User has disabled synchronizing drafts.');
  t.is((await create(user, [{ type: '', to: [], topic: '', content: 'x' }])).json.msg, 'User has disabled synchronizing drafts.');
  const reg = await s.client.as(user).post('/register', { form: { fetch_event_types: JSON.stringify(['drafts']) } });
  t.deepEqual(reg.json.drafts, []);
  // Turning it back on starts from nothing.
  await s.client.as(user).patch('/settings', { form: { enable_drafts_synchronization: 'true' } });
  t.deepEqual(await list(user), { result: 'success', msg: '', count: 0, drafts: [] });
});
