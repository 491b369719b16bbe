// Email invitations over HTTP: POST /invites → a mail in the outbox with the link → the sign-up page → an account
// with the invited role, channels and groups; the per-address errors, the daily limit, permissions, listing,
// revoking, resending, expiry, and deactivation revoking a user's invitations and links.
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { verifyAction } from '../helpers/verify-action.js';
import { makeChannel } from './channels-fixture.js';
import { ids, watchEvents } from './helpers.js';

let s: TestServer;
let owner: TestUser;
let admin: TestUser;
test.before(async () => {
  s = await startTestServer({ env: { INVITES_DAILY_MAX: '12' } });
  const me = (await s.client.as(s.owner).get('/users/me')).json;
  owner = { ...s.owner, id: me.user_id, fullName: me.full_name, role: 100 };
  admin = await addUser(s, { role: 200 });
});
test.after.always(() => s.close());

const send = (as: TestUser, form: Record<string, string>) =>
  s.client.as(as).post('/invites', { form: { stream_ids: '[]', ...form } });
async function web(path: string, form?: Record<string, string>) {
  const res = await fetch(`http://127.0.0.1:${s.port}${path}`, form ? { method: 'POST', body: new URLSearchParams(form) } : {});
  return { status: res.status, text: await res.text() };
}
const mailsTo = async (to: string) => (await s.server.services.db.outbox.all()).filter((m) => m.to === to);
/** The path of the link in the latest mail to `to`. */
async function linkIn(to: string): Promise<string> {
  const mails = await mailsTo(to);
  const m = /http:\/\/127\.0\.0\.1:\d+(\/accounts\/do_confirm\/[a-z0-9]{24}\/)/.exec(mails.at(-1)!.body);
  return m![1]!;
}
/** Strong enough for the password policy. */
const PASSWORD = 'violet-harbor-lantern-93';
const listed = async (as: TestUser) => (await s.client.as(as).get('/invites')).json.invites as any[];
const state = async () => (await s.server.services.realms.forHost(undefined)).state;
const setGroupSetting = async (name: string, group: string) => {
  const realm = await s.server.services.realms.forHost(undefined);
  await s.server.services.db.realms.setGroupSettings(realm.id, { ...realm.state.realm.groupSettings, [name]: realm.state.systemGroup(group).id });
  await realm.dispatch('realm.reload');
};

test.serial('invite → mail in the outbox → link → sign-up → an account with the role, channels and groups', async (t) => {
  const chan = await makeChannel(s, owner, 'invited-here');
  const dflt = await makeChannel(s, owner, 'everyone-default', { isDefault: true });
  const group = (await s.client.as(owner).post('/user_groups/create', { form: { name: 'invitees', description: '', members: '[]' } })).json.group_id;
  const before = Math.floor(Date.now() / 1000);
  const log = watchEvents(s);
  const events = await verifyAction(t, s, admin, async () => {
    const res = await send(owner, {
      invitee_emails: 'Ann Lee <ann@test.example>, bob@test.example\nann@test.example',
      invite_as: '300',
      stream_ids: JSON.stringify([chan]),
      group_ids: JSON.stringify([group]),
      include_realm_default_subscriptions: 'true',
      invite_expires_in_minutes: '2880',
    });
    t.is(res.status, 200, res.text);
    t.deepEqual(res.json, { result: 'success', msg: '' });
  });
  t.true(events.some((e) => e.type === 'invites_changed'));
  const changed = log.of('invites_changed');
  t.is(changed.length, 1);
  t.true(ids(changed[0]!.users).includes(admin.id) && ids(changed[0]!.users).includes(owner.id));
  log.stop();

  // One mail per address (the repeat folded), with the link and the expiry in days.
  const mails = await mailsTo('ann@test.example');
  t.is(mails.length, 1);
  t.regex(mails[0]!.subject, /invited you to join/);
  t.regex(mails[0]!.body, /expires in 2 days/);
  t.is((await mailsTo('bob@test.example')).length, 1);

  const mine = (await listed(owner)).filter((i) => !i.is_multiuse);
  const ann = mine.find((i) => i.email === 'ann@test.example');
  t.deepEqual(Object.keys(ann).sort(), ['email', 'expiry_date', 'id', 'invited', 'invited_as', 'invited_by_user_id', 'is_multiuse', 'notify_referrer_on_join']);
  t.is(ann.invited_as, 300);
  t.is(ann.invited_by_user_id, owner.id);
  t.is(ann.notify_referrer_on_join, true);
  t.true(Math.abs(ann.expiry_date - (before + 2880 * 60)) <= 5);

  // The link opens the sign-up form for the invited address (it is confirmed: it got the mail); an address in
  // the form is ignored.
  const path = await linkIn('ann@test.example');
  const pageRes = await web(path);
  t.is(pageRes.status, 200);
  t.regex(pageRes.text, /<strong id="email">ann@test.example<\/strong>/);
  t.notRegex(pageRes.text, /name="email"/);
  const joined = await web(path, { email: 'someone-else@test.example', full_name: 'Ann Lee', password: PASSWORD });
  t.is(joined.status, 200, joined.text);
  const st = await state();
  const user = st.userByEmail('ann@test.example')!;
  t.truthy(user);
  t.is(st.userByEmail('someone-else@test.example'), undefined);
  t.is(user.role, 300);
  t.true(st.channels.isSubscribed(user.id, chan));
  t.true(st.channels.isSubscribed(user.id, dflt));
  t.true(st.groupsById.get(group)!.directMembers.has(user.id));
  const login = await s.client.post('/fetch_api_key', { form: { username: 'ann@test.example', password: PASSWORD } });
  t.is(login.json.user_id, user.id);

  // Used: the link cannot be used again, and the invitation is no longer listed.
  const again = await web(path);
  t.is(again.status, 410);
  t.regex(again.text, /already been used/);
  const reuse = await web(path, { full_name: 'Ann Again', password: PASSWORD });
  t.is(reuse.status, 410);
  t.false((await listed(owner)).some((i) => i.id === ann.id && !i.is_multiuse));
});

test.serial('per-address errors: invalid, outside the domain, existing and deactivated accounts', async (t) => {
  const fail = await send(admin, { invitee_emails: 'not-an-email, fine1@test.example' });
  t.is(fail.status, 400);
  t.deepEqual(fail.json, {
    result: 'error',
    code: 'INVITATION_FAILED',
    msg: "Some emails did not validate, so we didn't send any invitations.",
    errors: [['not-an-email', 'Invalid address.', false]],
    sent_invitations: false,
    license_limit_reached: false,
    daily_limit_reached: false,
  });
  t.is((await mailsTo('fine1@test.example')).length, 0);

  // Some already have accounts: the others are invited, and the answer names the skipped.
  const partial = await send(admin, { invitee_emails: `${owner.email}, fine2@test.example` });
  t.is(partial.status, 400);
  t.is(partial.json.code, 'INVITATION_FAILED');
  t.deepEqual(partial.json.errors, [[owner.email, 'Already has an account.', false]]);
  t.is(partial.json.sent_invitations, true);
  t.is((await mailsTo('fine2@test.example')).length, 1);

  const gone = await addUser(s, { role: 400 });
  t.is((await s.client.as(owner).delete(`/users/${gone.id}`)).status, 200);
  const none = await send(admin, { invitee_emails: `${owner.email},${gone.email}` });
  t.is(none.json.msg, "We weren't able to invite anyone.");
  t.deepEqual(none.json.errors, [[owner.email, 'Already has an account.', false], [gone.email, 'Account has been deactivated.', true]]);
  t.is(none.json.sent_invitations, false);

  // The organization's domain restriction.
  t.is((await s.client.as(owner).post('/realm/domains', { form: { domain: 'allowed.example', allow_subdomains: 'false' } })).status, 200);
  t.is((await s.client.as(owner).patch('/realm', { form: { emails_restricted_to_domains: 'true' } })).status, 200);
  const outside = await send(admin, { invitee_emails: 'x@elsewhere.example, a+b@allowed.example, ok@allowed.example' });
  t.deepEqual(outside.json.errors, [
    ['x@elsewhere.example', 'Outside your domain.', false],
    ['a+b@allowed.example', 'Email addresses containing + are not allowed.', false],
  ]);
  t.is((await mailsTo('ok@allowed.example')).length, 0);
  t.is((await send(admin, { invitee_emails: 'ok@allowed.example' })).status, 200);
  t.is((await s.client.as(owner).patch('/realm', { form: { emails_restricted_to_domains: 'false' } })).status, 200);

  // Parameters.
  t.is((await send(admin, { invitee_emails: '' })).json.msg, 'You must specify at least one email address.');
  t.is((await s.client.as(admin).post('/invites', { form: { invitee_emails: 'y@test.example' } })).json.msg, "Missing 'stream_ids' argument");
  t.is((await s.client.as(admin).post('/invites', { form: { stream_ids: '[]' } })).json.msg, "Missing 'invitee_emails' argument");
  t.is((await send(admin, { invitee_emails: 'y@test.example', stream_ids: '[987654]' })).json.msg, 'Invalid channel ID 987654. No invites were sent.');
  t.is((await send(admin, { invitee_emails: 'y@test.example', invite_as: '500' })).json.msg, 'Invalid invite_as');
  t.is((await send(admin, { invitee_emails: 'y@test.example', invite_expires_in_minutes: '0' })).json.msg, 'invite_expires_in_minutes is too small');
  // A named address is reduced to what is between the brackets; a run of '<' is one invalid address.
  const brackets = await send(admin, { invitee_emails: '<'.repeat(60_000) });
  t.deepEqual(brackets.json.errors, [['<'.repeat(60_000), 'Invalid address.', false]]);
  const huge = await send(admin, { invitee_emails: 'z'.repeat(64 * 1024 + 1) });
  t.regex(huge.json.msg, /invitee_emails is too long/);
});

test.serial('permissions: guests never; members while can_invite_users_group allows; never above their own role', async (t) => {
  const guest = await addUser(s, { role: 600 });
  const member = await addUser(s, { role: 400 });
  const moderator = await addUser(s, { role: 300 });
  t.is((await send(guest, { invitee_emails: 'g1@test.example' })).json.msg, 'Not allowed for guest users');
  t.is((await send(member, { invitee_emails: 'm1@test.example' })).status, 200);
  t.is((await send(member, { invitee_emails: 'm2@test.example', invite_as: '300' })).json.msg, 'Insufficient permission');
  t.is((await send(moderator, { invitee_emails: 'm3@test.example', invite_as: '200' })).json.msg, 'Insufficient permission');
  t.is((await send(admin, { invitee_emails: 'm4@test.example', invite_as: '100' })).json.msg, 'Insufficient permission');
  await setGroupSetting('can_invite_users_group', 'role:administrators');
  t.is((await send(member, { invitee_emails: 'm5@test.example' })).json.msg, 'Insufficient permission');
  t.is((await send(admin, { invitee_emails: 'm5@test.example' })).status, 200);
  await setGroupSetting('can_invite_users_group', 'role:members');

  // Listing: members see their own; administrators everyone's.
  const own = await listed(member);
  t.deepEqual(own.map((i) => i.email), ['m1@test.example']);
  t.true((await listed(admin)).some((i) => i.email === 'm1@test.example'));
  t.is((await s.client.as(guest).get('/invites')).json.msg, 'Not allowed for guest users');

  // Managing someone else's: administrators; an invitation as owner, owners only.
  const ownerInvite = await send(owner, { invitee_emails: 'future-owner@test.example', invite_as: '100' });
  t.is(ownerInvite.status, 200);
  const ownerId = (await listed(owner)).find((i) => i.email === 'future-owner@test.example').id;
  t.is((await s.client.as(admin).delete(`/invites/${ownerId}`)).json.msg, 'Must be an organization owner');
  t.is((await s.client.as(admin).post(`/invites/${ownerId}/resend`)).json.msg, 'Must be an organization owner');
  const adminsInvite = (await listed(admin)).find((i) => i.email === 'm5@test.example').id;
  t.is((await s.client.as(member).delete(`/invites/${adminsInvite}`)).json.msg, 'Must be an organization administrator');
  t.is((await s.client.as(member).post(`/invites/${adminsInvite}/resend`)).json.msg, 'Must be an organization administrator');
  t.is((await s.client.as(guest).delete(`/invites/${adminsInvite}`)).json.msg, 'Not allowed for guest users');
  t.is((await s.client.as(member).delete(`/invites/${own[0].id}`)).status, 200);
  t.is((await s.client.as(owner).delete(`/invites/${ownerId}`)).status, 200);
});

test.serial('revoke, resend and expiry', async (t) => {
  t.is((await send(admin, { invitee_emails: 'rev@test.example, res@test.example' })).status, 200);
  const all = await listed(admin);
  const rev = all.find((i) => i.email === 'rev@test.example');
  const res = all.find((i) => i.email === 'res@test.example');
  const revPath = await linkIn('rev@test.example');

  const log = watchEvents(s);
  t.is((await s.client.as(admin).delete(`/invites/${rev.id}`)).status, 200);
  t.is(log.of('invites_changed').length, 1);
  log.stop();
  t.false((await listed(admin)).some((i) => i.id === rev.id && !i.is_multiuse));
  const page = await web(revPath);
  t.is(page.status, 410);
  t.regex(page.text, /has been revoked/);
  const post = await web(revPath, { full_name: 'Rev', password: PASSWORD });
  t.is(post.status, 410);
  t.is((await state()).userByEmail('rev@test.example'), undefined);
  t.is((await s.client.as(admin).delete(`/invites/${rev.id}`)).json.msg, 'No such invitation');
  t.is((await s.client.as(admin).post(`/invites/${rev.id}/resend`)).json.msg, 'No such invitation');
  t.is((await s.client.as(admin).delete('/invites/999999')).json.msg, 'No such invitation');
  t.is((await s.client.as(admin).post('/invites/999999/resend')).json.msg, 'No such invitation');

  // Resending mails the same link again.
  const first = await linkIn('res@test.example');
  const resent = await s.client.as(admin).post(`/invites/${res.id}/resend`);
  t.is(resent.status, 200, resent.text);
  t.deepEqual(resent.json, { result: 'success', msg: '' });
  t.is((await mailsTo('res@test.example')).length, 2);
  t.is(await linkIn('res@test.example'), first);

  // Expired: not listed, not resendable, and the link says so.
  const realmId = (await state()).realm.id;
  const expired = await s.server.services.db.emailInvites.insert({
    realmId, email: 'late@test.example', key: 'expiredemailkey000000000', referredBy: admin.id, invitedAs: 400, channelIds: [],
    groupIds: [], includeRealmDefaultSubscriptions: false, notifyReferrerOnJoin: true, welcomeMessageCustomText: null,
    expiresAt: Math.floor(Date.now() / 1000) - 60,
  });
  t.false((await listed(admin)).some((i) => i.email === 'late@test.example'));
  t.is((await s.client.as(admin).post(`/invites/${expired.id}/resend`)).json.msg, 'No such invitation');
  const exp = await web(`/accounts/do_confirm/${expired.key}/`);
  t.is(exp.status, 410);
  t.regex(exp.text, /has expired/);
});

test.serial('the daily limit: past it nothing is sent, and resending counts', async (t) => {
  // INVITES_DAILY_MAX is 12 for this server; the earlier tests sent some already.
  const sent = await s.server.services.db.emailInvites.sentSince((await state()).realm.id, Math.floor(Date.now() / 1000) - 86400);
  const room = 12 - sent;
  t.true(room > 1);
  const many = Array.from({ length: room + 1 }, (_, i) => `bulk${i}@test.example`).join(',');
  const over = await send(owner, { invitee_emails: many });
  t.is(over.json.code, 'INVITATION_FAILED');
  t.is(over.json.daily_limit_reached, true);
  t.is(over.json.sent_invitations, false);
  t.is((await mailsTo('bulk0@test.example')).length, 0);
  t.is((await send(owner, { invitee_emails: Array.from({ length: room }, (_, i) => `bulk${i}@test.example`).join(',') })).status, 200);
  const one = (await listed(owner)).find((i) => i.email === 'bulk0@test.example');
  const resend = await s.client.as(owner).post(`/invites/${one.id}/resend`);
  t.is(resend.json.daily_limit_reached, true);
  t.is((await mailsTo('bulk0@test.example')).length, 1);
});

test.serial('deactivating a user revokes the email invitations and reusable links they made', async (t) => {
  // The limit above is used up; a fresh day for this test.
  await s.server.services.db.none('DELETE FROM invitation_sends');
  const inviter = await addUser(s, { role: 200 });
  t.is((await send(inviter, { invitee_emails: 'via-deactivated@test.example' })).status, 200);
  const link = (await s.client.as(inviter).post('/invites/multiuse', { form: {} })).json.invite_link as string;
  const emailPath = await linkIn('via-deactivated@test.example');
  const mine = (await listed(inviter)).filter((i) => i.invited_by_user_id === inviter.id);
  t.deepEqual(mine.map((i) => i.is_multiuse).sort(), [false, true]);

  const log = watchEvents(s);
  t.is((await s.client.as(owner).delete(`/users/${inviter.id}`)).status, 200);
  t.true(log.of('invites_changed').length >= 1);
  log.stop();
  const left = await listed(owner);
  t.false(left.some((i) => i.invited_by_user_id === inviter.id));
  t.is((await web(emailPath)).status, 410);
  const linkPage = await web(new URL(link).pathname);
  t.is(linkPage.status, 410);
  t.regex((await web(emailPath)).text, /has been revoked/);
  t.regex(linkPage.text, /has been revoked/);
});
