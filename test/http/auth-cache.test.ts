// Authentication remembers parsed headers and key digests (src/http/auth.ts); none of it may outlive a change of the
// user record: a new API key, a new email, a deactivation or a deactivated realm count from the next request on.
import test from 'ava';
import { ApiError } from '../../src/errors.js';
import { authenticate } from '../../src/http/auth.js';
import { RealmState } from '../../src/realm/state.js';
import type { Realm, User } from '../../src/model/realm.js';
import { basicAuth } from '../helpers/http.js';
import { startTestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

function realmState(): RealmState {
  const realm = { id: 1, stringId: '', name: 'r', description: '', deactivated: false } as Realm;
  const user: User = {
    id: 7, realmId: 1, email: 'ada@example.test', fullName: 'Ada', role: 400, isBot: false, botType: null, botOwnerId: null,
    isActive: true, apiKey: 'first-key', passwordHash: null, canCreateUsers: false, dateJoined: 0, timezone: '', settings: {},
  } as User;
  return new RealmState(realm, [user], []);
}

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (e instanceof ApiError) return e.code;
    throw e;
  }
  return 'OK';
}

test('a regenerated API key refuses the old one at once and accepts the new one', (t) => {
  const state = realmState();
  const old = basicAuth('ada@example.test', 'first-key');
  t.is(authenticate(state, old).id, 7);
  t.is(authenticate(state, old).id, 7, 'a second time, from what was remembered');
  state.putUser({ ...state.usersById.get(7)!, apiKey: 'second-key' });
  t.is(code(() => authenticate(state, old)), 'INVALID_API_KEY');
  t.is(authenticate(state, basicAuth('ada@example.test', 'second-key')).id, 7);
  // The record edited in place (not replaced) counts as well.
  state.usersById.get(7)!.apiKey = 'third-key';
  t.is(code(() => authenticate(state, basicAuth('ada@example.test', 'second-key'))), 'INVALID_API_KEY');
  t.is(authenticate(state, basicAuth('ada@example.test', 'third-key')).id, 7);
});

test('a wrong key stays wrong however often it is tried, and does not spoil the right one', (t) => {
  const state = realmState();
  const wrong = basicAuth('ada@example.test', 'guess');
  for (let i = 0; i < 3; i++) t.is(code(() => authenticate(state, wrong)), 'INVALID_API_KEY');
  t.is(code(() => authenticate(state, basicAuth('nobody@example.test', 'first-key'))), 'INVALID_API_KEY');
  t.is(authenticate(state, basicAuth('ADA@example.test', 'first-key')).id, 7, 'emails match case-insensitively');
  for (let i = 0; i < 2; i++) t.is(code(() => authenticate(state, 'Basic !!!!')), 'UNAUTHORIZED', 'a malformed header, every time');
  t.is(code(() => authenticate(state, undefined)), 'UNAUTHORIZED');
});

test('a deactivated user, a changed email and a deactivated realm are refused at once despite earlier successes', (t) => {
  const state = realmState();
  const header = basicAuth('ada@example.test', 'first-key');
  t.is(authenticate(state, header).id, 7);
  state.putUser({ ...state.usersById.get(7)!, isActive: false });
  t.is(code(() => authenticate(state, header)), 'USER_DEACTIVATED');
  state.putUser({ ...state.usersById.get(7)!, isActive: true });
  t.is(authenticate(state, header).id, 7);
  state.putUser({ ...state.usersById.get(7)!, email: 'ada2@example.test' });
  t.is(code(() => authenticate(state, header)), 'INVALID_API_KEY');
  t.is(authenticate(state, basicAuth('ada2@example.test', 'first-key')).id, 7);
  state.realm = { ...state.realm, deactivated: true };
  t.is(code(() => authenticate(state, basicAuth('ada2@example.test', 'first-key'))), 'REALM_DEACTIVATED');
});

test('over HTTP: a user whose polls succeeded is refused with USER_DEACTIVATED on the next poll after deactivation', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const u = await addUser(s);
  const reg = await s.client.as(u).post('/register', { form: { event_types: '["message"]' } });
  t.is(reg.status, 200);
  for (let i = 0; i < 2; i++) {
    const r = await s.client.as(u).get('/events', { query: { queue_id: reg.json.queue_id, last_event_id: '-1', dont_block: 'true' } });
    t.is(r.status, 200);
  }
  const off = await s.client.as(s.owner).delete(`/users/${u.id}`);
  t.is(off.status, 200, off.text);
  const r = await s.client.as(u).get('/events', { query: { queue_id: reg.json.queue_id, last_event_id: '-1', dont_block: 'true' } });
  t.is(r.status, 401);
  t.like(r.json, { result: 'error', code: 'USER_DEACTIVATED' });
});

test('over HTTP: after polls that succeeded, a regenerated API key refuses the old key on the next poll and accepts the new one', async (t) => {
  const s = await startTestServer();
  t.teardown(() => s.close());
  const u = await addUser(s);
  const reg = await s.client.as(u).post('/register', { form: { event_types: '["message"]' } });
  t.is(reg.status, 200);
  const poll = (apiKey: string) =>
    s.client.as({ ...u, apiKey }).get('/events', { query: { queue_id: reg.json.queue_id, last_event_id: '-1', dont_block: 'true' } });
  for (let i = 0; i < 2; i++) t.is((await poll(u.apiKey)).status, 200);
  const regen = await s.client.as(u).post('/users/me/api_key/regenerate');
  t.is(regen.status, 200, regen.text);
  const fresh = regen.json.api_key as string;
  t.not(fresh, u.apiKey);
  const old = await poll(u.apiKey);
  t.is(old.status, 401);
  t.like(old.json, { result: 'error', code: 'INVALID_API_KEY' });
  t.is((await poll(fresh)).status, 200);
  t.is((await poll(fresh)).status, 200, 'and again, from what was remembered');
  t.is((await poll(u.apiKey)).status, 401, 'the old key stays refused');
});

test('a header remembered as matching one realm\'s user is checked again against another realm\'s record', (t) => {
  const a = realmState();
  const b = realmState();
  const header = basicAuth('ada@example.test', 'first-key');
  t.is(authenticate(a, header).id, 7);
  b.putUser({ ...b.usersById.get(7)!, apiKey: 'other-key' });
  t.is(code(() => authenticate(b, header)), 'INVALID_API_KEY');
  t.is(authenticate(a, header).id, 7);
});
