// Permission and account gaps of issue #17 over real HTTP: email_address_visibility on every `email` (fake
// user{id}@{realm host} addresses, gravatars from them, lookups by the addresses a viewer may use, events),
// can_access_all_users_group beyond register (GET /users, GET /users/{id}, direct messages), spectators and user
// statuses, and the password policy (with what register advertises).
import { createHash } from 'node:crypto';
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { dm, events, makeChannel, post, register, setRealm, systemGroupId, uniqueName } from '../messages/helpers.js';

const DOMAIN = 'chat.example';
let s: TestServer;
let ownerId: number;
test.before(async () => {
  // The default realm's host is the root domain: fake addresses end in it.
  s = await startTestServer({ env: { ROOT_DOMAIN: DOMAIN } });
  ownerId = (await s.client.as(s.owner).get('/users/me')).json.user_id;
});
test.after.always(() => s?.close());

const md5 = (text: string) => createHash('md5').update(text).digest('hex');
const fake = (u: TestUser) => `user${u.id}@${DOMAIN}`;

test.serial('a hidden address is a fake one in every `email`, and delivery_email only where allowed', async (t) => {
  const hidden = await addUser(s, { fullName: 'Hidden Hilda' });
  const member = await addUser(s);
  const guest = await addUser(s, { role: 600 });
  t.is((await s.client.as(hidden).patch('/settings', { form: { email_address_visibility: '3' } })).status, 200);
  const channel = await makeChannel(s, uniqueName('hidden'), [ownerId, hidden.id, member.id, guest.id], {});
  const messageId = await post(s, hidden, channel, 'hello', 'hi all');
  const dmId = await dm(s, hidden, [member.id], 'psst');

  // User records: the same fake `email` for everyone, the real one as delivery_email for administrators.
  const asMember = (await s.client.as(member).get(`/users/${hidden.id}`, { query: { client_gravatar: 'false' } })).json.user;
  t.is(asMember.email, fake(hidden));
  t.is(asMember.delivery_email, null);
  t.false(asMember.avatar_url.includes(md5(hidden.email)), 'no gravatar hash of the real address');
  t.true(asMember.avatar_url.includes(md5(fake(hidden))));
  const asOwner = (await s.client.as(s.owner).get(`/users/${hidden.id}`)).json.user;
  t.is(asOwner.email, fake(hidden));
  t.is(asOwner.delivery_email, hidden.email);
  const list = (await s.client.as(guest).get('/users')).json.members as any[];
  t.is(list.find((u) => u.user_id === hidden.id).email, fake(hidden));
  t.false(JSON.stringify(list).includes(hidden.email), 'a guest never sees the real address');
  // Their own record: fake email, real delivery_email.
  const me = (await s.client.as(hidden).get('/users/me')).json;
  t.is(me.email, fake(hidden));
  t.is(me.delivery_email, hidden.email);

  // Messages: sender_email, display_recipient, avatar.
  const msgs = (await s.client.as(guest).get('/messages', { query: { anchor: String(messageId), num_before: '0', num_after: '0', client_gravatar: 'false' } })).json.messages;
  t.is(msgs[0].sender_email, fake(hidden));
  t.false(msgs[0].avatar_url.includes(md5(hidden.email)));
  const direct = (await s.client.as(member).get(`/messages/${dmId}`)).json.message;
  t.is(direct.sender_email, fake(hidden));
  t.is(direct.display_recipient.find((r: any) => r.id === hidden.id).email, fake(hidden));

  // Register: realm_users and the user's own section.
  const reg = await register(s, guest, { fetch_event_types: '["realm_user"]' });
  const entry = reg.realm_users.find((u: any) => u.user_id === hidden.id);
  t.is(entry.email, fake(hidden));
  t.is(entry.delivery_email, null);
  t.false(JSON.stringify(reg).includes(hidden.email));
  const own = await register(s, hidden, { fetch_event_types: '["realm_user"]' });
  t.is(own.email, fake(hidden));
  t.is(own.delivery_email, hidden.email);

  // Lookups: the fake address works for anyone, the real one only for those who may see it.
  t.is((await s.client.as(member).get(`/users/${encodeURIComponent(fake(hidden))}`)).json.user.user_id, hidden.id);
  t.is((await s.client.as(member).get(`/users/${encodeURIComponent(hidden.email)}`)).json.msg, 'No such user');
  t.is((await s.client.as(s.owner).get(`/users/${encodeURIComponent(hidden.email)}`)).json.user.user_id, hidden.id);
  const byReal = await s.client.as(member).post('/messages', { form: { type: 'direct', to: JSON.stringify([hidden.email]), content: 'guess' } });
  t.is(byReal.status, 400);
  t.is(byReal.json.msg, `Invalid email '${hidden.email}'`);
  t.is((await s.client.as(member).post('/messages', { form: { type: 'direct', to: JSON.stringify([fake(hidden)]), content: 'hi' } })).status, 200);

  // Back to "everyone": realm_user new_email (the real address) and delivery_email for those who gain it.
  const q = (await register(s, member)).queue_id;
  t.is((await s.client.as(hidden).patch('/settings', { form: { email_address_visibility: '1' } })).status, 200);
  const updates = (await events(s, member, q)).filter((e) => e.type === 'realm_user' && e.person.user_id === hidden.id);
  t.truthy(updates.find((e) => e.person.new_email === hidden.email));
  t.truthy(updates.find((e) => e.person.delivery_email === hidden.email));
  t.is((await s.client.as(guest).get(`/users/${hidden.id}`)).json.user.email, hidden.email);
});

test.serial('spectators see fake addresses of hidden senders and no user statuses', async (t) => {
  await setRealm(s, { enable_spectator_access: true });
  const hidden = await addUser(s);
  t.is((await s.client.as(hidden).patch('/settings', { form: { email_address_visibility: '2' } })).status, 200);
  t.is((await s.client.as(hidden).post('/users/me/status', { form: { status_text: 'on holiday' } })).status, 200);
  const channel = (await s.client.as(s.owner).post('/channels/create', { form: { name: uniqueName('open'), is_web_public: 'true', subscribers: JSON.stringify([ownerId, hidden.id]) } })).json.id;
  const id = await post(s, hidden, channel, 'public', 'for everyone');
  const narrow = JSON.stringify([{ operator: 'channels', operand: 'web-public' }]);
  const seen = await s.client.get('/messages', { query: { anchor: String(id), num_before: '0', num_after: '0', narrow, client_gravatar: 'false' } });
  t.is(seen.status, 200, seen.text);
  t.is(seen.json.messages[0].sender_email, fake(hidden));
  t.false(seen.text.includes(hidden.email));
  t.false(seen.text.includes(md5(hidden.email)));
  // A spectator's register has no statuses; a user's has this one.
  const spectator = await s.client.post('/register', { form: { fetch_event_types: '["user_status"]' } });
  t.is(spectator.status, 200, spectator.text);
  t.deepEqual(spectator.json.user_status, {});
  const user = await register(s, s.owner, { fetch_event_types: '["user_status"]' });
  t.is(user.user_status[String(hidden.id)].status_text, 'on holiday');
  await setRealm(s, { enable_spectator_access: false });
});

test.serial('can_access_all_users_group: placeholders in GET /users, refusals for GET /users/{id} and direct messages', async (t) => {
  const guest = await addUser(s, { role: 600 });
  const colleague = await addUser(s, { fullName: 'Seen Colleague' });
  const stranger = await addUser(s, { fullName: 'Unseen Stranger' });
  await makeChannel(s, uniqueName('shared'), [guest.id, colleague.id], {});
  await setRealm(s, {}, { can_access_all_users_group: await systemGroupId(s, 'role:members') });
  try {
    const members = (await s.client.as(guest).get('/users')).json.members as any[];
    t.is(members.find((u) => u.user_id === colleague.id).full_name, 'Seen Colleague');
    const placeholder = members.find((u) => u.user_id === stranger.id);
    t.is(placeholder.full_name, 'Unknown user');
    t.is(placeholder.email, fake(stranger));
    t.false(JSON.stringify(members).includes('Unseen Stranger'));
    t.false(JSON.stringify(members).includes(stranger.email));

    t.is((await s.client.as(guest).get(`/users/${colleague.id}`)).status, 200);
    const refused = await s.client.as(guest).get(`/users/${stranger.id}`);
    t.is(refused.status, 400);
    t.deepEqual(refused.json, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
    t.is((await s.client.as(guest).get(`/users/${encodeURIComponent(fake(stranger))}`)).json.msg, 'Insufficient permission');
    // Nor their status: in events, in register, or alone.
    const queue = (await register(s, guest, { event_types: '["user_status"]' })).queue_id;
    t.is((await s.client.as(stranger).post('/users/me/status', { form: { status_text: 'secret plans' } })).status, 200);
    t.is((await s.client.as(colleague).post('/users/me/status', { form: { status_text: 'in the shared room' } })).status, 200);
    const heard = (await events(s, guest, queue)).filter((e) => e.type === 'user_status').map((e) => e.user_id);
    t.deepEqual(heard, [colleague.id]);
    const statuses = (await register(s, guest, { fetch_event_types: '["user_status"]' })).user_status;
    t.is(statuses[String(colleague.id)].status_text, 'in the shared room');
    t.false(String(stranger.id) in statuses);
    t.is((await s.client.as(guest).get(`/users/${stranger.id}/status`)).json.msg, 'Insufficient permission');

    const send = (to: TestUser) => s.client.as(guest).post('/messages', { form: { type: 'direct', to: JSON.stringify([to.id]), content: 'hello' } });
    const denied = await send(stranger);
    t.is(denied.status, 400);
    t.deepEqual(denied.json, { result: 'error', msg: 'You do not have permission to access some of the recipients.', code: 'BAD_REQUEST' });
    t.is((await send(colleague)).status, 200);
    // Once the stranger writes to the guest, they share a conversation: the guest may see and answer them.
    await dm(s, stranger, [guest.id], 'hello guest');
    t.is((await send(stranger)).status, 200);
    t.is((await s.client.as(guest).get(`/users/${stranger.id}`)).json.user.full_name, 'Unseen Stranger');
    // Members are not restricted.
    t.is((await s.client.as(colleague).get(`/users/${stranger.id}`)).status, 200);
  } finally {
    await setRealm(s, {}, { can_access_all_users_group: await systemGroupId(s, 'role:everyone') });
  }
});

test.serial('can_access_all_users_group: typing to users one may not access is refused as the direct message is', async (t) => {
  const guest = await addUser(s, { role: 600 });
  const colleague = await addUser(s);
  const stranger = await addUser(s);
  await makeChannel(s, uniqueName('typing'), [guest.id, colleague.id], {});
  await setRealm(s, {}, { can_access_all_users_group: await systemGroupId(s, 'role:members') });
  try {
    const queues = {
      colleague: (await register(s, colleague, { event_types: '["typing"]' })).queue_id as string,
      stranger: (await register(s, stranger, { event_types: '["typing"]' })).queue_id as string,
    };
    const type = (to: TestUser[]) => s.client.as(guest).post('/typing', { form: { op: 'start', to: JSON.stringify(to.map((u) => u.id)) } });
    const heard = async (who: TestUser, queue: string) => (await events(s, who, queue)).filter((e) => e.type === 'typing' && e.sender.user_id === guest.id);

    for (const to of [[stranger], [colleague, stranger]]) {
      const denied = await type(to);
      t.is(denied.status, 400);
      t.deepEqual(denied.json, { result: 'error', msg: 'You do not have permission to access some of the recipients.', code: 'BAD_REQUEST' });
    }
    t.deepEqual(await heard(stranger, queues.stranger), [], 'the stranger hears nothing');
    t.deepEqual(await heard(colleague, queues.colleague), [], 'nor does the colleague of a refused group');

    t.is((await type([colleague])).status, 200);
    t.is((await heard(colleague, queues.colleague)).length, 1);
    // Once the stranger writes to the guest, they share a conversation: typing to them is delivered.
    await dm(s, stranger, [guest.id], 'hello guest');
    t.is((await type([stranger])).status, 200);
    t.is((await heard(stranger, queues.stranger)).length, 1);
  } finally {
    await setRealm(s, {}, { can_access_all_users_group: await systemGroupId(s, 'role:everyone') });
  }
});

test.serial('the password policy: length limits and the strength estimate, on POST /users and PATCH /settings; register advertises it', async (t) => {
  const create = (password: string, n: number) =>
    s.client.as(s.owner).post('/users', { form: { email: `pw-${n}@test.example`, password, full_name: `Pw ${n}` } });
  const weak = ['password', '12345678', 'abc1', 'qwertyuiop', 'aB3$x'];
  for (const [i, pw] of weak.entries()) {
    const r = await create(pw, i);
    t.is(r.status, 400, pw);
    t.deepEqual(r.json, { result: 'error', msg: 'The password is too weak.', code: 'BAD_REQUEST' }, pw);
  }
  t.is((await create('kx9-Vortex-lamp-31' + 'z'.repeat(83), 90)).json.msg, 'The password is too weak.', 'over password_max_length');
  t.is((await create('kx9-Vortex-lamp-31', 91)).status, 200);

  const u = await addUser(s, { password: 'first-Passw0rd-ok' });
  const change = (next: string) => s.client.as(u).patch('/settings', { form: { old_password: 'first-Passw0rd-ok', new_password: next } });
  t.is((await change('123456')).json.msg, 'The password is too weak.');
  t.is((await change('second-Passw0rd-ok')).status, 200);

  const reg = await register(s, u, { fetch_event_types: '["realm"]' });
  t.is(reg.password_min_length, 6);
  t.is(reg.password_max_length, 100);
  t.is(reg.password_min_guesses, 10000);
});
