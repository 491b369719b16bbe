// User status over HTTP: the spec's text and emoji rules, the three reaction types, administrators' E9, events.
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ids, watchEvents } from './helpers.js';

let s: TestServer;
let member: TestUser;
test.before(async () => {
  s = await startTestServer();
  member = await addUser(s, { role: 400 });
});
test.after.always(() => s.close());

const setOwn = (form: Record<string, string>, as: TestUser = member) => s.client.as(as).post('/users/me/status', { form });
const getStatus = async (id: number) => (await s.client.as(member).get(`/users/${id}/status`)).json;

test.serial('status text and a unicode emoji by name; GET returns only the keys set; event to everyone', async (t) => {
  const other = await addUser(s, { role: 600 });
  t.deepEqual((await getStatus(other.id)).status, {});
  const log = watchEvents(s);
  const res = await setOwn({ status_text: '  on vacation  ', emoji_name: 'car' });
  t.is(res.status, 200, res.text);
  t.deepEqual((await getStatus(member.id)).status, {
    status_text: 'on vacation',
    emoji_name: 'car',
    emoji_code: '1f697',
    reaction_type: 'unicode_emoji',
  });
  const ev = log.of('user_status')[0]!;
  t.deepEqual(ev.event, {
    type: 'user_status',
    user_id: member.id,
    status_text: 'on vacation',
    emoji_name: 'car',
    emoji_code: '1f697',
    reaction_type: 'unicode_emoji',
  });
  t.true(ids(ev.users).includes(other.id));
  // Only what is passed changes: new text keeps the emoji.
  await setOwn({ status_text: 'back soon' });
  t.is((await getStatus(member.id)).status.emoji_name, 'car');
  t.deepEqual(log.of('user_status')[1]!.event, { type: 'user_status', user_id: member.id, status_text: 'back soon' });
  // Empty strings clear.
  await setOwn({ status_text: '', emoji_name: '' });
  t.deepEqual((await getStatus(member.id)).status, {});
  log.stop();
});

test.serial('the three reaction types and their error texts', async (t) => {
  t.is((await setOwn({ emoji_name: 'smile', emoji_code: '1f642', reaction_type: 'unicode_emoji' })).status, 200);
  t.is((await setOwn({ emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' })).status, 200);
  t.deepEqual((await getStatus(member.id)).status, { emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' });
  // A name alone finds the extra emoji too.
  await setOwn({ emoji_name: 'zulip' });
  t.is((await getStatus(member.id)).status.reaction_type, 'zulip_extra_emoji');

  const cases: [Record<string, string>, string][] = [
    [{ emoji_name: 'no_such_emoji_here' }, "Emoji 'no_such_emoji_here' does not exist"],
    [{ emoji_name: 'car', emoji_code: '1f642', reaction_type: 'unicode_emoji' }, 'Invalid emoji name.'],
    [{ emoji_name: 'car', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' }, 'Invalid emoji code.'],
    [{ emoji_name: 'party', emoji_code: '42', reaction_type: 'realm_emoji' }, 'Invalid custom emoji.'],
    [{ emoji_name: 'other', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' }, 'Invalid emoji name.'],
    [{ emoji_name: 'x', emoji_code: 'x', reaction_type: 'zulip_extra_emoji' }, 'Invalid emoji code.'],
    [{ emoji_name: 'car', emoji_code: '1f697', reaction_type: 'weird' }, 'Invalid emoji type.'],
    [{ emoji_code: '1f697' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [{ status_text: 'hi', reaction_type: 'unicode_emoji' }, 'Client must pass emoji_name if they pass either emoji_code or reaction_type.'],
    [{}, 'Client did not pass any new values.'],
    [{ status_text: 'x'.repeat(61) }, 'status_text is too long (limit: 60 characters)'],
  ];
  for (const [form, msg] of cases) {
    const r = await setOwn(form);
    t.is(r.status, 400, JSON.stringify(form));
    t.is(r.json.code, 'BAD_REQUEST');
    t.is(r.json.msg, msg, JSON.stringify(form));
  }
  // Exactly 60 characters is fine (emoji count as one character each).
  t.is((await setOwn({ status_text: '🙂'.repeat(60) })).status, 200);
});

test.serial('realm_emoji statuses use the realm\'s custom emoji by ID; renamed, unknown or deactivated ones are refused', async (t) => {
  const realm = await s.server.services.realms.forHost(undefined);
  const db = s.server.services.db;
  const party = await db.realmEmoji.add(realm.id, 'party_parrot', 'parrot.gif', member.id);
  const gone = await db.realmEmoji.add(realm.id, 'old_logo', 'old.png', member.id);
  await db.realmEmoji.deactivate(gone.id);
  await realm.dispatch('realm.reload');
  await setOwn({ status_text: '' });
  t.is((await setOwn({ emoji_name: 'party_parrot', emoji_code: String(party.id), reaction_type: 'realm_emoji' })).status, 200);
  t.deepEqual((await getStatus(member.id)).status, { emoji_name: 'party_parrot', emoji_code: String(party.id), reaction_type: 'realm_emoji' });
  // By name alone the custom emoji is found too.
  await setOwn({ emoji_name: '' });
  t.is((await setOwn({ emoji_name: 'party_parrot' })).status, 200);
  t.is((await getStatus(member.id)).status.emoji_code, String(party.id));
  t.is((await setOwn({ emoji_name: 'parrot', emoji_code: String(party.id), reaction_type: 'realm_emoji' })).json.msg, 'Invalid custom emoji name.');
  t.is((await setOwn({ emoji_name: 'old_logo', emoji_code: String(gone.id), reaction_type: 'realm_emoji' })).json.msg, 'This custom emoji has been deactivated.');
  t.is((await setOwn({ emoji_name: 'x', emoji_code: '999999', reaction_type: 'realm_emoji' })).json.msg, 'Invalid custom emoji.');
});

test.serial('E9: administrators set another user\'s status; other roles may not', async (t) => {
  const target = await addUser(s, { role: 400 });
  const admin = await addUser(s, { role: 200 });
  const log = watchEvents(s);
  const res = await s.client.as(admin).post(`/users/${target.id}/status`, { form: { status_text: 'in a meeting', emoji_name: 'calendar' } });
  t.is(res.status, 200, res.text);
  t.is((await getStatus(target.id)).status.emoji_code, '1f4c5');
  t.is((await getStatus(target.id)).status.status_text, 'in a meeting');
  t.is(log.of('user_status').at(-1)!.event.user_id, target.id);
  log.stop();
  t.is((await s.client.as(s.owner).post(`/users/${target.id}/status`, { form: { status_text: 'by owner' } })).status, 200);
  for (const role of [300, 400, 600] as const) {
    const u = await addUser(s, { role });
    const r = await s.client.as(u).post(`/users/${target.id}/status`, { form: { status_text: 'nope' } });
    t.is(r.json.code, 'BAD_REQUEST', `role ${role}`);
    t.is(r.json.msg, 'Insufficient permission');
  }
  t.is((await getStatus(target.id)).status.status_text, 'by owner');
  t.is((await s.client.as(admin).post('/users/99999/status', { form: { status_text: 'x' } })).json.msg, 'No such user');
  t.is((await s.client.as(admin).post(`/users/${target.id}/status`)).json.msg, 'Client did not pass any new values.');
  t.is((await s.client.as(member).get('/users/99999/status')).json.msg, 'No such user');
});

test.serial('away (deprecated) turns presence_enabled off and shows as away', async (t) => {
  const u = await addUser(s, { role: 400 });
  const log = watchEvents(s);
  t.is((await setOwn({ away: 'true' }, u)).status, 200);
  t.deepEqual((await getStatus(u.id)).status, { away: true });
  t.is(log.of('user_status')[0]!.event.away, true);
  t.deepEqual(log.of('user_settings')[0]!.event, { type: 'user_settings', op: 'update', property: 'presence_enabled', value: false });
  log.stop();
  await setOwn({ away: 'false' }, u);
  t.deepEqual((await getStatus(u.id)).status, {});
});

test.serial('a status survives a reload of the realm from the database', async (t) => {
  await setOwn({ status_text: 'persisted', emoji_name: 'car' });
  const realm = await s.server.services.realms.forHost(undefined);
  await realm.dispatch('realm.reload');
  t.is((await getStatus(member.id)).status.status_text, 'persisted');
});
