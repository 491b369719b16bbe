// Reusable invitation links over HTTP (E12): permissions by role, invite_as, expiry, channels, groups, welcome text,
// listing and revoking, invites_changed events; and the sign-up page's HTTP behaviour.
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { makeChannel } from './channels-fixture.js';
import { ids, watchEvents } from './helpers.js';

let s: TestServer;
let owner: TestUser;
let admin: TestUser;
test.before(async () => {
  s = await startTestServer();
  const me = (await s.client.as(s.owner).get('/users/me')).json;
  owner = { ...s.owner, id: me.user_id, fullName: me.full_name, role: 100 };
  admin = await addUser(s, { role: 200 });
});
test.after.always(() => s.close());

const invite = (as: TestUser, form: Record<string, string> = {}) => s.client.as(as).post('/invites/multiuse', { form });
/** A page outside the API (the test client puts API paths under /api/v1). */
async function web(path: string, form?: Record<string, string>) {
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, form ? { method: 'POST', body: new URLSearchParams(form) } : {});
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}
const keyOf = (link: string) => /\/join\/([a-z0-9]+)\/$/.exec(link)![1]!;
const state = async () => (await s.server.services.realms.forHost(undefined)).state;
/** The path of the confirmation link last mailed to `to` (read from the outbox). */
async function confirmationPath(to: string): Promise<string> {
  const mail = (await s.server.services.db.outbox.all()).filter((m) => m.to === to).at(-1)!;
  return new URL(/http:\/\/\S+\/accounts\/do_confirm\/[a-z0-9]+\//.exec(mail.body)![0]).pathname;
}

test.serial('an administrator creates a link: default expiry of 14400 minutes, role member, invites_changed', async (t) => {
  const log = watchEvents(s);
  const before = Math.floor(Date.now() / 1000);
  const res = await invite(admin);
  t.is(res.status, 200, res.text);
  t.regex(res.json.invite_link, new RegExp(`^http://127\\.0\\.0\\.1:${s.port}/join/[a-z0-9]{24}/$`));
  const stored = (await s.server.services.db.invites.byKey((await state()).realm.id, keyOf(res.json.invite_link)))!;
  t.is(stored.invitedAs, 400);
  t.true(Math.abs(stored.expiresAt! - (before + 14400 * 60)) <= 5);
  t.deepEqual(stored.channelIds, []);
  t.is(stored.includeRealmDefaultSubscriptions, false);
  const ev = log.of('invites_changed');
  t.is(ev.length, 1);
  t.deepEqual(ev[0]!.event, { type: 'invites_changed' });
  t.true(ids(ev[0]!.users).includes(owner.id));
  log.stop();

  const never = await invite(admin, { invite_expires_in_minutes: 'null' });
  t.is((await s.server.services.db.invites.byKey((await state()).realm.id, keyOf(never.json.invite_link)))!.expiresAt, null);
  const short = await invite(admin, { invite_expires_in_minutes: '30' });
  const shortRow = (await s.server.services.db.invites.byKey((await state()).realm.id, keyOf(short.json.invite_link)))!;
  t.is(shortRow.expiresAt! - shortRow.createdAt, 30 * 60);
  t.is((await invite(admin, { invite_expires_in_minutes: '0' })).json.msg, 'invite_expires_in_minutes is too small');
});

test.serial('who may create links: administrators by default; others once the realm permits; never above their own role', async (t) => {
  const moderator = await addUser(s, { role: 300 });
  const member = await addUser(s, { role: 400 });
  const guest = await addUser(s, { role: 600 });
  for (const u of [moderator, member, guest]) t.is((await invite(u)).json.msg, 'Insufficient permission', `role ${u.role}`);
  // Let members create links (realm permission create_multiuse_invite_group = role:members).
  const realm = await s.server.services.realms.forHost(undefined);
  const members = realm.state.systemGroup('role:members').id;
  await s.server.services.db.realms.setGroupSettings(realm.id, { ...realm.state.realm.groupSettings, create_multiuse_invite_group: members });
  await realm.dispatch('realm.reload');
  t.is((await invite(member)).status, 200);
  t.is((await invite(moderator, { invite_as: '300' })).status, 200);
  t.is((await invite(guest)).json.msg, 'Insufficient permission');
  // invite_as: equal or more restricted than the caller's own role.
  t.is((await invite(member, { invite_as: '300' })).json.msg, 'Insufficient permission');
  t.is((await invite(moderator, { invite_as: '200' })).json.msg, 'Insufficient permission');
  t.is((await invite(admin, { invite_as: '100' })).json.msg, 'Insufficient permission');
  t.is((await invite(admin, { invite_as: '200' })).status, 200);
  t.is((await invite(owner, { invite_as: '100' })).status, 200);
  t.is((await invite(member, { invite_as: '600' })).status, 200);
  t.is((await invite(admin, { invite_as: '500' })).json.msg, 'Invalid invite_as');

  // welcome_message_custom_text: administrators only (null for others), at most 8000 characters.
  const fromAdmin = await invite(admin, { welcome_message_custom_text: 'Welcome aboard!' });
  const fromMember = await invite(member, { welcome_message_custom_text: 'Hi from a member' });
  const realmId = realm.id;
  t.is((await s.server.services.db.invites.byKey(realmId, keyOf(fromAdmin.json.invite_link)))!.welcomeMessageCustomText, 'Welcome aboard!');
  t.is((await s.server.services.db.invites.byKey(realmId, keyOf(fromMember.json.invite_link)))!.welcomeMessageCustomText, null);
  t.is((await invite(admin, { welcome_message_custom_text: 'x'.repeat(8000) })).status, 200);
  t.is((await invite(admin, { welcome_message_custom_text: 'x'.repeat(8001) })).json.msg, 'welcome_message_custom_text is too long (limit: 8000 characters)');
  // Restore the default permission.
  await s.server.services.db.realms.setGroupSettings(realm.id, { ...realm.state.realm.groupSettings, create_multiuse_invite_group: realm.state.systemGroup('role:administrators').id });
  await realm.dispatch('realm.reload');
});

test.serial('channels and groups: must exist, be accessible, and be ones the caller may subscribe others to / add members to', async (t) => {
  const pub = await makeChannel(s, owner, 'invite-public');
  const priv = await makeChannel(s, owner, 'invite-private', { inviteOnly: true });
  const ok = await invite(admin, { stream_ids: JSON.stringify([pub]), include_realm_default_subscriptions: 'true' });
  t.is(ok.status, 200, ok.text);
  const row = (await s.server.services.db.invites.byKey((await state()).realm.id, keyOf(ok.json.invite_link)))!;
  t.deepEqual(row.channelIds, [pub]);
  t.is(row.includeRealmDefaultSubscriptions, true);
  t.is((await invite(admin, { stream_ids: '[987654]' })).json.msg, 'Invalid channel ID 987654. No invites were sent.');
  // A private channel is inaccessible to an administrator who is not subscribed; its subscriber may use it.
  t.is((await invite(admin, { stream_ids: JSON.stringify([priv]) })).json.msg, `Invalid channel ID ${priv}. No invites were sent.`);
  const privRes = await invite(owner, { stream_ids: JSON.stringify([priv]) });
  t.is(privRes.status, 200, privRes.text);

  const creator = await addUser(s, { role: 400 });
  const groupRes = await s.client.as(creator).post('/user_groups/create', { form: { name: 'invitees', description: '', members: '[]' } });
  const groupId = groupRes.json.group_id as number;
  // The administrator does not manage the member's group.
  t.is((await invite(admin, { group_ids: JSON.stringify([groupId]) })).json.msg, 'Insufficient permission');
  t.is((await invite(owner, { group_ids: JSON.stringify([groupId]) })).status, 200);
  t.is((await invite(admin, { group_ids: '[999999]' })).json.msg, 'Invalid user group');
  const sys = (await state()).systemGroup('role:moderators').id;
  t.is((await invite(owner, { group_ids: JSON.stringify([sys]) })).json.msg, 'Insufficient permission');

  // Without permission to subscribe others, stream_ids must be empty; include_realm_default_subscriptions is still allowed.
  const realm = await s.server.services.realms.forHost(undefined);
  const nobody = realm.state.systemGroup('role:nobody').id;
  await s.server.services.db.realms.setGroupSettings(realm.id, { ...realm.state.realm.groupSettings, can_add_subscribers_group: nobody });
  await realm.dispatch('realm.reload');
  t.is((await invite(admin, { stream_ids: JSON.stringify([pub]) })).json.msg, 'You do not have permission to subscribe other users to channels.');
  t.is((await invite(admin, { include_realm_default_subscriptions: 'true' })).status, 200);
  await s.server.services.db.realms.setGroupSettings(realm.id, { ...realm.state.realm.groupSettings, can_add_subscribers_group: realm.state.systemGroup('role:members').id });
  await realm.dispatch('realm.reload');
});

test.serial('GET /invites lists live links (administrators all, others their own); DELETE revokes', async (t) => {
  const link = (await invite(admin)).json.invite_link as string;
  const list = await s.client.as(admin).get('/invites');
  t.is(list.status, 200);
  const mine = (list.json.invites as any[]).find((i) => i.link_url === link);
  t.deepEqual(Object.keys(mine).sort(), ['expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'link_url', 'notify_referrer_on_join']);
  t.is(mine.invited_by_user_id, admin.id);
  t.is(mine.is_multiuse, true);
  t.is(mine.invited_as, 400);
  const member = await addUser(s, { role: 400 });
  t.deepEqual((await s.client.as(member).get('/invites')).json.invites, []);

  t.is((await s.client.as(member).delete(`/invites/multiuse/${mine.id}`)).json.msg, 'Must be an organization administrator');
  const log = watchEvents(s);
  t.is((await s.client.as(owner).delete(`/invites/multiuse/${mine.id}`)).status, 200);
  t.is(log.of('invites_changed').length, 1);
  log.stop();
  t.false(((await s.client.as(admin).get('/invites')).json.invites as any[]).some((i) => i.id === mine.id));
  t.is((await s.client.as(owner).delete(`/invites/multiuse/${mine.id}`)).json.msg, 'Invitation has already been revoked');
  t.is((await s.client.as(owner).delete('/invites/multiuse/999999')).json.msg, 'No such invitation');
});

test.serial('sign-up over HTTP: the email form, the confirmation mail, joining with role/channels/groups, and clear pages for bad links', async (t) => {
  const chan = await makeChannel(s, owner, 'welcome-channel');
  const group = (await s.client.as(owner).post('/user_groups/create', { form: { name: 'newcomers', description: '', members: '[]' } })).json.group_id;
  const link = (await invite(owner, { invite_as: '300', stream_ids: JSON.stringify([chan]), group_ids: JSON.stringify([group]) })).json.invite_link as string;
  const path = new URL(link).pathname;
  const pageRes = await web(path);
  t.is(pageRes.status, 200);
  t.regex(pageRes.contentType, /text\/html/);
  t.regex(pageRes.text, /<form method="post">/);
  // Giving an address makes no account: it mails a confirmation link.
  const sent = await web(path, { email: 'joiner@test.example' });
  t.is(sent.status, 200, sent.text);
  t.regex(sent.text, /id="confirm-sent"/);
  t.is((await state()).userByEmail('joiner@test.example'), undefined);
  const confirmPath = await confirmationPath('joiner@test.example');
  const form = await web(confirmPath);
  t.is(form.status, 200);
  t.regex(form.text, /joiner@test\.example/);
  // A weak password is refused with the form again.
  const weak = await web(confirmPath, { full_name: 'Jo Iner', password: 'password' });
  t.is(weak.status, 400);
  t.regex(weak.text, /The password is too weak\./);
  const log = watchEvents(s);
  const joined = await web(confirmPath, { full_name: 'Jo Iner', password: 'joiner-pass-1' });
  t.is(joined.status, 200, joined.text);
  t.regex(joined.text, /Welcome to .*Jo Iner/);
  const st = await state();
  const user = st.userByEmail('joiner@test.example')!;
  t.is(user.role, 300);
  t.true(st.groupsById.get(group)!.directMembers.has(user.id));
  t.true(st.channels.isSubscribed(user.id, chan));
  t.is(log.of('realm_user', 'add').length >= 1, true);
  t.truthy(log.of('user_group', 'add_members').find((e) => e.event.group_id === group));
  log.stop();
  const login = await s.client.post('/fetch_api_key', { form: { username: 'joiner@test.example', password: 'joiner-pass-1' } });
  t.is(login.json.user_id, user.id);
  // The confirmation link works once.
  const reused = await web(confirmPath, { full_name: 'Jo Again', password: 'joiner-pass-1' });
  t.is(reused.status, 410);
  t.regex(reused.text, /already been used/);
  t.is((await web('/accounts/do_confirm/doesnotexist000000000000/')).status, 404);
  // The same email again: the form again, with the error.
  const again = await web(path, { email: 'joiner@test.example' });
  t.is(again.status, 400);
  t.regex(again.text, /Email is already in use\./);

  const unknown = await web('/join/doesnotexist000000000000/');
  t.is(unknown.status, 404);
  t.regex(unknown.text, /This invitation link is not valid\./);
  const revokedLink = (await invite(owner)).json.invite_link as string;
  const id = ((await s.client.as(owner).get('/invites')).json.invites as any[]).find((i) => i.link_url === revokedLink).id;
  await s.client.as(owner).delete(`/invites/multiuse/${id}`);
  const revoked = await web(new URL(revokedLink).pathname);
  t.is(revoked.status, 410);
  t.regex(revoked.text, /has been revoked/);
  const post = await web(new URL(revokedLink).pathname, { email: 'late@test.example' });
  t.regex(post.text, /has been revoked/);
  t.is((await state()).userByEmail('late@test.example'), undefined);
  // Expired: a link whose time has passed.
  const realmId = (await state()).realm.id;
  const expired = await s.server.services.db.invites.insert({
    realmId, key: 'expiredkey000000000000000', referredBy: owner.id, invitedAs: 400, channelIds: [], groupIds: [],
    includeRealmDefaultSubscriptions: false, welcomeMessageCustomText: null, expiresAt: Math.floor(Date.now() / 1000) - 60,
  });
  const exp = await web(`/join/${expired.key}/`);
  t.is(exp.status, 410);
  t.regex(exp.text, /has expired/);
});

test.serial('a link stops working when its creator is deactivated or loses the role it gives; no sign-up in a deactivated realm', async (t) => {
  const creator = await addUser(s, { role: 200 });
  const adminLink = new URL((await invite(creator, { invite_as: '200' })).json.invite_link).pathname;
  const memberLink = new URL((await invite(creator)).json.invite_link).pathname;
  t.is((await web(adminLink)).status, 200);
  // Demoted to member: the link making administrators is dead, the member link still works.
  t.is((await s.client.as(owner).patch(`/users/${creator.id}`, { form: { role: '400' } })).status, 200);
  const demoted = await web(adminLink);
  t.is(demoted.status, 410);
  t.regex(demoted.text, /has been revoked/);
  t.is((await web(adminLink, { email: 'would-be-admin@test.example' })).status, 410);
  t.is((await web(memberLink)).status, 200);
  // A confirmation already mailed through a link dies with it.
  t.is((await web(memberLink, { email: 'pending-joiner@test.example' })).status, 200);
  const pending = await confirmationPath('pending-joiner@test.example');
  // Deactivated: every link they made is revoked (as in the reference), pending confirmations too.
  t.is((await s.client.as(owner).delete(`/users/${creator.id}`)).status, 200);
  t.is((await web(memberLink)).status, 410);
  const late = await web(pending, { full_name: 'Pending Joiner', password: 'pending-pass-77' });
  t.is(late.status, 410);
  t.regex(late.text, /has been revoked/);
  t.is((await state()).userByEmail('pending-joiner@test.example'), undefined);
  const st = await state();
  const rows = await s.server.services.db.invites.live(st.realm.id, Math.floor(Date.now() / 1000), creator.id);
  t.deepEqual(rows, [], 'revoked in the database, not only refused');

  // A deactivated realm: the link's pages refuse.
  const link = new URL((await invite(owner)).json.invite_link).pathname;
  const realm = await s.server.services.realms.forHost(undefined);
  await s.server.services.db.realms.setDeactivated(realm.id, true);
  await realm.dispatch('realm.reload');
  try {
    const refused = await web(link);
    t.is(refused.status, 403);
    t.regex(refused.text, /This organization has been deactivated\./);
    t.is((await web(link, { email: 'in-dead-realm@test.example' })).status, 403);
  } finally {
    await s.server.services.db.realms.setDeactivated(realm.id, false);
    await realm.dispatch('realm.reload');
  }
  t.is((await web(link)).status, 200);
});

test.serial('the confirmation mail goes through the outbox to the address given, with a one-time link', async (t) => {
  const link = new URL((await invite(owner)).json.invite_link).pathname;
  t.is((await web(link, { email: 'mailed@test.example' })).status, 200);
  const mail = (await s.server.services.db.outbox.all()).filter((m) => m.to === 'mailed@test.example');
  t.is(mail.length, 1);
  t.regex(mail[0]!.subject, /^Activate your account on /);
  t.regex(mail[0]!.body, new RegExp(`http://127\\.0\\.0\\.1:${s.port}/accounts/do_confirm/[a-z0-9]{24}/`));
  // An invalid address gets the form again, and no mail.
  const bad = await web(link, { email: 'not an address' });
  t.is(bad.status, 400);
  t.regex(bad.text, /Invalid email address/);
});

test.serial('confirmation mail to one address is rate limited (2 an hour), whatever link or case asks for it', async (t) => {
  const first = new URL((await invite(owner)).json.invite_link).pathname;
  const second = new URL((await invite(owner)).json.invite_link).pathname;
  t.is((await web(first, { email: 'often@test.example' })).status, 200);
  t.is((await web(second, { email: 'Often@test.example' })).status, 200);
  const refused = await web(first, { email: 'often@TEST.example' });
  t.is(refused.status, 429);
  t.regex(refused.contentType, /text\/html/);
  const mailed = (await s.server.services.db.outbox.all()).filter((m) => m.to.toLowerCase() === 'often@test.example');
  t.is(mailed.length, 2, 'the refused request mailed nothing');
  // Another address is not affected.
  t.is((await web(first, { email: 'seldom@test.example' })).status, 200);
});
