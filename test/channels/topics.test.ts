// Topics: listing a channel's topics, personal topic policies (POST /user_topics, muted_topics), topic
// deletion in batches by the topic-deletion actor, and the retention actor.
import test from 'ava';
import { createActor } from 'xstate';
import { retentionMachine } from '../../src/actors/retention.machine.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createChannel, insertMessages, makeCast, ofType, realmState, recordEvents, setRealmSettings, sorted, uniqueName, type Cast } from './helpers.js';

let s: TestServer;
let cast: Cast;

test.before(async () => {
  // Tiny topic-deletion batches and no time budget: every request deletes one batch.
  s = await startTestServer({ env: { TOPIC_DELETION_BATCH_SIZE: '2', TOPIC_DELETION_TIME_BUDGET_MS: '0' } });
  cast = await makeCast(s);
});
test.after.always(() => s?.close());

const topics = (as: { email: string; apiKey: string } | null, id: number, query: Record<string, string> = {}) =>
  (as ? s.client.as(as) : s.client).get(`/users/me/${id}/topics`, { query });

test('topics newest first with max_id; one entry per name whatever its case; the empty topic by its display name', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('chatty'), [cast.member.id]);
  const send = (topic: string, n = 1) => insertMessages(s, id, topic, n, { senderId: cast.member.id, recipients: [cast.member.id] });
  await send('lunch', 2);
  const [general] = await send('');
  await send('Plans');
  const [latestPlans] = await send('plans');
  const [lunch] = await send('Lunch');
  const r = await topics(cast.member, id);
  t.deepEqual(r.json, {
    result: 'success',
    msg: '',
    topics: [
      { name: 'Lunch', max_id: lunch },
      { name: 'plans', max_id: latestPlans },
      { name: 'general chat', max_id: general },
    ],
  });
  const raw = await topics(cast.member, id, { allow_empty_topic_name: 'true' });
  t.deepEqual(raw.json.topics.map((x: any) => x.name), ['Lunch', 'plans', '']);
  t.deepEqual((await topics(cast.member, await createChannel(s, cast.member, uniqueName('quiet'), []))).json.topics, []);
});

test('topics need content access; protected history shows only what the user received', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('protected'), [cast.member.id], { invite_only: 'true' });
  await insertMessages(s, id, 'before you came', 1, { senderId: cast.member.id, recipients: [cast.member.id] });
  await s.client.as(cast.member).post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: (await realmState(s)).channels.byId.get(id)!.name }]), principals: JSON.stringify([cast.other.id]) } });
  await insertMessages(s, id, 'after', 1, { senderId: cast.member.id, recipients: [cast.member.id, cast.other.id] });
  t.deepEqual((await topics(cast.member, id)).json.topics.map((x: any) => x.name), ['after', 'before you came']);
  t.deepEqual((await topics(cast.other, id)).json.topics.map((x: any) => x.name), ['after']);
  t.deepEqual((await topics(cast.admin, id)).json, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  const pub = await createChannel(s, cast.member, uniqueName('public'), [cast.member.id]);
  t.is((await topics(cast.guest, pub)).json.msg, 'Invalid channel ID');
  t.is((await topics(cast.admin, pub)).status, 200);
  t.is((await topics(null, pub)).status, 401, 'no spectators while spectator access is off');
});

test.serial('spectators list topics of web-public channels only', async (t) => {
  await setRealmSettings(s, { enable_spectator_access: true });
  try {
    const web = await createChannel(s, cast.owner, uniqueName('web'), [cast.owner.id], { is_web_public: 'true' });
    await insertMessages(s, web, 'hello world', 1, { senderId: cast.owner.id, recipients: [cast.owner.id] });
    t.deepEqual((await topics(null, web)).json.topics.map((x: any) => x.name), ['hello world']);
    const pub = await createChannel(s, cast.owner, uniqueName('pub'), [cast.owner.id]);
    t.is((await topics(null, pub)).json.msg, 'Invalid channel ID');
    t.deepEqual((await topics(cast.guest, web)).json.topics.map((x: any) => x.name), ['hello world']);
  } finally {
    await setRealmSettings(s, { enable_spectator_access: false });
  }
});

test.serial('POST /user_topics: muted, unmuted, followed and back to inherit; unchanged policies publish nothing', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('policies'), [cast.member.id]);
  const set = (topic: string, policy: number | string, channelId = id) =>
    s.client.as(cast.member).post('/user_topics', { form: { stream_id: String(channelId), topic, visibility_policy: String(policy) } });
  const events = recordEvents(s);
  for (const policy of [1, 2, 3]) {
    t.deepEqual((await set('dinner', policy)).json, { result: 'success', msg: '' });
    const [ev] = ofType(events.take(), 'user_topic');
    // empty_topic_display_name is for the router, which names the empty topic for each queue (src/events/queue-form.ts).
    t.deepEqual(Object.keys(ev!.event).sort(), ['empty_topic_display_name', 'last_updated', 'stream_id', 'topic_name', 'type', 'visibility_policy']);
    t.is(ev!.event.stream_id, id);
    t.is(ev!.event.topic_name, 'dinner');
    t.is(ev!.event.visibility_policy, policy);
    t.is(typeof ev!.event.last_updated, 'number');
    t.deepEqual(ev!.users, [cast.member.id]);
  }
  const stored = await s.server.services.db.userTopics.forUser(cast.member.id);
  t.deepEqual(stored.map((x) => [x.channelId, x.topic, x.visibilityPolicy]), [[id, 'dinner', 3]]);
  t.is((await set('DINNER', 3)).status, 200);
  t.deepEqual(events.take(), [], 'the same policy (topic names ignore case) changes nothing');
  t.is((await set('dinner', 0)).status, 200);
  t.is(ofType(events.take(), 'user_topic')[0]!.event.visibility_policy, 0);
  t.deepEqual(await s.server.services.db.userTopics.forUser(cast.member.id), []);

  // "(no topic)" and the display name both mean the empty topic; older clients get the display name.
  t.is((await set('(no topic)', 1)).status, 200);
  const [empty] = ofType(events.take(), 'user_topic');
  t.is(empty!.event.topic_name, '');
  t.is(empty!.event.empty_topic_display_name, 'general chat');
  t.is((await set('general chat', 1)).status, 200);
  t.deepEqual(events.take(), []);
  events.stop();

  t.is((await set('dinner', 4)).json.msg, 'Invalid visibility_policy');
  t.is((await set('t'.repeat(61), 1)).json.msg, 'topic is too long (limit: 60 characters)');
  t.is((await set('dinner', 1, 987654)).json.msg, 'Invalid channel ID');
  const priv = await createChannel(s, cast.other, uniqueName('other private'), [cast.other.id], { invite_only: 'true' });
  t.is((await set('dinner', 1, priv)).json.msg, 'Invalid channel ID');
});

test.serial('PATCH muted_topics: add and remove are idempotent; the channel by ID or by name, exactly one of them', async (t) => {
  const name = uniqueName('mutes');
  const id = await createChannel(s, cast.member, name, [cast.member.id]);
  const mute = (form: Record<string, string>) => s.client.as(cast.member).patch('/users/me/subscriptions/muted_topics', { form });
  const events = recordEvents(s);
  t.deepEqual((await mute({ stream_id: String(id), topic: 'noise', op: 'add' })).json, { result: 'success', msg: '' });
  t.is(ofType(events.take(), 'user_topic')[0]!.event.visibility_policy, 1);
  t.deepEqual((await mute({ stream_id: String(id), topic: 'noise', op: 'add' })).json, { result: 'success', msg: '' });
  t.deepEqual(events.take(), []);
  t.is((await mute({ stream: name, topic: 'noise', op: 'remove' })).status, 200);
  t.is(ofType(events.take(), 'user_topic')[0]!.event.visibility_policy, 0);
  t.is((await mute({ stream: name, topic: 'noise', op: 'remove' })).status, 200);
  t.deepEqual(events.take(), []);
  events.stop();
  t.deepEqual((await mute({ stream_id: String(id), stream: name, topic: 'x', op: 'add' })).json, {
    result: 'error',
    msg: 'Unsupported parameter combination: stream_id, stream',
    code: 'BAD_REQUEST',
  });
  t.deepEqual((await mute({ topic: 'x', op: 'add' })).json, { result: 'error', msg: "Missing 'stream_id' argument", code: 'BAD_REQUEST' });
  t.is((await mute({ stream: 'no such channel', topic: 'x', op: 'add' })).json.msg, "Invalid channel name 'no such channel'");
  t.is((await mute({ stream_id: String(id), topic: 'x', op: 'toggle' })).json.msg, 'Invalid op');
  t.is((await mute({ stream_id: String(id), op: 'add' })).json.code, 'REQUEST_VARIABLE_MISSING');
});

test.serial('delete_topic: batches newest first; complete=false until the client has repeated enough', async (t) => {
  const id = await createChannel(s, cast.admin, uniqueName('doomed'), [cast.admin.id, cast.member.id]);
  const doomed = await insertMessages(s, id, 'Doomed', 5, { senderId: cast.admin.id, recipients: [cast.admin.id, cast.member.id] });
  const [kept] = await insertMessages(s, id, 'kept', 1, { senderId: cast.admin.id, recipients: [cast.admin.id] });
  const del = (as: { email: string; apiKey: string }, topic = 'doomed') => s.client.as(as).post(`/streams/${id}/delete_topic`, { form: { topic_name: topic } });
  t.deepEqual((await del(cast.member)).json, { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.is((await del(cast.moderator)).json.code, 'UNAUTHORIZED_PRINCIPAL');

  const events = recordEvents(s);
  t.deepEqual((await del(cast.admin)).json, { result: 'success', msg: '', complete: false });
  const [first] = ofType(events.take(), 'delete_message');
  // message_ids sorted, as the reference sends them since feature level 393.
  t.deepEqual(first!.event, { type: 'delete_message', message_type: 'stream', message_ids: [doomed[3], doomed[4]], stream_id: id, topic: 'doomed', empty_topic_display_name: 'general chat' });
  t.deepEqual(first!.users, sorted([cast.admin.id, cast.member.id]));
  t.is(first!.legacy!.bulk_message_deletion!.length, 2);
  t.deepEqual((await del(cast.admin)).json.complete, false);
  t.deepEqual(ofType(events.take(), 'delete_message')[0]!.event.message_ids, [doomed[1], doomed[2]]);
  t.is((await s.client.as(cast.admin).get(`/streams/${id}`)).json.stream.first_message_id, doomed[0]);
  t.deepEqual((await del(cast.admin)).json, { result: 'success', msg: '', complete: true });
  const last = events.take();
  events.stop();
  t.deepEqual(ofType(last, 'delete_message')[0]!.event.message_ids, [doomed[0]]);
  const [moved] = ofType(last, 'stream', 'update');
  t.deepEqual(moved!.event, { type: 'stream', op: 'update', stream_id: id, name: moved!.event.name, property: 'first_message_id', value: kept });
  t.is((await s.client.as(cast.admin).get(`/streams/${id}`)).json.stream.first_message_id, kept);
  t.deepEqual((await topics(cast.admin, id)).json.topics.map((x: any) => x.name), ['kept']);
  t.is((await s.server.services.db.one('SELECT count(*)::int AS n FROM user_messages WHERE message_id = ANY($1::bigint[])', [doomed])).n, 0);
  // Nothing left: complete at once.
  t.deepEqual((await del(cast.admin)).json.complete, true);
});

test.serial('delete_topic: the empty topic by its names; access to the channel', async (t) => {
  const id = await createChannel(s, cast.admin, uniqueName('general'), [cast.admin.id]);
  await insertMessages(s, id, '', 1, { senderId: cast.admin.id, recipients: [cast.admin.id] });
  const r = await s.client.as(cast.admin).post(`/streams/${id}/delete_topic`, { form: { topic_name: '(no topic)' } });
  t.is(r.json.complete, true);
  t.is((await s.client.as(cast.admin).get(`/streams/${id}`)).json.stream.first_message_id, null);
  const priv = await createChannel(s, cast.member, uniqueName('hidden'), [cast.member.id], { invite_only: 'true' });
  t.is((await s.client.as(cast.admin).post(`/streams/${priv}/delete_topic`, { form: { topic_name: 'x' } })).json.msg, 'Invalid channel ID');
  t.is((await s.client.as(cast.admin).post('/streams/987654/delete_topic', { form: { topic_name: 'x' } })).json.msg, 'Invalid channel ID');
  t.is((await s.client.as(cast.admin).post(`/streams/${id}/delete_topic`, { form: {} })).json.code, 'REQUEST_VARIABLE_MISSING');
});

test.serial('delete_topic in a channel with protected history deletes only what the administrator received', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('protected delete'), [cast.member.id, cast.admin.id], { invite_only: 'true' });
  const [unseen] = await insertMessages(s, id, 'topic', 1, { senderId: cast.member.id, recipients: [cast.member.id] });
  await insertMessages(s, id, 'topic', 1, { senderId: cast.member.id, recipients: [cast.member.id, cast.admin.id] });
  t.is((await s.client.as(cast.admin).post(`/streams/${id}/delete_topic`, { form: { topic_name: 'topic' } })).json.complete, true);
  const left = await s.server.services.db.map('SELECT id FROM messages WHERE stream_id = $1', [id], (r) => Number(r.id));
  t.deepEqual(left, [unseen]);
});

test.serial('retention: messages older than the channel’s (or the realm’s) period go, in batches; others stay', async (t) => {
  const short = await createChannel(s, cast.owner, uniqueName('short memory'), [cast.owner.id], { message_retention_days: '2' });
  const forever = await createChannel(s, cast.owner, uniqueName('forever'), [cast.owner.id], { message_retention_days: 'unlimited' });
  const inherit = await createChannel(s, cast.owner, uniqueName('inherit'), [cast.owner.id]);
  const opts = { senderId: cast.owner.id, recipients: [cast.owner.id] };
  const oldShort = await insertMessages(s, short, 'old', 3, { ...opts, daysAgo: 5 });
  const [recent] = await insertMessages(s, short, 'new', 1, opts);
  const [oldForever] = await insertMessages(s, forever, 'old', 1, { ...opts, daysAgo: 500 });
  const [oldInherit] = await insertMessages(s, inherit, 'old', 1, { ...opts, daysAgo: 500 });

  const { db, realms } = s.server.services;
  const actor = createActor(retentionMachine, { input: { db, realms, intervalMs: 3_600_000, batchSize: 2 } }).start();
  const sweep = () =>
    new Promise<number>((resolve) => {
      const sub = actor.on('swept', (e) => {
        sub.unsubscribe();
        resolve(e.deleted);
      });
      actor.send({ type: 'SWEEP' });
    });
  const events = recordEvents(s);
  try {
    t.is(await sweep(), 3);
    const remaining = (id: number) => db.map('SELECT id FROM messages WHERE stream_id = $1 ORDER BY id', [id], (r) => Number(r.id));
    t.deepEqual(await remaining(short), [recent]);
    t.deepEqual(await remaining(forever), [oldForever]);
    t.deepEqual(await remaining(inherit), [oldInherit], 'the realm keeps messages forever by default');
    t.is((await s.client.as(cast.owner).get(`/streams/${short}`)).json.stream.first_message_id, recent);
    const updates = ofType(events.take(), 'stream', 'update').filter((e) => e.event.stream_id === short);
    t.deepEqual(updates.map((e) => [e.event.property, e.event.value]), [['first_message_id', oldShort[2]], ['first_message_id', recent]]);

    // The realm's own period applies to channels that inherit it, and to direct messages.
    const realm = await realmState(s);
    const dm = await db.one(
      `INSERT INTO messages (realm_id, sender_id, recipient_kind, direct_recipients, content, rendered_content, date_sent)
       VALUES ($1, $2, 'direct', $3, 'old dm', '<p>old dm</p>', now() - interval '400 days') RETURNING id`,
      [realm.realm.id, cast.owner.id, [cast.owner.id, cast.member.id]],
      (r) => Number(r.id),
    );
    await setRealmSettings(s, { message_retention_days: 100 });
    t.is(await sweep(), 2);
    t.deepEqual(await remaining(inherit), []);
    t.deepEqual(await remaining(forever), [oldForever]);
    t.is(await db.oneOrNone('SELECT id FROM messages WHERE id = $1', [dm]), null);
    t.is(await sweep(), 0);
  } finally {
    events.stop();
    actor.stop();
    await setRealmSettings(s, { message_retention_days: -1 });
  }
});

test.serial('retention runs by itself at its interval', async (t) => {
  const id = await createChannel(s, cast.owner, uniqueName('ticking'), [cast.owner.id], { message_retention_days: '1' });
  await insertMessages(s, id, 'old', 1, { senderId: cast.owner.id, recipients: [cast.owner.id], daysAgo: 3 });
  const { db, realms } = s.server.services;
  const actor = createActor(retentionMachine, { input: { db, realms, intervalMs: 10, batchSize: 100 } });
  const swept = new Promise<number>((resolve) => actor.on('swept', (e) => resolve(e.deleted)));
  actor.start();
  t.is(await swept, 1);
  actor.stop();
  t.is((await db.one('SELECT count(*)::int AS n FROM messages WHERE stream_id = $1', [id])).n, 0);
});
