// PATCH /streams/{id} and DELETE /streams/{id}: each property, who may change it, the errors and the events.
import test from 'ava';
import type { TestServer } from '../helpers/server.js';
import { type Cast, createChannel, insertMessages, ofType, recordEvents, setRealmSettings, sorted, startChannelsServer, uniqueName } from './helpers.js';

let s: TestServer;
let cast: Cast;
let groups: Record<string, number>;
let everyoneButGuest: number[];

test.before(async () => {
  ({ s, cast, groups } = await startChannelsServer());
  everyoneButGuest = sorted([cast.owner.id, cast.admin.id, cast.moderator.id, cast.member.id, cast.other.id]);
});
test.after.always(() => s?.close());

const patch = (as: { email: string; apiKey: string }, id: number, form: Record<string, string>) => s.client.as(as).patch(`/streams/${id}`, { form });
const get = async (id: number) => (await s.client.as(cast.owner).get(`/streams/${id}`)).json.stream;

test.serial('rename and describe: by the channel administrator (its creator) or an organization administrator', async (t) => {
  const old = uniqueName('old');
  const id = await createChannel(s, cast.member, old, [cast.member.id]);
  const events = recordEvents(s);
  const r = await patch(cast.member, id, { new_name: 'Renamed', description: 'See #**Renamed**' });
  t.deepEqual(r.json, { result: 'success', msg: '' });
  const ch = await get(id);
  t.is(ch.name, 'Renamed');
  t.is(ch.description, 'See #**Renamed**');
  t.regex(ch.rendered_description, /^<p>See <a class="stream" data-stream-id="\d+" href="[^"]+">#Renamed<\/a><\/p>$/);
  const published = events.take();
  events.stop();
  const updates = ofType(published, 'stream', 'update');
  t.deepEqual(updates.map((e) => e.event.property), ['name', 'description']);
  t.deepEqual(updates[0]!.event, { type: 'stream', op: 'update', stream_id: id, name: old, property: 'name', value: 'Renamed' });
  t.is(updates[1]!.event.rendered_description, ch.rendered_description);
  t.deepEqual(updates[0]!.users, everyoneButGuest);

  t.deepEqual((await patch(cast.other, id, { description: 'mine' })).json, {
    result: 'error',
    msg: 'You do not have permission to administer this channel.',
    code: 'BAD_REQUEST',
  });
  t.is((await patch(cast.moderator, id, { description: 'mine' })).json.msg, 'You do not have permission to administer this channel.');
  t.is((await patch(cast.admin, id, { description: 'by admin' })).status, 200);
  const taken = await createChannel(s, cast.member, uniqueName('taken'), []);
  const name = (await get(taken)).name;
  t.deepEqual((await patch(cast.member, id, { new_name: name.toUpperCase() })).json, {
    result: 'error',
    msg: 'Channel name already in use.',
    code: 'BAD_REQUEST',
  });
  t.is((await patch(cast.member, id, { new_name: 'RENAMED' })).status, 200, 'a change of case is a rename');
  t.is((await patch(cast.member, id, { new_name: '' })).json.msg, "Channel name can't be empty.");
  t.is((await patch(cast.member, id, { description: 'x'.repeat(1025) })).json.msg, 'description is too long (limit: 1024 characters)');
});

test('nothing to change, unknown channels and hidden channels', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName(), [cast.member.id], { invite_only: 'true' });
  t.deepEqual((await patch(cast.member, id, {})).json, { result: 'error', msg: 'Client did not pass any new values.', code: 'BAD_REQUEST' });
  t.is((await patch(cast.member, 987654, { description: 'x' })).json.msg, 'Invalid channel ID');
  t.is((await patch(cast.other, id, { description: 'x' })).json.msg, 'Invalid channel ID');
  t.is((await patch(cast.guest, id, { description: 'x' })).json.msg, 'Invalid channel ID');
});

test.serial('making a channel private: those who lose sight of it get stream delete, the rest invite_only', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('going private'), [cast.member.id, cast.other.id]);
  const events = recordEvents(s);
  t.is((await patch(cast.member, id, { is_private: 'true' })).status, 200);
  const ch = await get(id);
  t.is(ch.invite_only, true);
  t.is(ch.history_public_to_subscribers, true, 'existing history stays readable unless asked otherwise');
  const published = events.take();
  events.stop();
  const [deleted] = ofType(published, 'stream', 'delete');
  t.deepEqual(deleted!.event, { type: 'stream', op: 'delete', streams: [{ stream_id: id }], stream_ids: [id] });
  t.deepEqual(deleted!.users, [cast.moderator.id]);
  const [update] = ofType(published, 'stream', 'update');
  t.deepEqual(update!.event, {
    type: 'stream',
    op: 'update',
    stream_id: id,
    name: ch.name,
    property: 'invite_only',
    value: true,
    history_public_to_subscribers: true,
    is_web_public: false,
  });
  t.deepEqual(update!.users, sorted([cast.owner.id, cast.admin.id, cast.member.id, cast.other.id]));
});

test.serial('making a private channel public needs content access, even for administrators; newcomers get create and peer_add', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('going public'), [cast.member.id], { invite_only: 'true' });
  t.is((await patch(cast.admin, id, { is_private: 'false' })).json.msg, 'Invalid channel ID');
  const events = recordEvents(s);
  t.is((await patch(cast.member, id, { is_private: 'false' })).status, 200);
  const published = events.take();
  events.stop();
  const [created] = ofType(published, 'stream', 'create');
  t.deepEqual(created!.users, sorted([cast.moderator.id, cast.other.id]));
  t.is(created!.event.streams[0].invite_only, false);
  const [peer] = ofType(published, 'subscription', 'peer_add');
  t.deepEqual(peer!.event, { type: 'subscription', op: 'peer_add', stream_ids: [id], user_ids: [cast.member.id] });
  t.deepEqual(peer!.users, sorted([cast.moderator.id, cast.other.id]));
  const ch = await get(id);
  t.is(ch.history_public_to_subscribers, true);
  // A public channel's history stays public to subscribers whatever the request says (as in the reference).
  t.is((await patch(cast.member, id, { history_public_to_subscribers: 'false' })).status, 200);
  t.is((await get(id)).history_public_to_subscribers, true);
  t.is((await patch(cast.member, id, { is_private: 'true', history_public_to_subscribers: 'false' })).status, 200);
  t.is((await get(id)).history_public_to_subscribers, false);
});

test.serial('is_web_public: the server setting, spectator access and can_create_web_public_channel_group', async (t) => {
  const id = await createChannel(s, cast.owner, uniqueName('to the web'), [cast.owner.id]);
  t.is((await patch(cast.owner, id, { is_web_public: 'true' })).json.msg, 'Web-public channels are not enabled.');
  await setRealmSettings(s, { enable_spectator_access: true });
  t.is((await patch(cast.admin, id, { is_web_public: 'true' })).json.msg, 'Insufficient permission');
  t.is((await patch(cast.owner, id, { is_web_public: 'true', is_private: 'true' })).json.msg, 'A web-public channel cannot be private.');
  const events = recordEvents(s);
  t.is((await patch(cast.owner, id, { is_web_public: 'true' })).status, 200);
  const published = events.take();
  events.stop();
  t.is((await get(id)).is_web_public, true);
  const [created] = ofType(published, 'stream', 'create');
  t.deepEqual(created!.users, [cast.guest.id], 'the guest can now see it');
  t.deepEqual(ofType(published, 'stream', 'update').map((e) => [e.event.property, e.event.value]), [['is_web_public', true]]);
  await setRealmSettings(s, { enable_spectator_access: false });
});

test.serial('is_default_stream, message_retention_days, folder_id and topics_policy', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('settings'), [cast.member.id]);
  t.is((await patch(cast.member, id, { is_default_stream: 'true' })).json.msg, 'Must be an organization administrator');
  const events = recordEvents(s);
  t.is((await patch(cast.admin, id, { is_default_stream: 'true' })).status, 200);
  t.true(ofType(events.take(), 'default_streams')[0]!.event.default_streams.includes(id));
  t.is((await patch(cast.admin, id, { is_private: 'true' })).json.msg, 'Private channels cannot be made default.');

  t.is((await patch(cast.admin, id, { message_retention_days: '7' })).json.code, 'UNAUTHORIZED_PRINCIPAL');
  t.is((await patch(cast.owner, id, { message_retention_days: '7' })).status, 200);
  t.is((await get(id)).message_retention_days, 7);
  t.is((await patch(cast.owner, id, { message_retention_days: 'unlimited' })).status, 200);
  t.is((await get(id)).message_retention_days, -1);
  t.is((await patch(cast.owner, id, { message_retention_days: '-3' })).json.msg, "Bad value for 'message_retention_days': -3");

  const folder = (await s.client.as(cast.admin).post('/channel_folders/create', { form: { name: uniqueName('f') } })).json.channel_folder_id;
  t.is((await patch(cast.member, id, { folder_id: String(folder) })).status, 200);
  t.is((await get(id)).folder_id, folder);
  t.is((await patch(cast.member, id, { folder_id: '99999' })).json.msg, 'Invalid channel folder ID');
  t.is((await patch(cast.member, id, { folder_id: 'null' })).status, 200);
  t.is((await get(id)).folder_id, null);

  t.is((await patch(cast.member, id, { topics_policy: 'disable_empty_topic' })).status, 200);
  const published = events.take();
  events.stop();
  t.deepEqual(
    ofType(published, 'stream', 'update').map((e) => [e.event.property, e.event.value]),
    [['message_retention_days', 7], ['message_retention_days', -1], ['folder_id', folder], ['folder_id', null], ['topics_policy', 'disable_empty_topic']],
  );
});

test('empty_topic_only is refused while messages exist outside the empty topic', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('general chat only'), [cast.member.id]);
  await insertMessages(s, id, '', 2, { senderId: cast.member.id, recipients: [cast.member.id] });
  t.is((await patch(cast.member, id, { topics_policy: 'empty_topic_only' })).status, 200);
  await insertMessages(s, id, 'named', 1, { senderId: cast.member.id, recipients: [cast.member.id] });
  t.is((await patch(cast.member, id, { topics_policy: 'inherit' })).status, 200);
  const r = await patch(cast.member, id, { topics_policy: 'empty_topic_only' });
  t.is(r.json.code, 'BAD_REQUEST');
  t.is(r.json.msg, 'To enable this configuration, all messages in this channel must be in the general chat topic. Consider renaming or deleting other topics.');
  t.is((await get(id)).topics_policy, 'inherit');
});

test.serial('permission groups: {new, old}; a stale old value is refused; can_send_message_group updates the deprecated fields', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('groups'), [cast.member.id]);
  const events = recordEvents(s);
  const change = JSON.stringify({ new: groups['role:administrators'], old: groups['role:everyone'] });
  t.is((await patch(cast.member, id, { can_send_message_group: change })).status, 200);
  const ch = await get(id);
  t.is(ch.can_send_message_group, groups['role:administrators']);
  t.is(ch.stream_post_policy, 2);
  t.is(ch.is_announcement_only, true);
  t.deepEqual(
    ofType(events.take(), 'stream', 'update').map((e) => [e.event.property, e.event.value]),
    [['can_send_message_group', groups['role:administrators']], ['stream_post_policy', 2], ['is_announcement_only', true]],
  );
  events.stop();
  t.deepEqual((await patch(cast.member, id, { can_send_message_group: change })).json, {
    result: 'error',
    msg: "'old' value does not match the expected value.",
    code: 'BAD_REQUEST',
  });
  const anonymous = JSON.stringify({ new: { direct_members: [cast.other.id], direct_subgroups: [] } });
  t.is((await patch(cast.member, id, { can_remove_subscribers_group: anonymous })).status, 200);
  t.deepEqual((await get(id)).can_remove_subscribers_group, { direct_members: [cast.other.id], direct_subgroups: [] });
  const everyone = JSON.stringify({ new: groups['role:everyone'] });
  t.is((await patch(cast.member, id, { can_subscribe_group: everyone })).json.msg, "'can_subscribe_group' setting cannot be set to 'role:everyone' group.");
  // Handing administration to a group makes its members channel administrators.
  t.is((await patch(cast.other, id, { description: 'x' })).json.msg, 'You do not have permission to administer this channel.');
  t.is((await patch(cast.member, id, { can_administer_channel_group: JSON.stringify({ new: groups['role:moderators'] }) })).status, 200);
  t.is((await patch(cast.moderator, id, { description: 'moderated' })).status, 200);
});

test.serial('settings that need content access: an administrator outside a private channel may not change them', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('closed'), [cast.member.id], { invite_only: 'true' });
  const subscribe = JSON.stringify({ new: groups['role:moderators'] });
  t.is((await patch(cast.admin, id, { can_subscribe_group: subscribe })).json.msg, 'Invalid channel ID');
  t.is((await patch(cast.admin, id, { can_add_subscribers_group: subscribe })).json.msg, 'Invalid channel ID');
  t.is((await patch(cast.admin, id, { can_send_message_group: subscribe })).status, 200, 'metadata access is enough here');
  const events = recordEvents(s);
  t.is((await patch(cast.member, id, { can_subscribe_group: subscribe })).status, 200);
  const published = events.take();
  events.stop();
  // Moderators may now subscribe themselves, so they see the channel.
  t.deepEqual(ofType(published, 'stream', 'create')[0]!.users, [cast.moderator.id]);
  t.is((await s.client.as(cast.moderator).get(`/streams/${id}`)).status, 200);
});

test.serial('archiving (DELETE) and unarchiving (PATCH is_archived)', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('old news'), [cast.member.id], {});
  await s.client.as(cast.admin).post('/default_streams', { form: { stream_id: String(id) } });
  t.is((await s.client.as(cast.other).delete(`/streams/${id}`)).json.msg, 'You do not have permission to administer this channel.');
  const events = recordEvents(s);
  t.deepEqual((await s.client.as(cast.member).delete(`/streams/${id}`)).json, { result: 'success', msg: '' });
  const published = events.take();
  const [archived] = ofType(published, 'stream', 'update');
  t.deepEqual(archived!.event, { type: 'stream', op: 'update', stream_id: id, name: (await get(id)).name, property: 'is_archived', value: true });
  t.deepEqual(archived!.legacy, { archived_channels: [{ type: 'stream', op: 'delete', streams: [{ stream_id: id }], stream_ids: [id] }] });
  t.deepEqual(archived!.users, everyoneButGuest);
  t.false(ofType(published, 'default_streams')[0]!.event.default_streams.includes(id), 'archived channels are no longer default');
  t.is((await get(id)).is_archived, true);
  t.false((await s.client.as(cast.member).get('/streams')).json.streams.some((c: any) => c.stream_id === id));
  t.deepEqual((await s.client.as(cast.member).delete(`/streams/${id}`)).json, { result: 'error', msg: 'Channel is already deactivated', code: 'BAD_REQUEST' });
  t.is((await patch(cast.member, id, { description: 'x' })).json.msg, 'Channel is archived.');
  t.is((await patch(cast.member, id, { is_archived: 'false' })).status, 200);
  const [restored] = ofType(events.take(), 'stream', 'update');
  events.stop();
  t.is(restored!.event.value, false);
  t.is(restored!.legacy!.archived_channels![0]!.op, 'create');
  t.is((await get(id)).is_archived, false);
  t.is((await s.client.as(cast.member).delete('/streams/999999')).json.msg, 'Invalid channel ID');
});
