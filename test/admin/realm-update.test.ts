// PATCH /realm over HTTP: every setting changes with the reference's events (checked by the consistency helper),
// validation errors, owner-only and administrator-only refusals, no-ops, and the spectator path it opens.
import test from 'ava';
import { REALM_GROUP_PROPERTIES } from '../../src/realm/admin/group-properties.js';
import { REALM_PROPERTIES } from '../../src/realm/admin/properties.js';
import { REALM_GROUP_SETTING_DEFAULTS } from '../../src/realm/system-groups.js';
import { ROLE } from '../../src/model/realm.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';

let s: TestServer;
let admin: TestUser;
let member: TestUser;
const groupIds: Record<string, number> = {};
let publicChannel: number;
let privateChannel: number;

test.before(async () => {
  s = await startTestServer();
  admin = await addUser(s, { role: ROLE.ADMINISTRATOR });
  member = await addUser(s, { role: ROLE.MEMBER });
  const reg = (await s.client.as(s.owner).post('/register', { form: { event_types: '["realm_user_groups"]' } })).json;
  for (const g of reg.realm_user_groups) groupIds[g.name] = g.id;
  const ownerId = (await s.client.as(s.owner).get('/users/me')).json.user_id;
  const make = async (name: string, inviteOnly: boolean) => {
    const r = await s.client.as(s.owner).post('/channels/create', { form: { name, subscribers: JSON.stringify([ownerId]), invite_only: String(inviteOnly) } });
    if (r.status !== 200) throw new Error(r.text);
    return r.json.id as number;
  };
  publicChannel = await make('announcements', false);
  privateChannel = await make('moderation', true);
});
test.after.always(() => s?.close());

const patch = (who: { email: string; apiKey: string }, form: Record<string, string>) => s.client.as(who).patch('/realm', { form });
const registerRealm = async () => (await s.client.as(s.owner).post('/register', { form: { event_types: '["realm"]' } })).json;

/** A changed value for every property, as a form value. */
function changes(): Record<string, string> {
  return {
    name: 'Renamed organization',
    description: 'About <us> & **them**',
    allow_message_editing: 'false',
    avatar_changes_disabled: 'true',
    default_code_block_language: 'python',
    default_language: 'de',
    digest_emails_enabled: 'true',
    digest_weekday: '3',
    disallow_disposable_email_addresses: 'false',
    email_changes_disabled: 'true',
    emails_restricted_to_domains: 'true',
    enable_guest_user_dm_warning: 'false',
    enable_guest_user_indicator: 'false',
    enable_read_receipts: 'false',
    enable_spectator_access: 'true',
    giphy_rating: '4',
    inline_image_preview: 'false',
    inline_url_embed_preview: 'true',
    invite_required: 'false',
    jitsi_server_url: 'https://jitsi.example.com',
    message_content_allowed_in_email_notifications: 'false',
    message_content_delete_limit_seconds: 'unlimited',
    message_content_edit_limit_seconds: '1200',
    message_edit_history_visibility_policy: 'none',
    message_retention_days: '30',
    moderation_request_channel_id: String(privateChannel),
    move_messages_between_streams_limit_seconds: '3600',
    move_messages_within_stream_limit_seconds: 'unlimited',
    name_changes_disabled: 'true',
    new_stream_announcements_stream_id: String(publicChannel),
    org_type: '20',
    require_unique_names: 'true',
    send_welcome_emails: 'false',
    signup_announcements_stream_id: String(publicChannel),
    topics_policy: 'disable_empty_topic',
    video_chat_provider: '0',
    waiting_period_threshold: '7',
    want_advertise_in_communities_directory: 'true',
    welcome_message_custom_text: 'Welcome aboard!',
    zulip_update_announcements_stream_id: String(publicChannel),
  };
}

/** A group each permission setting may be set to, other than its default. */
function groupChange(name: string): string {
  const special: Record<string, string> = {
    can_access_all_users_group: 'role:members',
    can_create_web_public_channel_group: 'role:moderators',
    can_manage_billing_group: 'role:owners',
  };
  const target = special[name] ?? (REALM_GROUP_SETTING_DEFAULTS[name] === 'role:administrators' ? 'role:moderators' : 'role:administrators');
  return JSON.stringify({ new: groupIds[target]! });
}

test.serial('the change table covers every property PATCH /realm takes', (t) => {
  t.deepEqual(Object.keys(changes()).sort(), Object.keys(REALM_PROPERTIES).sort());
});

test.serial('every property: the owner changes it, the register state plus the events equals a fresh register', async (t) => {
  for (const [name, value] of Object.entries(changes())) {
    const events = await verifyAction(t, s, s.owner, async () => {
      const r = await patch(s.owner, { [name]: value });
      t.is(r.status, 200, `${name}: ${r.text}`);
      t.true(name in r.json, `${name} is in the reply`);
    });
    t.is(events.filter((e) => e.type === 'realm').length, 1, `${name}: one realm event`);
  }
  const reg = await registerRealm();
  t.is(reg.realm_name, 'Renamed organization');
  t.is(reg.realm_description, '<p>About &lt;us&gt; &amp; **them**</p>');
  t.is(reg.realm_message_content_delete_limit_seconds, null);
  t.is(reg.realm_message_retention_days, 30);
  t.is(reg.realm_mandatory_topics, true);
  t.is(reg.realm_allow_edit_history, false);
  t.is(reg.realm_moderation_request_channel_id, privateChannel);
});

test.serial('every permission group setting: changed with {new}, as update_dict events', async (t) => {
  for (const name of Object.keys(REALM_GROUP_PROPERTIES)) {
    const events = await verifyAction(t, s, s.owner, async () => {
      const r = await patch(s.owner, { [name]: groupChange(name) });
      t.is(r.status, 200, `${name}: ${r.text}`);
    });
    t.is(events.length, 1, name);
    t.like(events[0], { type: 'realm', op: 'update_dict', property: 'default' });
    t.true(name in events[0]!.data, name);
  }
});

test.serial('a member viewing: the own permission fields of register follow the permission groups', async (t) => {
  for (const [name, group] of [
    ['can_create_public_channel_group', 'role:administrators'],
    ['can_create_private_channel_group', 'role:administrators'],
    ['can_add_subscribers_group', 'role:moderators'],
    ['can_invite_users_group', 'role:nobody'],
    ['can_create_public_channel_group', 'role:members'],
    ['can_invite_users_group', 'role:members'],
  ] as const) {
    await verifyAction(t, s, member, async () => {
      const r = await patch(s.owner, { [name]: JSON.stringify({ new: groupIds[group] }) });
      t.is(r.status, 200, r.text);
    });
  }
  const reg = (await s.client.as(member).post('/register', { form: { event_types: '["realm_user"]' } })).json;
  t.like(reg, { can_create_public_streams: true, can_create_private_streams: false, can_subscribe_other_users: false, can_invite_others_to_realm: true });
});

test.serial('reference event shapes: update for plain settings, update_dict for message editing and topics_policy', async (t) => {
  const events = await verifyAction(t, s, s.owner, async () => {
    await patch(s.owner, { enable_read_receipts: 'true', allow_message_editing: 'true', topics_policy: 'allow_empty_topic', message_content_edit_limit_seconds: 'unlimited' });
  });
  const sorted = (xs: unknown[]) => xs.map((x) => JSON.stringify(x)).sort();
  t.deepEqual(
    sorted(events.map(({ id: _id, ...e }) => e)),
    sorted([
      { type: 'realm', op: 'update', property: 'enable_read_receipts', value: true },
      { type: 'realm', op: 'update_dict', property: 'default', data: { allow_message_editing: true } },
      { type: 'realm', op: 'update_dict', property: 'default', data: { topics_policy: 'allow_empty_topic', mandatory_topics: false } },
      { type: 'realm', op: 'update_dict', property: 'default', data: { message_content_edit_limit_seconds: null } },
    ]),
  );
});

test.serial('jitsi_server_url: JSON-encoded as the reference takes it, "default" for the server default', async (t) => {
  const events = await verifyAction(t, s, s.owner, async () => {
    t.is((await patch(s.owner, { jitsi_server_url: JSON.stringify('https://meet.example.org') })).status, 200);
    t.is((await patch(s.owner, { jitsi_server_url: JSON.stringify('default') })).status, 200);
  });
  t.deepEqual(events.map((e) => e.value), ['https://meet.example.org', null]);
});

test.serial('an anonymous group value and the old value check', async (t) => {
  const anonymous = { direct_members: [member.id], direct_subgroups: [groupIds['role:administrators']!] };
  const events = await verifyAction(t, s, s.owner, () => patch(s.owner, { can_resolve_topics_group: JSON.stringify({ new: anonymous }) }));
  t.deepEqual(events[0]!.data, { can_resolve_topics_group: anonymous });
  const stale = await patch(s.owner, { can_resolve_topics_group: JSON.stringify({ new: groupIds['role:members'], old: groupIds['role:everyone'] }) });
  t.like(stale.json, { result: 'error', code: 'BAD_REQUEST', msg: "'old' value does not match the expected value." });
  const fresh = await patch(s.owner, { can_resolve_topics_group: JSON.stringify({ new: groupIds['role:members'], old: anonymous }) });
  t.is(fresh.status, 200, fresh.text);
  t.is(fresh.json.can_resolve_topics_group, groupIds['role:members']);
});

test.serial('sending the current values changes nothing and sends no events', async (t) => {
  const reg = await registerRealm();
  const events = await verifyAction(t, s, s.owner, async () => {
    const r = await patch(s.owner, {
      name: reg.realm_name,
      enable_read_receipts: String(reg.realm_enable_read_receipts),
      can_resolve_topics_group: JSON.stringify({ new: reg.realm_can_resolve_topics_group }),
    });
    t.deepEqual(r.json, { result: 'success', msg: '' });
  });
  t.deepEqual(events, []);
});

const refusals: [string, Record<string, string>, string][] = [
  ['time limit of zero', { message_content_edit_limit_seconds: '0' }, "Bad value for 'message_content_edit_limit_seconds': 0"],
  ['unknown special time limit', { move_messages_within_stream_limit_seconds: 'forever' }, "Bad value for 'move_messages_within_stream_limit_seconds': forever"],
  ['negative retention', { message_retention_days: '-1' }, "Bad value for 'message_retention_days': -1"],
  ['unknown retention', { message_retention_days: 'realm_default' }, "Bad value for 'message_retention_days': realm_default"],
  ['giphy rating', { giphy_rating: '9' }, 'Invalid giphy_rating 9'],
  ['video chat provider', { video_chat_provider: '7' }, 'Invalid video_chat_provider 7'],
  ['org type', { org_type: '11' }, 'Invalid org_type 11'],
  ['digest weekday', { digest_weekday: '7' }, 'Invalid digest_weekday 7'],
  ['language', { default_language: 'xx' }, "Invalid language 'xx'"],
  ['jitsi URL', { jitsi_server_url: 'ftp://jitsi.example.com' }, 'jitsi_server_url is not an allowed_type'],
  ['name too long', { name: 'n'.repeat(41) }, 'name is too long (limit: 40 characters)'],
  ['topics policy', { topics_policy: 'sometimes' }, 'Invalid topics_policy'],
  ['edit history policy', { message_edit_history_visibility_policy: 'some' }, 'Invalid message_edit_history_visibility_policy'],
  ['boolean', { invite_required: 'maybe' }, 'invite_required is not a boolean'],
  ['negative waiting period', { waiting_period_threshold: '-3' }, 'waiting_period_threshold is too small'],
  ['unknown channel', { new_stream_announcements_stream_id: '99999' }, 'Invalid channel ID'],
  ['public moderation channel', { moderation_request_channel_id: '__public__' }, 'Moderation request channel must be private.'],
  ['everyone where not allowed', { can_create_public_channel_group: '__everyone__' }, "'can_create_public_channel_group' setting cannot be set to 'role:everyone' group."],
  ['nobody where not allowed', { can_manage_all_groups: '__nobody__' }, "'can_manage_all_groups' setting cannot be set to 'role:nobody' group."],
  ['system group outside the allowed ones', { can_access_all_users_group: '__admins__' }, "'can_access_all_users_group' setting cannot be set to 'role:administrators' group."],
  ['anonymous group for a system-only setting', { can_create_web_public_channel_group: '__anonymous__' }, "'can_create_web_public_channel_group' must be a system user group."],
  ['unknown group', { can_add_custom_emoji_group: JSON.stringify({ new: 99999 }) }, 'Invalid user group'],
  ['group change without new', { can_add_custom_emoji_group: JSON.stringify({ old: 1 }) }, 'new key is missing from can_add_custom_emoji_group'],
];

for (const [what, raw, msg] of refusals) {
  test.serial(`validation: ${what}`, async (t) => {
    const form = Object.fromEntries(
      Object.entries(raw).map(([k, v]) => [
        k,
        v === '__public__'
          ? String(publicChannel)
          : v === '__everyone__'
            ? JSON.stringify({ new: groupIds['role:everyone'] })
            : v === '__nobody__'
              ? JSON.stringify({ new: groupIds['role:nobody'] })
              : v === '__admins__'
                ? JSON.stringify({ new: groupIds['role:administrators'] })
                : v === '__anonymous__'
                  ? JSON.stringify({ new: { direct_members: [member.id], direct_subgroups: [] } })
                  : v,
      ]),
    );
    const before = await registerRealm();
    const r = await patch(s.owner, { ...form, enable_read_receipts: String(!before.realm_enable_read_receipts) });
    t.is(r.status, 400);
    t.like(r.json, { result: 'error', code: 'BAD_REQUEST', msg });
    // Atomic: the valid setting sent along was not changed either.
    t.is((await registerRealm()).realm_enable_read_receipts, before.realm_enable_read_receipts);
  });
}

test.serial('permissions: members are refused, administrators cannot change owner-only settings', async (t) => {
  const byMember = await patch(member, { name: 'Mine now' });
  t.is(byMember.status, 400);
  t.like(byMember.json, { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' });
  const ownerOnly = {
    invite_required: 'true',
    emails_restricted_to_domains: 'false',
    disallow_disposable_email_addresses: 'true',
    waiting_period_threshold: '3',
    message_retention_days: 'unlimited',
    create_multiuse_invite_group: JSON.stringify({ new: groupIds['role:administrators'] }),
    can_create_groups: JSON.stringify({ new: groupIds['role:members'] }),
    can_invite_users_group: JSON.stringify({ new: groupIds['role:members'] }),
    can_manage_all_groups: JSON.stringify({ new: groupIds['role:owners'] }),
    can_manage_billing_group: JSON.stringify({ new: groupIds['role:administrators'] }),
  };
  for (const [name, value] of Object.entries(ownerOnly)) {
    const r = await patch(admin, { [name]: value });
    t.is(r.status, 400, name);
    t.like(r.json, { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' }, name);
  }
  const ok = await patch(admin, { name: 'Admins may rename', enable_read_receipts: 'true' });
  t.is(ok.status, 200, ok.text);
});

test.serial('a permission change takes effect: only administrators may then create public channels', async (t) => {
  t.is((await patch(s.owner, { can_create_public_channel_group: JSON.stringify({ new: groupIds['role:administrators'] }) })).status, 200);
  const refused = await s.client.as(member).post('/channels/create', { form: { name: 'members channel', subscribers: JSON.stringify([member.id]) } });
  t.is(refused.status, 400);
  const allowed = await s.client.as(admin).post('/channels/create', { form: { name: 'admins channel', subscribers: JSON.stringify([admin.id]) } });
  t.is(allowed.status, 200, allowed.text);
});

test.serial('spectator access: turned on, an unauthenticated register succeeds; turned off, it fails again', async (t) => {
  t.is((await patch(s.owner, { enable_spectator_access: 'false' })).status, 200);
  const before = await s.client.post('/register', { form: {} });
  t.is(before.status, 401);
  t.is((await patch(s.owner, { enable_spectator_access: 'true' })).status, 200);
  const spectator = await s.client.post('/register', { form: {} });
  t.is(spectator.status, 200, spectator.text);
  t.is(spectator.json.queue_id, null);
  t.is((await patch(s.owner, { enable_spectator_access: 'false' })).status, 200);
  const after = await s.client.post('/register', { form: {} });
  t.is(after.status, 401);
  t.like(after.json, { code: 'UNAUTHORIZED' });
});

test.serial('name_changes_disabled: members may no longer rename themselves, administrators still may', async (t) => {
  t.is((await patch(s.owner, { name_changes_disabled: 'true' })).status, 200);
  const refused = await s.client.as(member).patch('/settings', { form: { full_name: 'Someone Else' } });
  t.like(refused.json, { result: 'error', code: 'BAD_REQUEST', msg: 'Name changes are disabled in this organization.' });
  t.is((await s.client.as(admin).patch('/settings', { form: { full_name: 'Admin Renamed' } })).status, 200);
  t.is((await patch(s.owner, { name_changes_disabled: 'false' })).status, 200);
  t.is((await s.client.as(member).patch('/settings', { form: { full_name: 'Member Renamed' } })).status, 200);
});

test.serial('require_unique_names: a name another user has is refused, case aside', async (t) => {
  t.is((await patch(s.owner, { require_unique_names: 'true', emails_restricted_to_domains: 'false' })).status, 200);
  const taken = await s.client.as(member).patch('/settings', { form: { full_name: 'admin RENAMED' } });
  t.like(taken.json, { code: 'BAD_REQUEST', msg: 'Unique names required in this organization.' });
  const created = await s.client.as(s.owner).post('/users', { form: { email: 'twin@test.example', password: 'a-long-password-123', full_name: 'Member Renamed' } });
  t.like(created.json, { msg: 'Unique names required in this organization.' });
  t.is((await patch(s.owner, { require_unique_names: 'false' })).status, 200);
});

test.serial('emails_restricted_to_domains: new accounts need an address of one of the realm domains', async (t) => {
  t.is((await s.client.as(s.owner).post('/realm/domains', { form: { domain: 'allowed.example', allow_subdomains: 'true' } })).status, 200);
  t.is((await patch(s.owner, { emails_restricted_to_domains: 'true' })).status, 200);
  const create = (email: string) => s.client.as(s.owner).post('/users', { form: { email, password: 'a-long-password-123', full_name: `New ${email.length}` } });
  t.like((await create('someone@elsewhere.example')).json, { msg: "Email 'someone@elsewhere.example' not allowed in this organization" });
  t.like((await create('some+one@allowed.example')).json, { msg: 'Email addresses containing + are not allowed.' });
  t.is((await create('someone@allowed.example')).status, 200);
  t.is((await create('someone@team.allowed.example')).status, 200);
  t.is((await patch(s.owner, { emails_restricted_to_domains: 'false' })).status, 200);
  t.is((await create('someone@elsewhere.example')).status, 200);
});

test.serial('editing policy takes effect: with message editing off, a member cannot edit their message', async (t) => {
  const sent = await s.client.as(member).post('/messages', { form: { type: 'stream', to: 'announcements', topic: 'edits', content: 'first' } });
  t.is(sent.status, 200, sent.text);
  t.is((await patch(s.owner, { allow_message_editing: 'false' })).status, 200);
  const refused = await s.client.as(member).patch(`/messages/${sent.json.id}`, { form: { content: 'second' } });
  t.like(refused.json, { result: 'error', msg: 'Your organization has turned off message editing' });
  t.is((await patch(s.owner, { allow_message_editing: 'true', message_content_edit_limit_seconds: 'unlimited' })).status, 200);
  t.is((await s.client.as(member).patch(`/messages/${sent.json.id}`, { form: { content: 'second' } })).status, 200);
});
