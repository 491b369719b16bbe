// register's user lists, which are built from records shared between registers (src/events/snapshot/realm-users.ts)
// and spliced into the response as JSON (src/events/snapshot/raw-json.ts): what each viewer gets stays theirs.
import test from 'ava';
import { RawJson, serializeBody } from '../../src/events/snapshot/raw-json.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

test('serializeBody splices raw JSON and serializes the rest as JSON.stringify does', (t) => {
  const body = { result: 'success', list: new RawJson('[{"a":1},{"b":[2]}]'), empty: new RawJson('[]'), skipped: undefined, n: 3 };
  const parsed = JSON.parse(Buffer.concat(serializeBody(body)).toString());
  t.deepEqual(parsed, { result: 'success', list: [{ a: 1 }, { b: [2] }], empty: [], n: 3 });
  t.deepEqual(JSON.parse(Buffer.concat(serializeBody({ only: new RawJson('{"x":null}') })).toString()), { only: { x: null } });
  t.is(Buffer.concat(serializeBody({ a: [1], b: 'c' })).toString(), JSON.stringify({ a: [1], b: 'c' }));
  // Any other serializer gets the value itself.
  t.deepEqual(JSON.parse(JSON.stringify({ list: new RawJson('[1,2]') })), { list: [1, 2] });
});

async function usersOf(who: TestUser, form: Record<string, string> = {}): Promise<Record<string, any>[]> {
  const r = await s.client.as(who).post('/register', { form: { fetch_event_types: '["realm_user"]', ...form } });
  if (r.status !== 200) throw new Error(r.text);
  return r.json.realm_users;
}

test.serial('viewers of one role share the lists, yet each sees their own email address and the latest records', async (t) => {
  const a = await addUser(s, { fullName: 'Private A' });
  const b = await addUser(s, { fullName: 'Private B' });
  for (const u of [a, b]) {
    t.is((await s.client.as(u).patch('/settings', { form: { email_address_visibility: '4' } })).status, 200);
  }
  const entry = (list: Record<string, any>[], id: number) => list.find((u) => u.user_id === id)!;
  for (let round = 0; round < 2; round++) {
    const seenByB = await usersOf(b);
    t.is(entry(seenByB, a.id).delivery_email, null, 'nobody else sees it');
    t.is(entry(seenByB, b.id).delivery_email, b.email, 'B sees their own');
    const seenByA = await usersOf(a);
    t.is(entry(seenByA, a.id).delivery_email, a.email);
    t.is(entry(seenByA, b.id).delivery_email, null);
  }
  // client_gravatar is part of the form.
  t.is(entry(await usersOf(a, { client_gravatar: 'false' }), b.id).avatar_url.startsWith('https://'), true);
  t.is(entry(await usersOf(a), b.id).avatar_url, null);
  // A change to a user shows in the next register of the same kind of viewer.
  t.is((await s.client.as(s.owner).patch(`/users/${b.id}`, { form: { full_name: 'Renamed B' } })).status, 200);
  t.is(entry(await usersOf(a), b.id).full_name, 'Renamed B');
  t.is((await s.client.as(s.owner).delete(`/users/${b.id}`)).status, 200);
  t.is((await usersOf(a)).find((u) => u.user_id === b.id), undefined, 'deactivated: no longer in realm_users');
  const inactive = (await s.client.as(a).post('/register', { form: { fetch_event_types: '["realm_user"]' } })).json.realm_non_active_users;
  t.is(entry(inactive, b.id).full_name, 'Renamed B');
});

test.serial('a register right after a channel change sees it, and a private channel only its subscribers see', async (t) => {
  const member = await addUser(s, { fullName: 'Channel Watcher' });
  const outsider = await addUser(s, { fullName: 'Channel Outsider' });
  const streams = async (who: TestUser) => {
    const r = await s.client.as(who).post('/register', { form: { fetch_event_types: '["stream","subscription"]' } });
    if (r.status !== 200) throw new Error(r.text);
    return r.json as { streams: { stream_id: number; name: string }[]; subscriptions: { stream_id: number; name: string }[] };
  };
  const sub = (name: string, invite_only: boolean) =>
    s.client.as(member).post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name }]), invite_only: String(invite_only) } });
  t.is((await sub('register cache public', false)).status, 200);
  t.is((await sub('register cache secret', true)).status, 200);
  const before = await streams(member);
  const id = before.streams.find((c) => c.name === 'register cache public')!.stream_id;
  const secret = before.streams.find((c) => c.name === 'register cache secret')!.stream_id;
  await streams(outsider);
  t.is((await s.client.as(s.owner).patch(`/streams/${id}`, { form: { new_name: 'register cache renamed' } })).status, 200);
  for (const who of [member, outsider]) {
    const after = await streams(who);
    t.is(after.streams.find((c) => c.stream_id === id)?.name, 'register cache renamed');
    t.is(after.streams.some((c) => c.stream_id === secret), who === member, 'the private channel only for its subscriber');
  }
  t.is((await streams(member)).subscriptions.find((c) => c.stream_id === id)?.name, 'register cache renamed');
});

test.serial("everyone's statuses, shared by registers, show each change, a deactivation and a reactivation", async (t) => {
  const watcher = await addUser(s, { fullName: 'Status Watcher' });
  const traveller = await addUser(s, { fullName: 'Status Traveller' });
  const statuses = async () => {
    const r = await s.client.as(watcher).post('/register', { form: { fetch_event_types: '["user_status"]' } });
    if (r.status !== 200) throw new Error(r.text);
    return r.json.user_status as Record<string, Record<string, unknown> | undefined>;
  };
  t.is((await statuses())[traveller.id], undefined, 'no status yet');
  t.is((await s.client.as(traveller).post('/users/me/status', { form: { status_text: 'On a trip' } })).status, 200);
  t.deepEqual((await statuses())[traveller.id], { status_text: 'On a trip' });
  t.is((await s.client.as(traveller).post('/users/me/status', { form: { away: 'true' } })).status, 200);
  t.deepEqual((await statuses())[traveller.id], { away: true, status_text: 'On a trip' });
  t.is((await s.client.as(s.owner).delete(`/users/${traveller.id}`)).status, 200);
  t.is((await statuses())[traveller.id], undefined, 'deactivated: left out');
  t.is((await s.client.as(s.owner).post(`/users/${traveller.id}/reactivate`)).status, 200);
  t.deepEqual((await statuses())[traveller.id], { away: true, status_text: 'On a trip' });
});
