// Each channels operation's events, applied to a register snapshot, give the fresh snapshot (verifyAction).
import test from 'ava';
import type { TestServer } from '../helpers/server.js';
import { verifyAction } from '../helpers/verify-action.js';
import { type Cast, createChannel, insertMessages, jsonForm, startChannelsServer, uniqueName } from './helpers.js';

let s: TestServer;
let cast: Cast;
let groups: Record<string, number>;

/** The channels domain's event types and snapshot sections (and realm_user, for the snapshot's user_id);
 *  subscribers included, as clients keep them. */
const CHANNEL_TYPES = ['subscription', 'stream', 'default_streams', 'channel_folder', 'user_topic', 'realm_user'];
const register = (capabilities: Record<string, boolean> = { archived_channels: true, empty_topic_name: true }) => ({
  include_subscribers: 'true',
  client_capabilities: JSON.stringify(capabilities),
});

test.before(async () => {
  ({ s, cast, groups } = await startChannelsServer());
});
test.after.always(() => s?.close());

const subscribe = (as: { email: string; apiKey: string }, form: Record<string, unknown>) =>
  s.client.as(as).post('/users/me/subscriptions', { form: jsonForm(form) });

test.serial('creating channels, public and private, seen by an onlooker and by a subscriber', async (t) => {
  for (const viewer of [cast.other, cast.member, cast.admin, cast.guest]) {
    await verifyAction(t, s, viewer, () => createChannel(s, cast.member, uniqueName('made'), [cast.member.id, cast.guest.id]), {
      eventTypes: CHANNEL_TYPES,
      register: register(),
    });
    await verifyAction(t, s, viewer, () => createChannel(s, cast.member, uniqueName('made private'), [cast.member.id], { invite_only: 'true' }), {
      eventTypes: CHANNEL_TYPES,
      register: register(),
    });
  }
});

test.serial('subscribing and unsubscribing: oneself, and others seen as peers', async (t) => {
  const name = uniqueName('joinable');
  await createChannel(s, cast.member, name, [cast.member.id]);
  const types = ['subscription', 'default_streams', 'user_topic', 'realm_user'];
  const events = await verifyAction(t, s, cast.other, () => subscribe(cast.other, { subscriptions: [{ name }] }), { eventTypes: types, register: register() });
  t.deepEqual(events.map((e) => `${e.type} ${e.op}`), ['subscription add']);
  const peers = await verifyAction(t, s, cast.other, () => subscribe(cast.member, { subscriptions: [{ name }], principals: [cast.moderator.id] }), {
    eventTypes: types,
    register: register(),
  });
  t.deepEqual(peers.map((e) => `${e.type} ${e.op}`), ['subscription peer_add']);
  await verifyAction(t, s, cast.other, () => s.client.as(cast.other).delete('/users/me/subscriptions', { form: jsonForm({ subscriptions: [name] }) }), {
    eventTypes: types,
    register: register(),
  });
  await verifyAction(t, s, cast.other, () => s.client.as(cast.admin).delete('/users/me/subscriptions', { form: jsonForm({ subscriptions: [name], principals: [cast.moderator.id] }) }), {
    eventTypes: types,
    register: register(),
  });
  // A guest added to a public channel starts seeing it.
  await verifyAction(t, s, cast.guest, () => subscribe(cast.member, { subscriptions: [{ name }], principals: [cast.guest.id] }), {
    eventTypes: CHANNEL_TYPES,
    register: register(),
  });
  // Leaving a private channel hides it.
  const secret = uniqueName('leave secret');
  await createChannel(s, cast.member, secret, [cast.member.id, cast.other.id], { invite_only: 'true' });
  const left = await verifyAction(t, s, cast.other, () => s.client.as(cast.other).delete('/users/me/subscriptions', { form: jsonForm({ subscriptions: [secret] }) }), {
    eventTypes: CHANNEL_TYPES,
    register: register(),
  });
  t.deepEqual(left.map((e) => `${e.type} ${e.op}`), ['subscription remove', 'stream delete']);
});

test.serial('personal subscription properties', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('props'), [cast.member.id]);
  await verifyAction(
    t,
    s,
    cast.member,
    () =>
      s.client.as(cast.member).post('/users/me/subscriptions/properties', {
        form: jsonForm({
          subscription_data: [
            { stream_id: id, property: 'color', value: '#abcdef' },
            { stream_id: id, property: 'in_home_view', value: false },
            { stream_id: id, property: 'push_notifications', value: true },
          ],
        }),
      }),
    { eventTypes: CHANNEL_TYPES, register: register() },
  );
});

test.serial('channel changes: name, description, permission groups, privacy both ways, archive with and without the capability', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('changing'), [cast.member.id, cast.other.id]);
  const patch = (form: Record<string, unknown>, as = cast.member) => () => s.client.as(as).patch(`/streams/${id}`, { form: jsonForm(form) });
  const verify = (viewer: typeof cast.member, action: () => Promise<unknown>, capabilities?: Record<string, boolean>) =>
    verifyAction(t, s, viewer, action, { eventTypes: CHANNEL_TYPES, register: register(capabilities) });
  await verify(cast.other, patch({ new_name: uniqueName('renamed'), description: 'now **bold**' }));
  await verify(cast.other, patch({ can_send_message_group: { new: groups['role:moderators'] } }));
  await verify(cast.moderator, patch({ is_private: true }));
  await verify(cast.moderator, patch({ is_private: false }));
  await verify(cast.other, patch({ topics_policy: 'disable_empty_topic', message_retention_days: 'unlimited' }, cast.owner));
  await verify(cast.other, () => s.client.as(cast.member).delete(`/streams/${id}`));
  await verify(cast.other, patch({ is_archived: false }));
  await verify(cast.other, () => s.client.as(cast.member).delete(`/streams/${id}`), { archived_channels: false });
  await verify(cast.other, patch({ is_archived: false }), { archived_channels: false });
});

test.serial('default channels, channel folders and topic policies', async (t) => {
  const id = await createChannel(s, cast.admin, uniqueName('defaulted'), []);
  const verify = (viewer: typeof cast.member, action: () => Promise<unknown>, capabilities?: Record<string, boolean>) =>
    verifyAction(t, s, viewer, action, { eventTypes: CHANNEL_TYPES, register: register(capabilities) });
  await verify(cast.member, () => s.client.as(cast.admin).post('/default_streams', { form: { stream_id: String(id) } }));
  await verify(cast.member, () => s.client.as(cast.admin).delete('/default_streams', { form: { stream_id: String(id) } }));
  let folder = 0;
  await verify(cast.member, async () => {
    folder = (await s.client.as(cast.admin).post('/channel_folders/create', { form: { name: uniqueName('folder') } })).json.channel_folder_id;
  });
  await verify(cast.member, () => s.client.as(cast.admin).patch(`/channel_folders/${folder}`, { form: { description: 'about *this*', is_archived: 'true' } }));
  const order = (await s.client.as(cast.admin).get('/channel_folders', { query: { include_archived: 'true' } })).json.channel_folders.map((f: any) => f.id).reverse();
  await verify(cast.member, () => s.client.as(cast.admin).patch('/channel_folders', { form: { order: JSON.stringify(order) } }));
  const mute = (topic: string, policy: number) => () =>
    s.client.as(cast.member).post('/user_topics', { form: { stream_id: String(id), topic, visibility_policy: String(policy) } });
  await verify(cast.member, mute('lunch', 1));
  await verify(cast.member, mute('lunch', 3));
  await verify(cast.member, mute('lunch', 0));
  await verify(cast.member, mute('', 1), { empty_topic_name: false });
});

test.serial('topic deletion moves first_message_id', async (t) => {
  const id = await createChannel(s, cast.admin, uniqueName('history'), [cast.admin.id, cast.member.id]);
  await insertMessages(s, id, 'first', 2, { senderId: cast.admin.id, recipients: [cast.admin.id, cast.member.id] });
  await insertMessages(s, id, 'second', 1, { senderId: cast.admin.id, recipients: [cast.admin.id, cast.member.id] });
  const events = await verifyAction(t, s, cast.member, () => s.client.as(cast.admin).post(`/streams/${id}/delete_topic`, { form: { topic_name: 'first' } }), {
    eventTypes: [...CHANNEL_TYPES, 'delete_message'],
    register: register({ archived_channels: true, empty_topic_name: true, bulk_message_deletion: true }),
  });
  t.deepEqual(events.map((e) => `${e.type} ${e.op ?? ''}`.trim()), ['delete_message', 'stream update']);
});
