// Users over HTTP: listing, fetching, creating, updating, deactivating and reactivating, with their events.
import test from 'ava';
import { addUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { ids, watchEvents } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s.close());

const realmState = async () => (await s.server.services.realms.forHost(undefined)).state;

test.serial('GET /users lists every user with the reference fields; delivery_email follows email visibility', async (t) => {
  const member = await addUser(s, { role: 400 });
  const bot = await addUser(s, { role: 400, isBot: true });
  const res = await s.client.as(member).get('/users', { query: { client_gravatar: 'false' } });
  t.is(res.status, 200);
  const byId = new Map((res.json.members as any[]).map((m) => [m.user_id, m]));
  const me = byId.get(member.id);
  t.deepEqual(Object.keys(me).sort(), [
    'avatar_url', 'avatar_version', 'bot_type', 'date_joined', 'delivery_email', 'email', 'full_name', 'is_active',
    'is_admin', 'is_bot', 'is_guest', 'is_owner', 'role', 'timezone', 'user_id',
  ]);
  t.is(me.email, member.email);
  t.is(me.delivery_email, member.email);
  t.is(me.role, 400);
  t.is(me.bot_type, null);
  t.true(me.avatar_url.startsWith('https://secure.gravatar.com/avatar/'));
  const b = byId.get(bot.id);
  t.is(b.is_bot, true);
  t.is(b.bot_type, 1);
  t.true('bot_owner_id' in b);
  t.false('profile_data' in b);
  const owner = byId.get((await realmState()).userByEmail(s.owner.email)!.id);
  t.is(owner.is_owner, true);
  t.is(owner.is_admin, true);

  // client_gravatar (the default) leaves avatar_url null.
  const gravatar = await s.client.as(member).get('/users');
  t.is(gravatar.json.members[0].avatar_url, null);

  // A user who hides their email from members: delivery_email null for a member, real for an administrator.
  const hidden = await addUser(s, { role: 400 });
  t.is((await s.client.as(hidden).patch('/settings', { form: { email_address_visibility: '3' } })).status, 200);
  const asMember = await s.client.as(member).get(`/users/${hidden.id}`);
  t.is(asMember.json.user.delivery_email, null);
  const asOwner = await s.client.as(s.owner).get(`/users/${hidden.id}`);
  t.is(asOwner.json.user.delivery_email, hidden.email);

  // user_ids narrows the list; an unknown ID is an error.
  const some = await s.client.as(member).get('/users', { query: { user_ids: JSON.stringify([member.id, bot.id]) } });
  t.deepEqual(some.json.members.map((m: any) => m.user_id), [member.id, bot.id]);
  const bad = await s.client.as(member).get('/users', { query: { user_ids: '[999999]' } });
  t.is(bad.json.msg, 'Invalid user ID: 999999');
});

test.serial('GET /users/{id} and /users/{email}; unknown users are "No such user"', async (t) => {
  const u = await addUser(s, { role: 600, fullName: 'Guest Person' });
  const byId = await s.client.as(s.owner).get(`/users/${u.id}`);
  t.is(byId.json.user.full_name, 'Guest Person');
  t.is(byId.json.user.is_guest, true);
  t.is(byId.json.user.role, 600);
  const byEmail = await s.client.as(s.owner).get(`/users/${encodeURIComponent(u.email)}`);
  t.is(byEmail.json.user.user_id, u.id);
  const missing = await s.client.as(s.owner).get('/users/424242');
  t.is(missing.status, 400);
  t.is(missing.json.code, 'BAD_REQUEST');
  t.is(missing.json.msg, 'No such user');
  const me = await s.client.as(u).get('/users/me');
  t.is(me.json.user_id, u.id);
  t.is(me.json.delivery_email, u.email);
  t.is(me.json.max_message_id, -1);
});

test.serial('POST /users: administrators with can_create_users; email and name checks; the new user can log in', async (t) => {
  const log = watchEvents(s);
  const form = { email: 'created1@test.example', password: 'pw-created-1', full_name: 'Created One' };
  const res = await s.client.as(s.owner).post('/users', { form });
  t.is(res.status, 200, res.text);
  const userId = res.json.user_id as number;
  t.true(Number.isInteger(userId));
  const login = await s.client.post('/fetch_api_key', { form: { username: form.email, password: form.password } });
  t.is(login.json.user_id, userId);

  // realm_user add to everyone, and the role group's add_members.
  const add = log.of('realm_user', 'add');
  t.is(add.length >= 1, true);
  t.is((add[0]!.event.person as any).user_id, userId);
  t.is((add[0]!.event.person as any).full_name, 'Created One');
  const state = await realmState();
  const members = state.systemGroup('role:fullmembers').id;
  const groupAdd = log.of('user_group', 'add_members').find((e) => e.event.group_id === members);
  t.deepEqual(groupAdd?.event.user_ids, [userId]);
  t.true(ids(add.flatMap((e) => e.users)).includes(userId));
  log.stop();

  const again = await s.client.as(s.owner).post('/users', { form });
  t.is(again.status, 400);
  t.is(again.json.code, 'BAD_REQUEST');
  t.is(again.json.msg, 'Email is already in use.');
  const upper = await s.client.as(s.owner).post('/users', { form: { ...form, email: 'CREATED1@test.example' } });
  t.is(upper.json.msg, 'Email is already in use.');

  const badEmail = await s.client.as(s.owner).post('/users', { form: { ...form, email: 'not-an-email' } });
  t.is(badEmail.json.msg, "Invalid email address 'not-an-email'");
  const badName = await s.client.as(s.owner).post('/users', { form: { ...form, email: 'n2@test.example', full_name: '   ' } });
  t.is(badName.json.msg, 'Name too short!');
  const longName = await s.client.as(s.owner).post('/users', { form: { ...form, email: 'n3@test.example', full_name: 'x'.repeat(101) } });
  t.is(longName.json.msg, 'Name too long!');
  const oddName = await s.client.as(s.owner).post('/users', { form: { ...form, email: 'n4@test.example', full_name: 'a@b' } });
  t.is(oddName.json.msg, 'Invalid characters in name!');
  const missing = await s.client.as(s.owner).post('/users', { form: { email: 'n5@test.example', full_name: 'N' } });
  t.is(missing.json.code, 'REQUEST_VARIABLE_MISSING');
});

test.serial('POST /users refuses every role but an administrator with can_create_users', async (t) => {
  const form = { email: 'nobody-made@test.example', password: 'pw', full_name: 'Nobody' };
  // An administrator without can_create_users.
  const admin = await addUser(s, { role: 200 });
  const a = await s.client.as(admin).post('/users', { form });
  t.is(a.status, 400);
  t.is(a.json.msg, 'User not authorized to create users');
  for (const role of [300, 400, 600] as const) {
    const u = await addUser(s, { role });
    const r = await s.client.as(u).post('/users', { form });
    t.is(r.json.code, 'UNAUTHORIZED_PRINCIPAL', `role ${role}`);
    t.is(r.json.msg, 'Must be an organization administrator');
  }
  t.is((await realmState()).userByEmail(form.email), undefined);
});

test.serial('PATCH /users/{id}: role and full name with events; only owners touch the owner role', async (t) => {
  const target = await addUser(s, { role: 400 });
  const admin = await addUser(s, { role: 200 });
  const log = watchEvents(s);
  const res = await s.client.as(admin).patch(`/users/${target.id}`, { form: { role: '300', full_name: 'Renamed Person' } });
  t.is(res.status, 200, res.text);
  const state = await realmState();
  t.is(state.usersById.get(target.id)!.role, 300);
  t.is(state.usersById.get(target.id)!.fullName, 'Renamed Person');
  t.true(state.isInGroup(target.id, state.systemGroup('role:moderators').id));
  t.false(state.systemGroup('role:fullmembers').directMembers.has(target.id));
  const updates = log.of('realm_user', 'update').map((e) => e.event.person);
  t.deepEqual(updates, [{ user_id: target.id, role: 300 }, { user_id: target.id, full_name: 'Renamed Person' }]);
  t.deepEqual(log.of('user_group', 'remove_members')[0]!.event, {
    type: 'user_group', op: 'remove_members', group_id: state.systemGroup('role:fullmembers').id, user_ids: [target.id],
  });
  t.deepEqual(log.of('user_group', 'add_members')[0]!.event.group_id, state.systemGroup('role:moderators').id);
  log.stop();

  const toOwner = await s.client.as(admin).patch(`/users/${target.id}`, { form: { role: '100' } });
  t.is(toOwner.json.msg, 'Must be an organization owner');
  const ownerId = state.userByEmail(s.owner.email)!.id;
  const demoteOwner = await s.client.as(s.owner).patch(`/users/${ownerId}`, { form: { role: '200' } });
  t.is(demoteOwner.json.msg, 'The owner permission cannot be removed from the only organization owner.');
  const badRole = await s.client.as(s.owner).patch(`/users/${target.id}`, { form: { role: '500' } });
  t.is(badRole.json.msg, 'Invalid role');
  const member = await addUser(s, { role: 400 });
  const notAdmin = await s.client.as(member).patch(`/users/${target.id}`, { form: { full_name: 'X' } });
  t.is(notAdmin.json.code, 'UNAUTHORIZED_PRINCIPAL');
  const unknown = await s.client.as(admin).patch('/users/99999', { form: { full_name: 'X' } });
  t.is(unknown.json.msg, 'No such user');
});

test.serial('DELETE /users/{id}: state table, notification email, API key stops at once, reactivation', async (t) => {
  const admin = await addUser(s, { role: 200 });
  const victim = await addUser(s, { role: 400, fullName: 'Leaving Soon' });
  // A live event queue of the victim is expired.
  const reg = await s.client.as(victim).post('/register', { form: { event_types: '["realm_user"]' } });
  t.is(reg.status, 200, reg.text);
  const log = watchEvents(s);
  const res = await s.client.as(admin).delete(`/users/${victim.id}`, { form: { deactivation_notification_comment: 'Thanks for everything' } });
  t.is(res.status, 200, res.text);
  t.is(s.server.services.queues.byUser(victim.id).length, 0);
  const key = await s.client.as(victim).get('/users/me');
  t.is(key.status, 401);
  t.is(key.json.code, 'USER_DEACTIVATED');
  const update = log.of('realm_user', 'update')[0]!;
  t.deepEqual(update.event.person, { user_id: victim.id, is_active: false });
  t.true(ids(update.users).includes(admin.id));
  log.stop();
  const mail = (await s.server.services.db.outbox.all()).filter((m) => m.to === victim.email);
  t.is(mail.length, 1);
  t.regex(mail[0]!.subject, /deactivation/);
  t.regex(mail[0]!.body, /Thanks for everything/);

  // Already deactivated: no such (active) user.
  const twice = await s.client.as(admin).delete(`/users/${victim.id}`);
  t.is(twice.json.msg, 'No such user');

  // No comment: no email. Empty comment: an email without custom text.
  const quiet = await addUser(s, { role: 400 });
  t.is((await s.client.as(admin).delete(`/users/${quiet.id}`)).status, 200);
  const plain = await addUser(s, { role: 400 });
  t.is((await s.client.as(admin).delete(`/users/${plain.id}`, { form: { deactivation_notification_comment: '' } })).status, 200);
  const all = await s.server.services.db.outbox.all();
  t.is(all.filter((m) => m.to === quiet.email).length, 0);
  const plainMail = all.filter((m) => m.to === plain.email);
  t.is(plainMail.length, 1);
  t.notRegex(plainMail[0]!.body, /following comment/);

  // Reactivation brings the key back.
  const log2 = watchEvents(s);
  const re = await s.client.as(admin).post(`/users/${victim.id}/reactivate`);
  t.is(re.status, 200, re.text);
  t.is((await s.client.as(victim).get('/users/me')).status, 200);
  t.deepEqual(log2.of('realm_user', 'update')[0]!.event.person, { user_id: victim.id, is_active: true });
  log2.stop();
  const reAgain = await s.client.as(admin).post(`/users/${victim.id}/reactivate`);
  t.is(reAgain.json.msg, 'User is already active');
});

test.serial('DELETE /users/{id}: only the organization owner cannot go; administrators cannot remove owners; roles below cannot', async (t) => {
  const state = await realmState();
  const ownerId = state.userByEmail(s.owner.email)!.id;
  const only = await s.client.as(s.owner).delete(`/users/${ownerId}`);
  t.is(only.status, 400);
  t.is(only.json.code, 'BAD_REQUEST');
  t.is(only.json.msg, 'Cannot deactivate the only organization owner');

  const admin = await addUser(s, { role: 200 });
  const owner2 = await addUser(s, { role: 100 });
  const byAdmin = await s.client.as(admin).delete(`/users/${owner2.id}`);
  t.is(byAdmin.json.msg, 'Must be an organization owner');
  for (const role of [300, 400, 600] as const) {
    const u = await addUser(s, { role });
    const r = await s.client.as(u).delete(`/users/${admin.id}`);
    t.is(r.json.code, 'UNAUTHORIZED_PRINCIPAL', `role ${role}`);
  }
  // With two owners, one owner may deactivate the other.
  t.is((await s.client.as(s.owner).delete(`/users/${owner2.id}`)).status, 200);
});

test.serial("DELETE /users/me: deactivates one's own account, but not the only owner's; bots of a deactivated user go too", async (t) => {
  const me = await addUser(s, { role: 400 });
  const realm = await s.server.services.realms.forHost(undefined);
  const botId: number = await s.server.services.db.one(
    `INSERT INTO users (realm_id, email, full_name, role, api_key, is_bot, bot_type, bot_owner_id)
     VALUES ($1, 'mybot-bot@test.example', 'My Bot', 400, 'botkey0123456789', true, 1, $2) RETURNING id`,
    [realm.id, me.id],
    (r) => r.id,
  );
  await realm.dispatch('realm.reload');
  const botRecord = await s.client.as(me).get(`/users/${botId}`);
  t.is(botRecord.json.user.bot_owner_id, me.id);
  const log = watchEvents(s);
  const res = await s.client.as(me).delete('/users/me');
  t.is(res.status, 200, res.text);
  t.is((await s.client.as(me).get('/users/me')).json.code, 'USER_DEACTIVATED');
  t.false(realm.state.usersById.get(botId)!.isActive);
  t.deepEqual(log.of('realm_user', 'update').map((e) => e.event.person), [
    { user_id: me.id, is_active: false },
    { user_id: botId, is_active: false },
  ]);
  log.stop();
  // No notification email for one's own deactivation.
  t.is((await s.server.services.db.outbox.all()).filter((m) => m.to === me.email).length, 0);
  const last = await s.client.as(s.owner).delete('/users/me');
  t.is(last.status, 400);
  t.is(last.json.code, 'CANNOT_DEACTIVATE_LAST_USER');
  t.is(last.json.msg, 'Cannot deactivate the only organization owner');
  t.is(last.json.entity, 'organization owner');
  t.is(last.json.is_last_owner, true);
});
