// POST /channels/create: every parameter, its permission rules and errors, the channel record and its events.
import test from 'ava';
import type { TestServer } from '../helpers/server.js';
import { type Cast, createChannel, ofType, realmState, recordEvents, setRealmSettings, sorted, startChannelsServer, uniqueName } from './helpers.js';

let s: TestServer;
let cast: Cast;
let groups: Record<string, number>;

test.before(async () => {
  ({ s, cast, groups } = await startChannelsServer());
});
test.after.always(() => s?.close());

const create = (as: { email: string; apiKey: string }, form: Record<string, string>) => s.client.as(as).post('/channels/create', { form });

test.serial('a member creates a public channel: the record carries every field, with defaults', async (t) => {
  const events = recordEvents(s);
  const before = Math.floor(Date.now() / 1000);
  const r = await create(cast.member, {
    name: '  Design  ',
    description: 'All about **design**',
    subscribers: JSON.stringify([cast.member.id, cast.other.id]),
  });
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.json).sort(), ['id', 'msg', 'result']);
  const id = r.json.id as number;
  const got = await s.client.as(cast.member).get(`/streams/${id}`);
  t.is(got.status, 200);
  const ch = got.json.stream;
  t.is(ch.stream_id, id);
  t.is(ch.name, 'Design');
  t.is(ch.description, 'All about **design**');
  t.is(ch.rendered_description, '<p>All about <strong>design</strong></p>');
  t.is(ch.invite_only, false);
  t.is(ch.is_web_public, false);
  t.is(ch.is_archived, false);
  t.is(ch.history_public_to_subscribers, true);
  t.is(ch.message_retention_days, null);
  t.is(ch.topics_policy, 'inherit');
  t.is(ch.first_message_id, null);
  t.is(ch.folder_id, null);
  t.is(ch.is_recently_active, true);
  t.is(ch.stream_post_policy, 1);
  t.is(ch.is_announcement_only, false);
  t.is(ch.creator_id, cast.member.id);
  t.true(ch.date_created >= before - 1 && ch.date_created <= Math.floor(Date.now() / 1000) + 1);
  t.is(ch.subscriber_count, 2);
  t.is(ch.stream_weekly_traffic, null);
  t.deepEqual(ch.can_administer_channel_group, { direct_members: [cast.member.id], direct_subgroups: [] });
  t.is(ch.can_remove_subscribers_group, groups['role:administrators']);
  t.is(ch.can_send_message_group, groups['role:everyone']);
  for (const name of ['can_add_subscribers_group', 'can_delete_any_message_group', 'can_delete_own_message_group',
    'can_move_messages_out_of_channel_group', 'can_move_messages_within_channel_group', 'can_subscribe_group', 'can_resolve_topics_group']) {
    t.is(ch[name], groups['role:nobody'], name);
  }

  const published = events.take();
  events.stop();
  const [created] = ofType(published, 'stream', 'create');
  t.deepEqual(created!.event.streams.map((x: any) => x.stream_id), [id]);
  // Everyone but the guest may see a public channel.
  t.deepEqual(created!.users, sorted([cast.owner.id, cast.admin.id, cast.moderator.id, cast.member.id, cast.other.id]));
  const adds = ofType(published, 'subscription', 'add');
  t.deepEqual(adds.map((e) => e.users[0]).sort(), sorted([cast.member.id, cast.other.id]));
  const sub = adds[0]!.event.subscriptions[0];
  t.deepEqual(sub.subscribers, sorted([cast.member.id, cast.other.id]));
  t.is(sub.color, '#76ce90');
  t.is(sub.is_muted, false);
  t.is(sub.in_home_view, true);
  const [peer] = ofType(published, 'subscription', 'peer_add');
  t.deepEqual(peer!.event.user_ids, [cast.member.id, cast.other.id]);
  t.deepEqual(peer!.users, sorted([cast.owner.id, cast.admin.id, cast.moderator.id]));
});

test('a private channel defaults to protected history and is announced to its subscribers and administrators only', async (t) => {
  const events = recordEvents(s);
  const id = await createChannel(s, cast.member, uniqueName('secret'), [cast.member.id], { invite_only: 'true' });
  const ch = (await s.client.as(cast.member).get(`/streams/${id}`)).json.stream;
  t.is(ch.invite_only, true);
  t.is(ch.history_public_to_subscribers, false);
  const created = ofType(events.take(), 'stream', 'create').find((e) => e.event.streams[0].stream_id === id)!;
  events.stop();
  t.deepEqual(created.users, sorted([cast.owner.id, cast.admin.id, cast.member.id]));

  const shared = await createChannel(s, cast.member, uniqueName('shared'), [cast.member.id], {
    invite_only: 'true',
    history_public_to_subscribers: 'true',
  });
  t.is((await s.client.as(cast.member).get(`/streams/${shared}`)).json.stream.history_public_to_subscribers, true);
  // Public channels always have public history.
  const pub = await createChannel(s, cast.member, uniqueName('pub'), [], { history_public_to_subscribers: 'false' });
  t.is((await s.client.as(cast.member).get(`/streams/${pub}`)).json.stream.history_public_to_subscribers, true);
});

test('names: duplicates (any case) are 409 CHANNEL_ALREADY_EXISTS; empty, too long and unprintable names are refused', async (t) => {
  const name = uniqueName('Dup');
  await createChannel(s, cast.member, name, []);
  const dup = await create(cast.member, { name: name.toUpperCase(), subscribers: '[]' });
  t.is(dup.status, 409);
  t.deepEqual(dup.json, { result: 'error', msg: `Channel '${name.toUpperCase()}' already exists`, code: 'CHANNEL_ALREADY_EXISTS' });
  const empty = await create(cast.member, { name: '   ', subscribers: '[]' });
  t.is(empty.json.msg, "Channel name can't be empty.");
  t.is(empty.json.code, 'BAD_REQUEST');
  t.is((await create(cast.member, { name: 'x'.repeat(61), subscribers: '[]' })).json.msg, 'Channel name too long (limit: 60 characters).');
  t.is((await create(cast.member, { name: 'x'.repeat(60), subscribers: '[]' })).status, 200);
  t.is((await create(cast.member, { name: 'bell\u0007', subscribers: '[]' })).json.msg, 'Invalid character in channel name, at position 5.');
  const longDescription = await create(cast.member, { name: uniqueName(), description: 'd'.repeat(1025), subscribers: '[]' });
  t.is(longDescription.json.msg, 'description is too long (limit: 1024 characters)');
  const missing = await create(cast.member, { name: uniqueName() });
  t.is(missing.json.code, 'REQUEST_VARIABLE_MISSING');
  t.is(missing.json.msg, "Missing 'subscribers' argument");
});

test('a new channel description in POST /users/me/subscriptions is bounded at the door: too long is refused, nothing is made', async (t) => {
  const subscribe = (specs: object[]) => s.client.as(cast.member).post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify(specs) } });
  const [fits, over, huge] = [uniqueName('fits'), uniqueName('over'), uniqueName('huge')];
  for (const [name, description] of [[over, 'd'.repeat(1025)], [huge, '**a'.repeat(300_000)]] as const) {
    const r = await subscribe([{ name: fits }, { name, description }]);
    t.is(r.status, 400);
    t.deepEqual(r.json, { result: 'error', msg: 'subscriptions[1]["description"] is too long (limit: 1024 characters)', code: 'BAD_REQUEST' });
  }
  const names = ((await s.client.as(cast.member).get('/streams')).json.streams as { name: string }[]).map((c) => c.name);
  t.false([fits, over, huge].some((n) => names.includes(n)), 'no channel of a refused request was created');
  // At the limit, it is accepted and rendered.
  t.is((await subscribe([{ name: fits, description: '*' + 'd'.repeat(1022) + '*' }])).status, 200);
  const made = ((await s.client.as(cast.member).get('/streams')).json.streams as any[]).find((c) => c.name === fits);
  t.is(made.rendered_description, `<p><em>${'d'.repeat(1022)}</em></p>`);
});

test('subscribers must be users of the realm; subscribing others needs can_add_subscribers_group', async (t) => {
  const unknown = await create(cast.member, { name: uniqueName(), subscribers: JSON.stringify([999999]) });
  t.deepEqual(unknown.json, { result: 'error', msg: 'No such user', code: 'BAD_REQUEST' });
  const guest = await create(cast.guest, { name: uniqueName(), subscribers: JSON.stringify([cast.guest.id]) });
  t.deepEqual(guest.json, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
});

test.serial('subscribing others is refused without the realm permission, subscribing oneself still works', async (t) => {
  const state = await realmState(s);
  const realm = state.realm;
  const original = realm.groupSettings.can_add_subscribers_group;
  await s.server.services.db.none(
    `UPDATE realms SET group_settings = jsonb_set(group_settings, '{can_add_subscribers_group}', $2::jsonb) WHERE id = $1`,
    [realm.id, JSON.stringify(groups['role:administrators'])],
  );
  await (await s.server.services.realms.forHost(undefined)).dispatch('realm.reload');
  try {
    const r = await create(cast.member, { name: uniqueName(), subscribers: JSON.stringify([cast.member.id, cast.other.id]) });
    t.deepEqual(r.json, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
    t.is((await create(cast.member, { name: uniqueName(), subscribers: JSON.stringify([cast.member.id]) })).status, 200);
    t.is((await create(cast.admin, { name: uniqueName(), subscribers: JSON.stringify([cast.admin.id, cast.other.id]) })).status, 200);
  } finally {
    await s.server.services.db.none(
      `UPDATE realms SET group_settings = jsonb_set(group_settings, '{can_add_subscribers_group}', $2::jsonb) WHERE id = $1`,
      [realm.id, JSON.stringify(original)],
    );
    await (await s.server.services.realms.forHost(undefined)).dispatch('realm.reload');
  }
});

test.serial('is_web_public needs the server setting, the realm’s spectator access, and can_create_web_public_channel_group', async (t) => {
  const form = () => ({ name: uniqueName('web'), subscribers: '[]', is_web_public: 'true' });
  const disabled = await create(cast.owner, form());
  t.deepEqual(disabled.json, { result: 'error', msg: 'Web-public channels are not enabled.', code: 'BAD_REQUEST' });
  await setRealmSettings(s, { enable_spectator_access: true });
  s.server.services.config.webPublicStreamsEnabled = false;
  t.is((await create(cast.owner, form())).json.msg, 'Web-public channels are not enabled.');
  s.server.services.config.webPublicStreamsEnabled = true;
  t.is((await create(cast.admin, form())).json.msg, 'Insufficient permission');
  const both = await create(cast.owner, { ...form(), invite_only: 'true' });
  t.is(both.json.msg, 'A web-public channel cannot be private.');
  const ok = await create(cast.owner, form());
  t.is(ok.status, 200);
  const ch = (await s.client.as(cast.guest).get(`/streams/${ok.json.id}`)).json.stream;
  t.is(ch.is_web_public, true);
  t.is(ch.invite_only, false);
  await setRealmSettings(s, { enable_spectator_access: false });
});

test.serial('is_default_stream: administrators only, never for private channels; default_streams event', async (t) => {
  const member = await create(cast.member, { name: uniqueName(), subscribers: '[]', is_default_stream: 'true' });
  t.deepEqual(member.json, { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  const priv = await create(cast.admin, { name: uniqueName(), subscribers: '[]', is_default_stream: 'true', invite_only: 'true' });
  t.deepEqual(priv.json, { result: 'error', msg: 'Private channels cannot be made default.', code: 'BAD_REQUEST' });
  const events = recordEvents(s);
  const id = await createChannel(s, cast.admin, uniqueName('default'), [], { is_default_stream: 'true' });
  const [ev] = ofType(events.take(), 'default_streams');
  events.stop();
  t.true(ev!.event.default_streams.includes(id));
  t.deepEqual(ev!.users, sorted([cast.owner.id, cast.admin.id, cast.moderator.id, cast.member.id, cast.other.id]));
  const list = await s.client.as(cast.member).get('/streams', { query: { include_default: 'true' } });
  t.is(list.json.streams.find((c: any) => c.stream_id === id).is_default, true);
  t.true(list.json.streams.every((c: any) => typeof c.is_default === 'boolean'));
  const plain = await s.client.as(cast.member).get('/streams');
  t.false('is_default' in plain.json.streams[0]);
});

test('message_retention_days: owners only; a number, "unlimited" or "realm_default"', async (t) => {
  const admin = await create(cast.admin, { name: uniqueName(), subscribers: '[]', message_retention_days: '30' });
  t.deepEqual(admin.json, { result: 'error', msg: 'Must be an organization owner', code: 'UNAUTHORIZED_PRINCIPAL' });
  const cases: [string, number | null][] = [['30', 30], ['"unlimited"', -1], ['unlimited', -1], ['realm_default', null]];
  for (const [value, stored] of cases) {
    const id = await createChannel(s, cast.owner, uniqueName('kept'), [], { message_retention_days: value });
    t.is((await s.client.as(cast.owner).get(`/streams/${id}`)).json.stream.message_retention_days, stored, value);
  }
  t.is((await create(cast.owner, { name: uniqueName(), subscribers: '[]', message_retention_days: '0' })).json.msg, "Bad value for 'message_retention_days': 0");
  t.is((await create(cast.owner, { name: uniqueName(), subscribers: '[]', message_retention_days: 'forever' })).json.msg, "Bad value for 'message_retention_days': forever");
});

test('topics_policy: each value is stored; an unknown one is refused', async (t) => {
  for (const policy of ['inherit', 'allow_empty_topic', 'disable_empty_topic', 'empty_topic_only']) {
    const id = await createChannel(s, cast.member, uniqueName(policy), [], { topics_policy: policy });
    t.is((await s.client.as(cast.member).get(`/streams/${id}`)).json.stream.topics_policy, policy);
  }
  const bad = await create(cast.member, { name: uniqueName(), subscribers: '[]', topics_policy: 'sometimes' });
  t.deepEqual(bad.json, { result: 'error', msg: 'Invalid topics_policy', code: 'BAD_REQUEST' });
});

test.serial('topics_policy needs can_set_topics_policy_group', async (t) => {
  const realm = (await realmState(s)).realm;
  const original = realm.groupSettings.can_set_topics_policy_group;
  const set = async (v: unknown) => {
    await s.server.services.db.none(
      `UPDATE realms SET group_settings = jsonb_set(group_settings, '{can_set_topics_policy_group}', $2::jsonb) WHERE id = $1`,
      [realm.id, JSON.stringify(v)],
    );
    await (await s.server.services.realms.forHost(undefined)).dispatch('realm.reload');
  };
  await set(groups['role:administrators']);
  try {
    const r = await create(cast.member, { name: uniqueName(), subscribers: '[]', topics_policy: 'disable_empty_topic' });
    t.is(r.json.msg, 'Insufficient permission');
    t.is((await create(cast.admin, { name: uniqueName(), subscribers: '[]', topics_policy: 'disable_empty_topic' })).status, 200);
  } finally {
    await set(original);
  }
});

test('folder_id places the channel in a folder; an unknown folder is refused', async (t) => {
  const folder = await s.client.as(cast.admin).post('/channel_folders/create', { form: { name: uniqueName('folder') } });
  const folderId = folder.json.channel_folder_id as number;
  const id = await createChannel(s, cast.member, uniqueName(), [], { folder_id: String(folderId) });
  t.is((await s.client.as(cast.member).get(`/streams/${id}`)).json.stream.folder_id, folderId);
  const bad = await create(cast.member, { name: uniqueName(), subscribers: '[]', folder_id: '424242' });
  t.deepEqual(bad.json, { result: 'error', msg: 'Invalid channel folder ID', code: 'BAD_REQUEST' });
});

test('permission groups: stored as given (a lone subgroup as its ID); role:everyone refused where guests must not be', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('announce-only'), [], {
    can_send_message_group: String(groups['role:administrators']),
    can_delete_any_message_group: JSON.stringify({ direct_members: [cast.other.id, cast.member.id], direct_subgroups: [groups['role:moderators']] }),
    can_resolve_topics_group: JSON.stringify({ direct_members: [], direct_subgroups: [groups['role:moderators']] }),
  });
  const ch = (await s.client.as(cast.member).get(`/streams/${id}`)).json.stream;
  t.is(ch.can_send_message_group, groups['role:administrators']);
  t.is(ch.stream_post_policy, 2);
  t.is(ch.is_announcement_only, true);
  t.deepEqual(ch.can_delete_any_message_group, { direct_members: sorted([cast.other.id, cast.member.id]), direct_subgroups: [groups['role:moderators']] });
  t.is(ch.can_resolve_topics_group, groups['role:moderators']);
  const policies: [string, number][] = [['role:fullmembers', 3], ['role:moderators', 4], ['role:members', 1]];
  for (const [group, policy] of policies) {
    const cid = await createChannel(s, cast.member, uniqueName(), [], { can_send_message_group: String(groups[group]) });
    t.is((await s.client.as(cast.member).get(`/streams/${cid}`)).json.stream.stream_post_policy, policy, group);
  }

  const everyone = await create(cast.member, { name: uniqueName(), subscribers: '[]', can_add_subscribers_group: String(groups['role:everyone']) });
  t.is(everyone.json.msg, "'can_add_subscribers_group' setting cannot be set to 'role:everyone' group.");
  const badGroup = await create(cast.member, { name: uniqueName(), subscribers: '[]', can_subscribe_group: '987654' });
  t.deepEqual(badGroup.json, { result: 'error', msg: 'Invalid user group', code: 'BAD_REQUEST' });
  const badUser = await create(cast.member, {
    name: uniqueName(),
    subscribers: '[]',
    can_subscribe_group: JSON.stringify({ direct_members: [987654], direct_subgroups: [] }),
  });
  t.is(badUser.json.msg, 'Invalid user ID: 987654');
  const badShape = await create(cast.member, { name: uniqueName(), subscribers: '[]', can_subscribe_group: '{"members": [1]}' });
  t.is(badShape.json.code, 'BAD_REQUEST');
});

test.serial('announce: the notification bot posts the creation in the new channel, or in the announcements channel', async (t) => {
  const events = recordEvents(s);
  const id = await createChannel(s, cast.member, uniqueName('announced'), [cast.member.id], { announce: 'true', description: 'Hello' });
  const state = await realmState(s);
  const bot = state.userByEmail('notification-bot@palaver.internal')!;
  t.truthy(bot);
  t.true(bot.isBot);
  const ch = (await s.client.as(cast.member).get(`/streams/${id}`)).json.stream;
  t.is(typeof ch.first_message_id, 'number');
  const row = await s.server.services.db.one('SELECT * FROM messages WHERE id = $1', [ch.first_message_id]);
  t.is(row.sender_id, bot.id);
  t.is(row.stream_id, id);
  t.is(row.topic, 'channel events');
  t.is(row.content, `**Public** channel created by @_**${cast.member.fullName}|${cast.member.id}**. **Description:**\n\`\`\`\` quote\nHello\n\`\`\`\``);
  const published = events.take();
  t.is(ofType(published, 'realm_user', 'add').length, 1);
  const [message] = ofType(published, 'message');
  t.is(message!.event.message.id, ch.first_message_id);
  t.deepEqual(message!.users, [cast.member.id]);

  // With an announcements channel configured, the notice goes there.
  const general = await createChannel(s, cast.admin, uniqueName('general'), [cast.admin.id, cast.other.id]);
  await setRealmSettings(s, { new_stream_announcements_stream_id: general });
  const second = await createChannel(s, cast.member, uniqueName('second'), [cast.member.id], { announce: 'true' });
  t.is((await s.client.as(cast.member).get(`/streams/${second}`)).json.stream.first_message_id, null);
  const notice = await s.server.services.db.one('SELECT * FROM messages WHERE stream_id = $1 ORDER BY id DESC LIMIT 1', [general]);
  t.is(notice.topic, 'new channels');
  t.is(notice.content, `@_**${cast.member.fullName}|${cast.member.id}** created a new channel #**${(await realmState(s)).channels.byId.get(second)!.name}**.`);
  const [again] = ofType(events.take(), 'message');
  events.stop();
  t.deepEqual(again!.users, sorted([cast.admin.id, cast.other.id]));
  t.is(ofType([again!], 'realm_user').length, 0);
  await setRealmSettings(s, { new_stream_announcements_stream_id: -1 });
});
