// Saved snippets over HTTP: E18 create, E16 edit, list, delete, their errors, events and the register section.
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

const create = (as: Credentials, form: Record<string, string>) => s.client.as(as).post('/saved_snippets', { form });
const list = async (as: Credentials) => (await s.client.as(as).get('/saved_snippets')).json.saved_snippets;
const strip = (events: Record<string, any>[]) => events.map(({ id: _id, ...e }) => e);

test('E18: a snippet is created with its ID; GET lists it with date_created', async (t) => {
  const user = await addUser(s);
  const before = Math.floor(Date.now() / 1000);
  const r = await create(user, { title: 'Welcome', content: 'Welcome to the **organization**.' });
  t.is(r.status, 200, r.text);
  t.is(typeof r.json.saved_snippet_id, 'number');
  const [snippet, ...rest] = await list(user);
  t.deepEqual(rest, []);
  t.is(snippet.id, r.json.saved_snippet_id);
  t.is(snippet.title, 'Welcome');
  t.is(snippet.content, 'Welcome to the **organization**.');
  t.true(snippet.date_created >= before - 1 && snippet.date_created <= Math.ceil(Date.now() / 1000));
  t.deepEqual(Object.keys(snippet).sort(), ['content', 'date_created', 'id', 'title']);
});

test('E18: empty (or blank) title or content: "Title cannot be empty." / "Content cannot be empty."', async (t) => {
  const user = await addUser(s);
  for (const [form, msg] of [
    [{ title: '', content: 'x' }, 'Title cannot be empty.'],
    [{ title: '   ', content: 'x' }, 'Title cannot be empty.'],
    [{ title: 'x', content: '' }, 'Content cannot be empty.'],
    [{ title: 'x', content: ' \n ' }, 'Content cannot be empty.'],
  ] as const) {
    const r = await create(user, form);
    t.is(r.status, 400);
    t.deepEqual(r.json, { result: 'error', msg, code: 'BAD_REQUEST' });
  }
  const missing = await create(user, { title: 'x' });
  t.is(missing.json.code, 'REQUEST_VARIABLE_MISSING');
  t.deepEqual(await list(user), []);
});

test('E16: title and content are edited separately or together; no values is refused', async (t) => {
  const user = await addUser(s);
  const id = (await create(user, { title: 'T1', content: 'C1' })).json.saved_snippet_id;
  t.is((await s.client.as(user).patch(`/saved_snippets/${id}`, { form: { title: 'T2' } })).status, 200);
  t.like((await list(user))[0], { id, title: 'T2', content: 'C1' });
  t.is((await s.client.as(user).patch(`/saved_snippets/${id}`, { form: { content: 'C2' } })).status, 200);
  t.like((await list(user))[0], { id, title: 'T2', content: 'C2' });
  t.is((await s.client.as(user).patch(`/saved_snippets/${id}`, { form: { title: 'T3', content: 'C3' } })).status, 200);
  t.like((await list(user))[0], { id, title: 'T3', content: 'C3' });
  const blank = await s.client.as(user).patch(`/saved_snippets/${id}`, { form: { title: ' ' } });
  t.is(blank.json.msg, 'Title cannot be empty.');
  const none = await s.client.as(user).patch(`/saved_snippets/${id}`);
  t.is(none.status, 400);
  t.is(none.json.msg, 'Client did not pass any new values.');
});

test('E16 and DELETE: "Saved snippet does not exist." for unknown IDs and other users\' snippets', async (t) => {
  const user = await addUser(s);
  const stranger = await addUser(s);
  const id = (await create(user, { title: 'mine', content: 'mine' })).json.saved_snippet_id;
  for (const r of [
    await s.client.as(stranger).patch(`/saved_snippets/${id}`, { form: { title: 'stolen' } }),
    await s.client.as(user).patch('/saved_snippets/999999', { form: { title: 'x' } }),
    await s.client.as(stranger).delete(`/saved_snippets/${id}`),
  ]) {
    t.is(r.status, 404);
    t.deepEqual(r.json, { result: 'error', msg: 'Saved snippet does not exist.', code: 'BAD_REQUEST' });
  }
  t.like((await list(user))[0], { title: 'mine' });
  t.is((await s.client.as(user).delete(`/saved_snippets/${id}`)).status, 200);
  t.deepEqual(await list(user), []);
  t.is((await s.client.as(user).delete(`/saved_snippets/${id}`)).status, 404);
});

test('saved_snippets events (add, update, remove) keep the register section current', async (t) => {
  const user = await addUser(s);
  let id = 0;
  const added = await verifyAction(t, s, user, async () => {
    id = (await create(user, { title: 'Hi', content: 'Hello' })).json.saved_snippet_id;
  }, { eventTypes: ['saved_snippets'] });
  t.is(added.length, 1);
  t.like(added[0], { type: 'saved_snippets', op: 'add', saved_snippet: { id, title: 'Hi', content: 'Hello' } });
  t.is(typeof added[0]!.saved_snippet.date_created, 'number');
  const updated = await verifyAction(t, s, user, () => s.client.as(user).patch(`/saved_snippets/${id}`, { form: { content: 'Hello there' } }), {
    eventTypes: ['saved_snippets'],
  });
  t.like(updated[0], { type: 'saved_snippets', op: 'update', saved_snippet: { id, title: 'Hi', content: 'Hello there' } });
  const removed = await verifyAction(t, s, user, () => s.client.as(user).delete(`/saved_snippets/${id}`), { eventTypes: ['saved_snippets'] });
  t.deepEqual(strip(removed), [{ type: 'saved_snippets', op: 'remove', saved_snippet_id: id }]);
});

test('register: saved_snippets lists only the user\'s own snippets', async (t) => {
  const user = await addUser(s);
  const other = await addUser(s);
  await create(user, { title: 'a', content: 'a' });
  await create(other, { title: 'b', content: 'b' });
  const reg = await s.client.as(user).post('/register', { form: { fetch_event_types: JSON.stringify(['saved_snippets']) } });
  t.deepEqual(
    reg.json.saved_snippets.map((x: any) => x.title),
    ['a'],
  );
});
