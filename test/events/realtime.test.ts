// Real-time over HTTP: register, long-polling GET /events, DELETE /events, routing with event_types, narrow,
// capabilities and local echo, heartbeats and expiry, and spectators.
import test from 'ava';
import type { RealmEvent } from '../../src/bus/events.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';

let s: TestServer;
let realmId: number;

test.before(async () => {
  s = await startTestServer();
  realmId = s.server.services.realms.directory[0]!.id;
});

/** Fresh users for each test: tests run concurrently and must not see each other's events. */
async function people(): Promise<{ alice: TestUser; bob: TestUser }> {
  return { alice: await addUser(s, { fullName: 'Alice' }), bob: await addUser(s, { fullName: 'Bob' }) };
}
test.after.always(async () => s?.close());

function publish(...events: RealmEvent[]) {
  s.server.services.hub.publishEvents(realmId, events);
}

async function register(creds: TestUser | typeof s.owner, form: Record<string, string> = {}) {
  const r = await s.client.as(creds).post('/register', { form });
  if (r.status !== 200) throw new Error(r.text);
  return r.json;
}

function poll(creds: TestUser | typeof s.owner, queueId: string, lastEventId: number, dontBlock = false) {
  return s.client.as(creds).get('/events', {
    query: { queue_id: queueId, last_event_id: String(lastEventId), dont_block: String(dontBlock) },
  });
}

test('register returns a queue, the API level, limits and the snapshot sections', async (t) => {
  const { alice, bob } = await people();
  const r = await register(alice);
  t.regex(r.queue_id, /.+:.+/);
  t.is(r.last_event_id, -1);
  t.is(r.service_feature_level, 419);
  t.is(typeof r.service_version, 'string');
  t.is(r.max_message_length, 10000);
  t.is(r.max_topic_length, 60);
  t.is(r.max_stream_name_length, 60);
  t.is(r.max_stream_description_length, 1024);
  t.is(r.max_file_upload_size_mib, 25);
  t.is(r.event_queue_longpoll_timeout_seconds, 90);
  t.is(r.realm_empty_topic_display_name, 'general chat');
  t.is(r.realm_name, 'Palaver');
  t.is(r.realm_url, `http://127.0.0.1:${s.port}`);
  t.is(typeof r.realm_can_create_groups, 'number', 'permission settings are group-setting values');
  t.is(r.user_id, alice.id);
  t.is(r.full_name, 'Alice');
  t.false(r.is_admin);
  const names = r.realm_users.map((u: { full_name: string }) => u.full_name);
  t.true(names.filter((n: string) => n === 'Alice').length >= 1 && names.includes('Bob'));
  t.is(r.realm_users.find((u: { user_id: number }) => u.user_id === alice.id).avatar_url, null, 'client_gravatar defaults to true');
  t.is(r.realm_user_groups.length, 7);
  const members = r.realm_user_groups.find((g: { name: string }) => g.name === 'role:fullmembers').members;
  t.true(members.includes(alice.id));
});

test('fetch_event_types picks the sections; event_types is the fallback', async (t) => {
  const { alice, bob } = await people();
  const onlyRealm = await register(alice, { fetch_event_types: '["realm"]' });
  t.truthy(onlyRealm.realm_name);
  t.false('realm_users' in onlyRealm);
  const viaEventTypes = await register(alice, { event_types: '["realm_user"]' });
  t.truthy(viaEventTypes.realm_users);
  t.false('realm_name' in viaEventTypes);
  const unknownIgnored = await register(alice, { fetch_event_types: '["no_such_type"]' });
  t.truthy(unknownIgnored.queue_id);
});

test('register: bad parameters are envelopes', async (t) => {
  const { alice, bob } = await people();
  const bad = await s.client.as(alice).post('/register', { form: { event_types: 'message' } });
  t.is(bad.status, 400);
  t.is(bad.json.msg, 'Argument "event_types" is not valid JSON.');
  const caps = await s.client.as(alice).post('/register', { form: { client_capabilities: '{"no_such_cap":true}' } });
  t.is(caps.status, 400);
  const narrow = await s.client.as(alice).post('/register', { form: { narrow: '[["is"]]' } });
  t.is(narrow.status, 400);
  const badNarrow = await s.client.as(alice).post('/register', { form: { narrow: '[["frobnicate","x"]]' } });
  t.is(badNarrow.status, 400);
});

test('dont_block answers at once with no events', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice);
  const r = await poll(alice, q.queue_id, -1, true);
  t.is(r.status, 200);
  t.deepEqual(r.json.events, []);
  t.is(r.json.queue_id, q.queue_id);
});

test('an event answers a parked poll at once; ids increase; acknowledged events are pruned', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice);
  const parked = poll(alice, q.queue_id, -1);
  await new Promise((r) => setTimeout(r, 50));
  publish({ event: { type: 'custom_test', n: 1 }, users: [alice.id] });
  const r = await parked;
  t.deepEqual(r.json.events, [{ type: 'custom_test', n: 1, id: 0 }]);
  publish({ event: { type: 'custom_test', n: 2 }, users: [alice.id] }, { event: { type: 'custom_test', n: 3 }, users: [alice.id] });
  const again = await poll(alice, q.queue_id, -1, true);
  t.deepEqual(again.json.events.map((e: { id: number }) => e.id), [0, 1, 2], 'unacknowledged events are sent again');
  const acked = await poll(alice, q.queue_id, 0, true);
  t.deepEqual(acked.json.events.map((e: { n: number }) => e.n), [2, 3]);
});

test('events reach only their recipients', async (t) => {
  const { alice, bob } = await people();
  const qa = await register(alice);
  const qb = await register(bob);
  publish({ event: { type: 'custom_test', to: 'bob' }, users: [bob.id] });
  t.deepEqual((await poll(alice, qa.queue_id, -1, true)).json.events, []);
  t.is((await poll(bob, qb.queue_id, -1, true)).json.events.length, 1);
});

test('per-recipient flags are merged into that recipient’s copy only', async (t) => {
  const { alice, bob } = await people();
  const qa = await register(alice);
  const qb = await register(bob);
  publish({ event: { type: 'custom_test' }, users: [{ id: alice.id, flags: ['read'] }, { id: bob.id, flags: [] }] });
  t.deepEqual((await poll(alice, qa.queue_id, -1, true)).json.events[0].flags, ['read']);
  t.deepEqual((await poll(bob, qb.queue_id, -1, true)).json.events[0].flags, []);
});

test('event_types filters what a queue receives', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice, { event_types: '["wanted"]' });
  publish({ event: { type: 'unwanted' }, users: [alice.id] }, { event: { type: 'wanted' }, users: [alice.id] });
  t.deepEqual((await poll(alice, q.queue_id, -1, true)).json.events.map((e: { type: string }) => e.type), ['wanted']);
});

test('without a capability a queue receives the legacy form; with it, the modern one', async (t) => {
  const { alice, bob } = await people();
  const modern = await register(alice, { client_capabilities: '{"bulk_message_deletion":true}' });
  const legacy = await register(alice);
  publish({
    event: { type: 'delete_message', message_ids: [5, 6] },
    users: [alice.id],
    legacy: { bulk_message_deletion: [{ type: 'delete_message', message_id: 5 }, { type: 'delete_message', message_id: 6 }] },
  });
  t.deepEqual((await poll(alice, modern.queue_id, -1, true)).json.events, [{ type: 'delete_message', message_ids: [5, 6], id: 0 }]);
  t.deepEqual((await poll(alice, legacy.queue_id, -1, true)).json.events, [
    { type: 'delete_message', message_id: 5, id: 0 },
    { type: 'delete_message', message_id: 6, id: 1 },
  ]);
});

test('local_message_id reaches only the sending queue', async (t) => {
  const { alice, bob } = await people();
  const sender = await register(alice);
  const other = await register(alice);
  publish({ event: { type: 'message', message: { id: 1 } }, users: [alice.id], senderQueue: { queueId: sender.queue_id, localId: '123.01' } });
  t.is((await poll(alice, sender.queue_id, -1, true)).json.events[0].local_message_id, '123.01');
  t.false('local_message_id' in (await poll(alice, other.queue_id, -1, true)).json.events[0]);
});

test('all_public_streams queues also get public-channel messages sent to others', async (t) => {
  const { alice, bob } = await people();
  const all = await register(bob, { all_public_streams: 'true' });
  const normal = await register(bob);
  publish({ event: { type: 'message', message: { id: 9, type: 'stream' } }, users: [alice.id], allPublicStreams: true });
  t.is((await poll(bob, all.queue_id, -1, true)).json.events.length, 1);
  t.is((await poll(bob, normal.queue_id, -1, true)).json.events.length, 0);
});

test('a register narrow filters message events', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice, { narrow: '[["is","dm"]]' });
  const facts = { senderId: bob.id, content: 'hi', renderedContent: '<p>hi</p>', hasLink: false, hasAttachment: false, hasImage: false, hasReaction: false };
  const dm = [alice.id, bob.id].sort((a, b) => a - b);
  publish(
    {
      // IDs above every real message's: a message up to the newest at register is in the snapshot, not delivered.
      event: { kind: 'message', message: { id: 1e9 + 20, type: 'stream' }, facts: { ...facts, id: 1e9 + 20, kind: 'stream', channelId: 1, topic: 'x', directRecipients: [], channelIsPublic: true } },
      users: [{ id: alice.id, flags: [] }],
    },
    {
      event: { kind: 'message', message: { id: 1e9 + 21, type: 'private' }, facts: { ...facts, id: 1e9 + 21, kind: 'direct', channelId: null, topic: '', directRecipients: dm, channelIsPublic: false } },
      users: [{ id: alice.id, flags: [] }],
    },
    { event: { type: 'custom_test' }, users: [alice.id] },
  );
  const events = (await poll(alice, q.queue_id, -1, true)).json.events;
  t.deepEqual(events.map((e: { type: string; message?: { id: number } }) => e.message?.id ?? e.type), [1e9 + 21, 'custom_test']);
});

test("a message already in the register snapshot is not delivered to the queue again", async (t) => {
  const { alice, bob } = await people();
  const sent = await s.client.as(bob).post('/messages', { form: { type: 'direct', to: `[${alice.id}]`, content: 'before register' } });
  t.is(sent.status, 200, sent.text);
  const q = await register(alice, { fetch_event_types: '["message","update_message_flags"]', event_types: '["message"]' });
  t.deepEqual(q.unread_msgs.pms.find((p: { other_user_id: number }) => p.other_user_id === bob.id)?.unread_message_ids, [sent.json.id]);
  const facts = { senderId: bob.id, content: 'hi', renderedContent: '<p>hi</p>', hasLink: false, hasAttachment: false, hasImage: false, hasReaction: false };
  const dm = [alice.id, bob.id].sort((a, b) => a - b);
  const message = (id: number): RealmEvent => ({
    event: { kind: 'message', message: { id, type: 'private' }, facts: { ...facts, id, kind: 'direct', channelId: null, topic: '', directRecipients: dm, channelIsPublic: false } },
    users: [{ id: alice.id, flags: [] }],
  });
  // The message's event arriving late (as from a process whose load had read it), then a newer message.
  publish(message(sent.json.id));
  const next = await s.client.as(bob).post('/messages', { form: { type: 'direct', to: `[${alice.id}]`, content: 'after register' } });
  const events = (await poll(alice, q.queue_id, -1, true)).json.events;
  t.deepEqual(events.map((e: { message: { id: number } }) => e.message.id), [next.json.id]);
});

test('BAD_EVENT_QUEUE_ID for unknown queues and other users’ queues', async (t) => {
  const { alice, bob } = await people();
  const unknown = await poll(alice, 'nope:nope', -1, true);
  t.is(unknown.status, 400);
  t.deepEqual(unknown.json, { result: 'error', msg: 'Bad event queue ID: nope:nope', code: 'BAD_EVENT_QUEUE_ID', queue_id: 'nope:nope' });
  const q = await register(alice);
  const stolen = await poll(bob, q.queue_id, -1, true);
  t.is(stolen.json.code, 'BAD_EVENT_QUEUE_ID');
  const delStolen = await s.client.as(bob).delete('/events', { form: { queue_id: q.queue_id } });
  t.is(delStolen.json.code, 'BAD_EVENT_QUEUE_ID');
});

test('DELETE /events removes the queue', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice);
  const del = await s.client.as(alice).delete('/events', { form: { queue_id: q.queue_id } });
  t.is(del.status, 200);
  t.is((await poll(alice, q.queue_id, -1, true)).json.code, 'BAD_EVENT_QUEUE_ID');
});

test('a new poll replaces a parked one, which is answered with no events', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice);
  const first = poll(alice, q.queue_id, -1);
  await new Promise((r) => setTimeout(r, 50));
  const second = poll(alice, q.queue_id, -1);
  t.deepEqual((await first).json.events, []);
  await new Promise((r) => setTimeout(r, 50));
  publish({ event: { type: 'custom_test' }, users: [alice.id] });
  t.is((await second).json.events.length, 1);
});

test.serial('a client that disconnects mid-poll leaves a clean queue that keeps its events', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice);
  const controller = new AbortController();
  const aborted = fetch(`http://127.0.0.1:${s.port}/api/v1/events?queue_id=${encodeURIComponent(q.queue_id)}&last_event_id=-1`, {
    headers: { authorization: 'Basic ' + Buffer.from(`${alice.email}:${alice.apiKey}`).toString('base64') },
    signal: controller.signal,
  }).catch((e) => e);
  await new Promise((r) => setTimeout(r, 100));
  controller.abort();
  await aborted;
  await new Promise((r) => setTimeout(r, 50));
  t.is(s.server.services.longPolls.count, 0, 'no parked response left behind');
  publish({ event: { type: 'custom_test', after: 'abort' }, users: [alice.id] });
  const r = await poll(alice, q.queue_id, -1, true);
  t.deepEqual(r.json.events, [{ type: 'custom_test', after: 'abort', id: 0 }]);
});

// Serial: a sweep reaches every queue of the server; serial tests run before the concurrent ones.
test.serial('a poll that waits a minute gets a heartbeat; ten idle minutes expire the queue', async (t) => {
  const { alice, bob } = await people();
  const q = await register(alice);
  const parked = poll(alice, q.queue_id, -1);
  await new Promise((r) => setTimeout(r, 50));
  s.server.services.queues.sweep(Date.now() + 61_000);
  const r = await parked;
  t.deepEqual(r.json.events, [{ type: 'heartbeat', id: 0 }]);
  // Activity counts from the heartbeat's delivery, at the sweep's clock (now + 61 s).
  s.server.services.queues.sweep(Date.now() + 61_000 + 10 * 60_000 + 1_000);
  const expired = await poll(alice, q.queue_id, 0, true);
  t.is(expired.json.code, 'BAD_EVENT_QUEUE_ID');
});

test('spectators: refused unless the realm allows spectator access; two parameter errors', async (t) => {
  const { alice, bob } = await people();
  const refused = await s.client.post('/register');
  t.is(refused.status, 401);
  t.is(refused.json.code, 'UNAUTHORIZED');
  const { db, realms } = s.server.services;
  await db.none(`UPDATE realms SET settings = settings || '{"enable_spectator_access": true}' WHERE id = $1`, [realmId]);
  await (await realms.get(realmId)).dispatch('realm.reload');
  const ok = await s.client.post('/register');
  t.is(ok.status, 200);
  t.is(ok.json.queue_id, null);
  t.is(ok.json.realm_name, 'Palaver');
  const gravatar = await s.client.post('/register', { form: { client_gravatar: 'true' } });
  t.deepEqual(gravatar.json, { result: 'error', msg: "Invalid 'client_gravatar' parameter for anonymous request", code: 'BAD_REQUEST' });
  const subs = await s.client.post('/register', { form: { include_subscribers: 'true' } });
  t.is(subs.json.msg, "Invalid 'include_subscribers' parameter for anonymous request");
  await db.none(`UPDATE realms SET settings = settings - 'enable_spectator_access' WHERE id = $1`, [realmId]);
  await (await realms.get(realmId)).dispatch('realm.reload');
});

test('one message, several queues: each gets the form its registration asked for', async (t) => {
  const { alice, bob } = await people();
  const html = await register(bob, { apply_markdown: 'true', client_gravatar: 'false' });
  const markdown = await register(bob, { apply_markdown: 'false', client_gravatar: 'true' });
  const htmlAgain = await register(bob, { apply_markdown: 'true', client_gravatar: 'false' });
  const sent = await s.client.as(alice).post('/messages', { form: { type: 'direct', to: JSON.stringify([bob.id]), content: 'hello **bold**' } });
  t.is(sent.status, 200);
  const first = (q: { queue_id: string }) => poll(bob, q.queue_id, -1, true).then((r) => r.json.events[0].message);
  const [a, b, c] = await Promise.all([first(html), first(markdown), first(htmlAgain)]);
  t.is(a.content, '<p>hello <strong>bold</strong></p>');
  t.is(a.content_type, 'text/html');
  t.regex(a.avatar_url, /^https:\/\/secure\.gravatar\.com\//);
  t.is(b.content, 'hello **bold**');
  t.is(b.content_type, 'text/x-markdown');
  t.is(b.avatar_url, null);
  t.deepEqual(c, a, 'queues with the same choices get the same form');
  t.false('rendered_content' in a || 'rendered_content' in b, 'internal fields never reach clients');
});
