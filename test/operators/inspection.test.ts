// The actor inspection API: only the operator token opens it; it lists actors with kind, state, parent, children,
// realm, mailbox, time in state and last transition; filters; counts; and one actor's persisted snapshot.
import test from 'ava';
import { addUser } from '../helpers/users.js';
import type { TestServer } from '../helpers/server.js';
import { bearer, eventually, startOperatorServer } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startOperatorServer();
});
test.after.always(async () => {
  await s?.close();
});

const get = (path: string, query?: Record<string, string>) => s.client.get(path, { root: true, headers: bearer(), query });

test.serial('refused without a token, with a wrong token, and with a chat user\'s key', async (t) => {
  for (const path of ['/operators/actors', '/operators/actors/counts', '/operators/actors/root', '/operators/traffic']) {
    const none = await s.client.get(path, { root: true });
    t.is(none.status, 401, path);
    t.is(none.json.result, 'error');
    const wrong = await s.client.get(path, { root: true, headers: bearer('wrong-token') });
    t.is(wrong.status, 401, path);
    t.is(wrong.json.msg, 'Invalid operator token');
    const chatUser = await s.client.get(path, { root: true, auth: s.owner });
    t.is(chatUser.status, 401, path);
    t.regex(chatUser.json.msg, /operator token/);
    const keyAsToken = await s.client.get(path, { root: true, headers: bearer(s.owner.apiKey) });
    t.is(keyAsToken.status, 401, path);
    t.false(JSON.stringify([none.json, wrong.json, chatUser.json, keyAsToken.json]).includes('"actors"'));
  }
});

test.serial('refused altogether when no operator token is configured', async (t) => {
  const token = s.config.operatorToken;
  s.config.operatorToken = undefined;
  try {
    const r = await get('/operators/actors');
    t.is(r.status, 403);
    t.is(r.json.code, 'OPERATOR_ACCESS_DISABLED');
    t.is((await s.client.get('/metrics', { root: true, headers: bearer() })).status, 403);
  } finally {
    s.config.operatorToken = token;
  }
});

test.serial('lists the root, realm and event-queue actors with their relations', async (t) => {
  const user = await addUser(s);
  const reg = await s.client.as(user).post('/register', { form: { event_types: '["message"]' } });
  const queueId = reg.json.queue_id as string;
  const r = await get('/operators/actors');
  t.is(r.status, 200);
  const rows = r.json.actors as any[];
  const root = rows.find((a) => a.kind === 'root');
  t.like(root, { id: 'root', state: 'running', status: 'active', parent: null, realm_id: null });
  const realm = rows.find((a) => a.kind === 'realm');
  t.regex(realm.id, /^realm:\d+$/);
  t.like(realm, { state: 'ready.idle', parent: 'root', mailbox: 0 });
  t.is(realm.realm_id, Number(realm.id.split(':')[1]));
  t.true(root.children.includes(realm.id));
  const queue = rows.find((a) => a.id === `queue:${queueId}`);
  t.like(queue, { kind: 'eventQueue', state: 'waiting', parent: null, realm_id: realm.realm_id, mailbox: 0 });
  t.true(['retention', 'scheduled-delivery'].every((k) => rows.some((a) => a.kind === k)));
  t.is(r.json.matched, rows.length);
  t.true((r.json.counts as any[]).some((c) => c.kind === 'eventQueue' && c.state === 'waiting' && c.count >= 1));

  // A presence ping starts the user's session actor.
  t.is((await s.client.as(user).post('/users/me/presence', { form: { status: 'active' } })).status, 200);
  const sessions = (await get('/operators/actors', { kind: 'userSession' })).json.actors as any[];
  t.like(sessions.find((a) => a.id === `session:${realm.realm_id}:${user.id}`), { kind: 'userSession', realm_id: realm.realm_id });

  // The queue's mailbox is the events waiting for its client.
  const other = await addUser(s);
  await s.client.as(other).post('/messages', { form: { type: 'direct', to: `[${user.id}]`, content: 'hi' } });
  await eventually(async () => (await get(`/operators/actors/queue:${queueId}`)).json.actor.mailbox === 1, 'the event waits in the queue');
});

test.serial('filters by kind, realm, state and id, and counts per kind and state', async (t) => {
  const user = await addUser(s);
  const q1 = (await s.client.as(user).post('/register')).json.queue_id as string;
  const all = (await get('/operators/actors')).json.actors as any[];
  const realmId = all.find((a) => a.kind === 'realm').realm_id;

  const queues = (await get('/operators/actors', { kind: 'eventQueue' })).json;
  t.true(queues.actors.every((a: any) => a.kind === 'eventQueue'));
  t.is(queues.matched, all.filter((a) => a.kind === 'eventQueue').length);
  const inRealm = (await get('/operators/actors', { realm: String(realmId) })).json.actors as any[];
  t.true(inRealm.length >= 2);
  t.true(inRealm.every((a) => a.realm_id === realmId));
  const ready = (await get('/operators/actors', { state: 'ready' })).json.actors as any[];
  t.deepEqual(ready.map((a) => a.kind), ['realm'], 'a state matches its substates');
  const byId = (await get('/operators/actors', { q: q1.slice(-12) })).json.actors as any[];
  t.deepEqual(byId.map((a) => a.id), [`queue:${q1}`]);
  t.is((await get('/operators/actors', { kind: 'eventQueue', limit: '1' })).json.actors.length, 1);

  const counts = (await get('/operators/actors/counts')).json;
  t.is(counts.total, all.length);
  t.is(counts.kinds.root, 1);
  t.is(counts.kinds.eventQueue, queues.matched);
  const waiting = (await get('/operators/actors/counts', { kind: 'eventQueue', state: 'waiting' })).json;
  t.deepEqual(waiting.counts, [{ kind: 'eventQueue', state: 'waiting', count: queues.matched }]);
});

test.serial('one actor: its row and persisted snapshot, with secrets redacted; unknown ids are 404', async (t) => {
  const realm = ((await get('/operators/actors', { kind: 'realm' })).json.actors as any[])[0];
  const r = await get(`/operators/actors/${encodeURIComponent(realm.id)}`);
  t.is(r.status, 200);
  t.like(r.json.actor, { id: realm.id, kind: 'realm', state: 'ready.idle' });
  t.is(r.json.snapshot.status, 'active');
  t.deepEqual(r.json.snapshot.value, { ready: 'idle' });
  t.is(r.json.snapshot.context.realmId, realm.realm_id);
  t.is(r.json.snapshot.context.db, '[database]');
  t.false(r.text.includes(s.owner.apiKey), 'API keys never leave the server');
  const root = await get('/operators/actors/root');
  t.is(root.json.snapshot.value, 'running');
  t.true(root.json.snapshot.children.includes(realm.id));
  const user = await addUser(s);
  const reg = (await s.client.as(user).post('/register', { form: { event_types: '["message"]' } })).json;
  const queue = (await get(`/operators/actors/queue:${reg.queue_id}`)).json.snapshot;
  t.like(queue, { queueId: reg.queue_id, userId: user.id, registration: { eventTypes: ['message'] } });
  const missing = await get('/operators/actors/queue:nope');
  t.is(missing.status, 404);
  t.is(missing.json.code, 'NOT_FOUND');
});

test.serial('after a first look, transitions are recorded: time in state and the last transition', async (t) => {
  const user = await addUser(s);
  const reg = (await s.client.as(user).post('/register')).json;
  const id = `queue:${reg.queue_id}`;
  const first = (await get(`/operators/actors/${id}`)).json.actor;
  t.is(first.time_in_state_ms, null, 'entered before anybody watched');
  t.is(first.last_transition, null);
  const poll = s.client.as(user).get('/events', { query: { queue_id: reg.queue_id, last_event_id: String(reg.last_event_id) } });
  await eventually(async () => (await get(`/operators/actors/${id}`)).json.actor.state === 'polling', 'the queue parks the poll');
  const polling = (await get(`/operators/actors/${id}`)).json.actor;
  t.like(polling.last_transition, { from: 'waiting', to: 'polling', event: 'POLL' });
  t.is(typeof polling.time_in_state_ms, 'number');
  t.true(polling.time_in_state_ms >= 0);
  await s.client.as(user).delete('/events', { form: { queue_id: reg.queue_id } });
  await poll;
  t.is((await get(`/operators/actors/${id}`)).status, 404, 'an expired queue is gone');
});
