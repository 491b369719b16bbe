// Navigation views over HTTP: built-in views (no name) and named custom views, pinning, errors, events.
import test from 'ava';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const add = (as: Credentials, form: Record<string, string>) => s.client.as(as).post('/navigation_views', { form });
const list = async (as: Credentials) => (await s.client.as(as).get('/navigation_views')).json.navigation_views;
const strip = (events: Record<string, any>[]) => events.map(({ id: _id, ...e }) => e);

test('a built-in view is configured without a name; a custom view needs one', async (t) => {
  const user = await addUser(s);
  t.is((await add(user, { fragment: 'inbox', is_pinned: 'false' })).status, 200);
  t.is((await add(user, { fragment: 'narrow/is/alerted', is_pinned: 'true', name: 'Alert Words' })).status, 200);
  t.deepEqual(await list(user), [
    { fragment: 'inbox', is_pinned: false, name: null },
    { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alert Words' },
  ]);
  const named = await add(user, { fragment: 'recent', is_pinned: 'true', name: 'My recent' });
  t.deepEqual(named.json, { result: 'error', msg: 'Built-in views cannot have a custom name.', code: 'BAD_REQUEST' });
  const unnamed = await add(user, { fragment: 'narrow/channel/9', is_pinned: 'true' });
  t.is(unnamed.json.msg, 'Custom views must have a valid name.');
  const blank = await add(user, { fragment: '  ', is_pinned: 'true', name: 'x' });
  t.is(blank.json.msg, 'fragment cannot be blank');
  const noPin = await add(user, { fragment: 'feed' });
  t.is(noPin.json.code, 'REQUEST_VARIABLE_MISSING');
});

test('a fragment or a name already used is refused', async (t) => {
  const user = await addUser(s);
  await add(user, { fragment: 'narrow/is/dm', is_pinned: 'true', name: 'DMs' });
  const sameFragment = await add(user, { fragment: 'narrow/is/dm', is_pinned: 'false', name: 'Other' });
  t.deepEqual(sameFragment.json, { result: 'error', msg: 'Navigation view already exists.', code: 'BAD_REQUEST' });
  const sameName = await add(user, { fragment: 'narrow/is/unread', is_pinned: 'false', name: 'DMs' });
  t.is(sameName.json.msg, 'Navigation view already exists.');
  // Another user may use both.
  const other = await addUser(s);
  t.is((await add(other, { fragment: 'narrow/is/dm', is_pinned: 'true', name: 'DMs' })).status, 200);
});

test('PATCH pins, unpins and renames; built-in views cannot be renamed; unknown fragments are 404', async (t) => {
  const user = await addUser(s);
  await add(user, { fragment: 'starred-custom', is_pinned: 'true', name: 'Stars' });
  await add(user, { fragment: 'narrow/is/starred', is_pinned: 'true' });
  await add(user, { fragment: 'taken', is_pinned: 'true', name: 'Taken' });
  t.is((await s.client.as(user).patch('/navigation_views/starred-custom', { form: { is_pinned: 'false', name: 'Favourites' } })).status, 200);
  // A fragment with slashes, percent-encoded as one segment or as it is.
  t.is((await s.client.as(user).patch(`/navigation_views/${encodeURIComponent('narrow/is/starred')}`, { form: { is_pinned: 'false' } })).status, 200);
  t.deepEqual(await list(user), [
    { fragment: 'starred-custom', is_pinned: false, name: 'Favourites' },
    { fragment: 'narrow/is/starred', is_pinned: false, name: null },
    { fragment: 'taken', is_pinned: true, name: 'Taken' },
  ]);
  t.is((await s.client.as(user).patch('/navigation_views/narrow/is/starred', { form: { is_pinned: 'true' } })).status, 200);
  t.like((await list(user))[1], { fragment: 'narrow/is/starred', is_pinned: true });
  const rename = await s.client.as(user).patch('/navigation_views/narrow/is/starred', { form: { name: 'Stars' } });
  t.is(rename.json.msg, 'Built-in views cannot have a custom name.');
  const dupName = await s.client.as(user).patch('/navigation_views/starred-custom', { form: { name: 'Taken' } });
  t.is(dupName.json.msg, 'Navigation view already exists.');
  const missing = await s.client.as(user).patch('/navigation_views/nowhere', { form: { is_pinned: 'true' } });
  t.is(missing.status, 404);
  t.deepEqual(missing.json, { result: 'error', msg: 'Navigation view does not exist.', code: 'BAD_REQUEST' });
  const nothing = await s.client.as(user).patch('/navigation_views/taken');
  t.is(nothing.json.msg, 'Client did not pass any new values.');
});

test('DELETE removes a view; a second delete is 404', async (t) => {
  const user = await addUser(s);
  await add(user, { fragment: 'narrow/is/mentioned', is_pinned: 'true' });
  t.is((await s.client.as(user).delete('/navigation_views/narrow/is/mentioned')).status, 200);
  t.deepEqual(await list(user), []);
  const again = await s.client.as(user).delete(`/navigation_views/${encodeURIComponent('narrow/is/mentioned')}`);
  t.is(again.status, 404);
  t.is(again.json.msg, 'Navigation view does not exist.');
});

test('navigation_view events (add, update, remove) keep the register section current', async (t) => {
  const user = await addUser(s);
  const opts = { eventTypes: ['navigation_view'] };
  const added = await verifyAction(t, s, user, () => add(user, { fragment: 'narrow/is/alerted', is_pinned: 'true', name: 'Alerts' }), opts);
  t.deepEqual(strip(added), [
    { type: 'navigation_view', op: 'add', navigation_view: { fragment: 'narrow/is/alerted', is_pinned: true, name: 'Alerts' } },
  ]);
  const updated = await verifyAction(t, s, user, () => s.client.as(user).patch('/navigation_views/narrow/is/alerted', { form: { is_pinned: 'false' } }), opts);
  t.deepEqual(strip(updated), [{ type: 'navigation_view', op: 'update', fragment: 'narrow/is/alerted', data: { is_pinned: false } }]);
  const renamed = await verifyAction(t, s, user, () => s.client.as(user).patch('/navigation_views/narrow/is/alerted', { form: { name: 'Words' } }), opts);
  t.deepEqual(strip(renamed), [{ type: 'navigation_view', op: 'update', fragment: 'narrow/is/alerted', data: { name: 'Words' } }]);
  const removed = await verifyAction(t, s, user, () => s.client.as(user).delete('/navigation_views/narrow/is/alerted'), opts);
  t.deepEqual(strip(removed), [{ type: 'navigation_view', op: 'remove', fragment: 'narrow/is/alerted' }]);
});

test('register: navigation_views under either name', async (t) => {
  const user = await addUser(s);
  await add(user, { fragment: 'feed', is_pinned: 'true' });
  for (const type of ['navigation_view', 'navigation_views']) {
    const reg = await s.client.as(user).post('/register', { form: { fetch_event_types: JSON.stringify([type]) } });
    t.deepEqual(reg.json.navigation_views, [{ fragment: 'feed', is_pinned: true, name: null }]);
  }
});
