// Subscriptions: GET/POST/DELETE /users/me/subscriptions, properties, subscription status, default channels.
import test from 'ava';
import type { TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { type Cast, createChannel, ofType, jsonForm, recordEvents, sorted, startChannelsServer, uniqueName } from './helpers.js';

let s: TestServer;
let cast: Cast;
let groups: Record<string, number>;

test.before(async () => {
  ({ s, cast, groups } = await startChannelsServer());
});
test.after.always(() => s?.close());

const subscribe = (as: { email: string; apiKey: string }, form: Record<string, unknown>) =>
  s.client.as(as).post('/users/me/subscriptions', { form: jsonForm(form) });
const unsubscribe = (as: { email: string; apiKey: string }, form: Record<string, unknown>) =>
  s.client.as(as).delete('/users/me/subscriptions', { form: jsonForm(form) });
const mine = async (as: { email: string; apiKey: string }, query: Record<string, string> = {}) =>
  (await s.client.as(as).get('/users/me/subscriptions', { query })).json.subscriptions as any[];

test.serial('subscribing oneself to an existing channel, and again', async (t) => {
  const name = uniqueName('join me');
  const id = await createChannel(s, cast.admin, name, [cast.admin.id]);
  const events = recordEvents(s);
  const r = await subscribe(cast.member, { subscriptions: [{ name }] });
  t.deepEqual(r.json, {
    result: 'success',
    msg: '',
    subscribed: { [cast.member.id]: [name] },
    already_subscribed: {},
    new_subscription_messages_sent: false,
  });
  const published = events.take();
  events.stop();
  const [add] = ofType(published, 'subscription', 'add');
  t.deepEqual(add!.users, [cast.member.id]);
  const record = add!.event.subscriptions[0];
  t.is(record.stream_id, id);
  t.deepEqual(record.subscribers, sorted([cast.admin.id, cast.member.id]));
  t.is(record.subscriber_count, 2);
  const [peer] = ofType(published, 'subscription', 'peer_add');
  t.deepEqual(peer!.event.user_ids, [cast.member.id]);
  t.deepEqual(peer!.users, sorted([cast.owner.id, cast.admin.id, cast.moderator.id, cast.other.id]));
  t.is(ofType(published, 'stream', 'create').length, 0, 'the member could already see the channel');

  const again = await subscribe(cast.member, { subscriptions: [{ name: name.toUpperCase() }] });
  t.deepEqual(again.json.subscribed, {});
  t.deepEqual(again.json.already_subscribed, { [cast.member.id]: [name] });
});

test('GET /users/me/subscriptions: the personal fields, and subscribers when asked', async (t) => {
  const name = uniqueName('listed');
  const id = await createChannel(s, cast.member, name, [cast.member.id, cast.other.id], { description: 'hi' });
  const plain = (await mine(cast.other)).find((x) => x.stream_id === id);
  t.is(plain.name, name);
  t.is(plain.description, 'hi');
  t.is(plain.rendered_description, '<p>hi</p>');
  for (const k of ['desktop_notifications', 'email_notifications', 'wildcard_mentions_notify', 'push_notifications', 'audible_notifications']) {
    t.is(plain[k], null, k);
  }
  t.is(plain.pin_to_top, false);
  t.is(plain.is_muted, false);
  t.is(plain.in_home_view, true);
  t.regex(plain.color, /^#[0-9a-f]{6}$/);
  t.is(plain.subscriber_count, 2);
  t.false('subscribers' in plain);
  t.is(plain.can_send_message_group, groups['role:everyone']);
  const full = (await mine(cast.other, { include_subscribers: 'true' })).find((x) => x.stream_id === id);
  t.deepEqual(full.subscribers, sorted([cast.member.id, cast.other.id]));
  const partial = (await mine(cast.other, { include_subscribers: 'partial' })).find((x) => x.stream_id === id);
  t.deepEqual(partial.subscribers, sorted([cast.member.id, cast.other.id]));
  t.is((await s.client.as(cast.other).get('/users/me/subscriptions', { query: { include_subscribers: 'some' } })).json.msg, 'Invalid include_subscribers');
  const names = (await mine(cast.other)).map((x) => x.name);
  t.deepEqual(names, [...names].sort());
});

test('register: null notification settings only for clients with notification_settings_null', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('inherits'), [cast.other.id]);
  const snapshot = async (capabilities: Record<string, boolean>) => {
    const r = await s.client.as(cast.other).post('/register', {
      form: { event_types: JSON.stringify(['subscription']), client_capabilities: JSON.stringify(capabilities) },
    });
    return (r.json.subscriptions as any[]).find((x) => x.stream_id === id);
  };
  const modern = await snapshot({ notification_settings_null: true });
  t.is(modern.desktop_notifications, null);
  t.is(modern.wildcard_mentions_notify, null);
  const legacy = await snapshot({});
  t.is(legacy.desktop_notifications, false, 'enable_stream_desktop_notifications');
  t.is(legacy.push_notifications, false, 'enable_stream_push_notifications');
  t.is(legacy.wildcard_mentions_notify, true, 'wildcard_mentions_notify');
});

test('colors: each new subscription of a user gets a palette color not used yet', async (t) => {
  const user = await addUser(s, { fullName: 'Colorful' });
  const a = uniqueName('ca');
  const b = uniqueName('cb');
  await subscribe(user, { subscriptions: [{ name: a }, { name: b }] });
  const colors = (await mine(user)).map((x) => x.color);
  t.deepEqual(colors.sort(), ['#76ce90', '#fae589'].sort());
});

test('subscribing to a name that does not exist creates the channel with the given settings', async (t) => {
  const name = uniqueName('brand new');
  const r = await subscribe(cast.member, {
    subscriptions: [{ name, description: 'made by subscribing' }],
    invite_only: true,
    history_public_to_subscribers: true,
    can_send_message_group: groups['role:moderators'],
  });
  t.deepEqual(r.json.subscribed, { [cast.member.id]: [name] });
  const sub = (await mine(cast.member)).find((x) => x.name === name);
  t.is(sub.description, 'made by subscribing');
  t.is(sub.invite_only, true);
  t.is(sub.history_public_to_subscribers, true);
  t.is(sub.can_send_message_group, groups['role:moderators']);
  t.is(sub.creator_id, cast.member.id);
  t.is((await subscribe(cast.guest, { subscriptions: [{ name: uniqueName('guest made') }] })).json.msg, 'Insufficient permission');
  t.is((await subscribe(cast.member, { subscriptions: [{ name: '' }] })).json.msg, "Channel name can't be empty.");
});

test.serial('announce while creating several channels: one notification bot, a notice in each', async (t) => {
  const names = [uniqueName('first announced'), uniqueName('second announced')];
  const events = recordEvents(s);
  const r = await subscribe(cast.member, { subscriptions: names.map((name) => ({ name })), announce: true });
  t.is(r.status, 200);
  const published = events.take();
  events.stop();
  t.is(ofType(published, 'realm_user', 'add').length, 1);
  t.is(ofType(published, 'message').length, 2);
  for (const sub of (await mine(cast.member)).filter((x) => names.includes(x.name))) t.is(typeof sub.first_message_id, 'number');
});

test('subscribing others: principals by ID or email; permission and unknown users', async (t) => {
  const name = uniqueName('team');
  await createChannel(s, cast.member, name, [cast.member.id]);
  const r = await subscribe(cast.member, { subscriptions: [{ name }], principals: [cast.other.id, cast.guest.email] });
  t.deepEqual(r.json.subscribed, { [cast.other.id]: [name], [cast.guest.id]: [name] });
  t.is((await subscribe(cast.member, { subscriptions: [{ name }], principals: [424242] })).json.msg, 'No such user');
  t.is((await subscribe(cast.member, { subscriptions: [{ name }], principals: ['nobody@example.com'] })).json.msg, 'No such user');
  // Guests may not subscribe anyone else.
  const guestTry = await subscribe(cast.guest, { subscriptions: [{ name }], principals: [cast.moderator.id] });
  t.deepEqual(guestTry.json, { result: 'error', msg: 'Insufficient permission', code: 'BAD_REQUEST' });
});

test('private channels: subscribing needs access; authorization_errors_fatal=false lists them as unauthorized', async (t) => {
  const name = uniqueName('vault');
  const id = await createChannel(s, cast.member, name, [cast.member.id], { invite_only: 'true' });
  t.deepEqual((await subscribe(cast.other, { subscriptions: [{ name }] })).json, {
    result: 'error',
    msg: `Unable to access channel (${name}).`,
    code: 'BAD_REQUEST',
  });
  const lenient = await subscribe(cast.other, { subscriptions: [{ name }, { name: uniqueName('open') }], authorization_errors_fatal: false });
  t.deepEqual(lenient.json.unauthorized, [name]);
  t.deepEqual(Object.keys(lenient.json.subscribed), [String(cast.other.id)]);
  t.is(lenient.json.subscribed[cast.other.id].length, 1);
  // An administrator outside the channel has no content access, so can add neither themselves nor others…
  t.is((await subscribe(cast.admin, { subscriptions: [{ name }] })).json.msg, `Unable to access channel (${name}).`);
  t.is((await subscribe(cast.admin, { subscriptions: [{ name }], principals: [cast.guest.id] })).json.msg, `Unable to access channel (${name}).`);
  // …unless the channel lets them: can_add_subscribers_group for anyone, can_subscribe_group for themselves.
  await s.client.as(cast.member).patch(`/streams/${id}`, { form: { can_add_subscribers_group: JSON.stringify({ new: groups['role:administrators'] }) } });
  t.is((await subscribe(cast.admin, { subscriptions: [{ name }], principals: [cast.guest.id] })).status, 200);
  t.is((await subscribe(cast.moderator, { subscriptions: [{ name }] })).json.msg, `Unable to access channel (${name}).`);
  await s.client.as(cast.member).patch(`/streams/${id}`, { form: { can_subscribe_group: JSON.stringify({ new: groups['role:moderators'] }) } });
  t.is((await subscribe(cast.moderator, { subscriptions: [{ name }] })).status, 200);
  t.is((await subscribe(cast.moderator, { subscriptions: [{ name }], principals: [cast.other.id] })).status, 200, 'subscribers may add others');
  t.deepEqual((await s.client.as(cast.guest).get(`/streams/${id}/members`)).json.subscribers, sorted([cast.member.id, cast.guest.id, cast.moderator.id, cast.other.id]));
});

test.serial('a subscriber newly able to see a channel gets stream create before subscription add', async (t) => {
  const name = uniqueName('for guests');
  const id = await createChannel(s, cast.member, name, [cast.member.id]);
  const events = recordEvents(s);
  await subscribe(cast.member, { subscriptions: [{ name }], principals: [cast.guest.id] });
  const published = events.take().filter((e) => e.users.includes(cast.guest.id));
  events.stop();
  t.deepEqual(published.map((e) => `${e.event.type} ${e.event.op}`), ['stream create', 'subscription add']);
  t.is(published[0]!.event.streams[0].stream_id, id);
});

test.serial('unsubscribing oneself and others; removed and not_removed', async (t) => {
  const name = uniqueName('leave');
  const id = await createChannel(s, cast.member, name, [cast.member.id, cast.other.id, cast.guest.id], { invite_only: 'true' });
  const events = recordEvents(s);
  t.deepEqual((await unsubscribe(cast.guest, { subscriptions: [name] })).json, { result: 'success', msg: '', removed: [name], not_removed: [] });
  const published = events.take();
  t.deepEqual(ofType(published, 'subscription', 'remove')[0]!.event.subscriptions, [{ stream_id: id, name }]);
  t.deepEqual(ofType(published, 'stream', 'delete')[0]!.users, [cast.guest.id], 'the guest no longer sees the private channel');
  const [peer] = ofType(published, 'subscription', 'peer_remove');
  t.deepEqual(peer!.event, { type: 'subscription', op: 'peer_remove', stream_ids: [id], user_ids: [cast.guest.id] });
  t.deepEqual(peer!.users, sorted([cast.owner.id, cast.admin.id, cast.member.id, cast.other.id]));
  t.deepEqual((await unsubscribe(cast.admin, { subscriptions: [name] })).json.not_removed, [name]);
  // Removing others: can_remove_subscribers_group (administrators by default).
  t.deepEqual((await unsubscribe(cast.other, { subscriptions: [name], principals: [cast.member.id] })).json, {
    result: 'error',
    msg: 'Insufficient permission',
    code: 'BAD_REQUEST',
  });
  t.deepEqual((await unsubscribe(cast.admin, { subscriptions: [name], principals: [cast.other.id] })).json.removed, [name]);
  await s.client.as(cast.member).patch(`/streams/${id}`, {
    form: { can_remove_subscribers_group: JSON.stringify({ new: { direct_members: [cast.moderator.id], direct_subgroups: [] } }) },
  });
  await subscribe(cast.member, { subscriptions: [{ name }], principals: [cast.moderator.id, cast.other.id] });
  t.deepEqual((await unsubscribe(cast.moderator, { subscriptions: [name], principals: [cast.other.id] })).json.removed, [name]);
  events.stop();
  // A channel that does not exist, or that the user may not see.
  t.deepEqual((await unsubscribe(cast.member, { subscriptions: ['no such channel'] })).json, {
    result: 'error',
    msg: "Channel 'no such channel' does not exist",
    code: 'STREAM_DOES_NOT_EXIST',
    stream: 'no such channel',
  });
  t.is((await unsubscribe(cast.guest, { subscriptions: [name] })).json.code, 'STREAM_DOES_NOT_EXIST');
});

test.serial('resubscribing keeps the personal color', async (t) => {
  const name = uniqueName('again');
  const id = await createChannel(s, cast.member, name, [cast.member.id]);
  const post = (data: unknown) => s.client.as(cast.member).post('/users/me/subscriptions/properties', { form: { subscription_data: JSON.stringify(data) } });
  await post([{ stream_id: id, property: 'color', value: '#123456' }]);
  await unsubscribe(cast.member, { subscriptions: [name] });
  await subscribe(cast.member, { subscriptions: [{ name }] });
  t.is((await mine(cast.member)).find((x) => x.stream_id === id).color, '#123456');
});

test.serial('subscription properties: each one, is_muted with in_home_view, and their errors', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('props'), [cast.member.id]);
  const post = (data: unknown) => s.client.as(cast.member).post('/users/me/subscriptions/properties', { form: { subscription_data: JSON.stringify(data) } });
  const events = recordEvents(s);
  const r = await post([
    { stream_id: id, property: 'color', value: '#f00f00' },
    { stream_id: id, property: 'pin_to_top', value: true },
    { stream_id: id, property: 'desktop_notifications', value: false },
    { stream_id: id, property: 'audible_notifications', value: true },
    { stream_id: id, property: 'push_notifications', value: true },
    { stream_id: id, property: 'email_notifications', value: false },
    { stream_id: id, property: 'wildcard_mentions_notify', value: true },
    { stream_id: id, property: 'is_muted', value: true },
  ]);
  t.deepEqual(r.json, { result: 'success', msg: '' });
  const sub = (await mine(cast.member)).find((x) => x.stream_id === id);
  t.is(sub.color, '#f00f00');
  t.is(sub.pin_to_top, true);
  t.is(sub.desktop_notifications, false);
  t.is(sub.audible_notifications, true);
  t.is(sub.push_notifications, true);
  t.is(sub.email_notifications, false);
  t.is(sub.wildcard_mentions_notify, true);
  t.is(sub.is_muted, true);
  t.is(sub.in_home_view, false);
  const updates = ofType(events.take(), 'subscription', 'update');
  t.deepEqual(updates.map((e) => [e.event.property, e.event.value]), [
    ['color', '#f00f00'], ['pin_to_top', true], ['desktop_notifications', false], ['audible_notifications', true],
    ['push_notifications', true], ['email_notifications', false], ['wildcard_mentions_notify', true],
    ['is_muted', true], ['in_home_view', false],
  ]);
  t.deepEqual(updates[0]!.users, [cast.member.id]);
  t.deepEqual(updates[0]!.event, { type: 'subscription', op: 'update', stream_id: id, property: 'color', value: '#f00f00' });
  await post([{ stream_id: id, property: 'in_home_view', value: true }]);
  t.is((await mine(cast.member)).find((x) => x.stream_id === id).is_muted, false);
  t.deepEqual(ofType(events.take(), 'subscription', 'update').map((e) => [e.event.property, e.event.value]), [['is_muted', false], ['in_home_view', true]]);
  events.stop();

  t.is((await post([{ stream_id: id, property: 'volume', value: 11 }])).json.msg, 'Unknown subscription property: volume');
  t.is((await post([{ stream_id: id, property: 'color', value: 'red' }])).json.msg, 'color is not a valid hex color code');
  t.is((await post([{ stream_id: id, property: 'pin_to_top', value: 'yes' }])).json.msg, 'pin_to_top is not a boolean');
  t.is((await post([{ stream_id: 987654, property: 'pin_to_top', value: true }])).json.msg, 'Invalid channel ID');
  const other = await createChannel(s, cast.other, uniqueName('not mine'), [cast.other.id]);
  t.is((await post([{ stream_id: other, property: 'pin_to_top', value: true }])).json.msg, `Not subscribed to channel ID ${other}`);
  t.is((await post([{ stream_id: id, property: 'pin_to_top' }])).json.msg, 'value key is missing from subscription_data[0]');
});

test('GET /users/{user_id}/subscriptions/{stream_id}: is_subscribed', async (t) => {
  const id = await createChannel(s, cast.member, uniqueName('status'), [cast.member.id]);
  t.deepEqual((await s.client.as(cast.other).get(`/users/${cast.member.id}/subscriptions/${id}`)).json, { result: 'success', msg: '', is_subscribed: true });
  t.is((await s.client.as(cast.other).get(`/users/${cast.other.id}/subscriptions/${id}`)).json.is_subscribed, false);
  t.is((await s.client.as(cast.other).get(`/users/424242/subscriptions/${id}`)).json.msg, 'No such user');
  const priv = await createChannel(s, cast.member, uniqueName('status private'), [cast.member.id], { invite_only: 'true' });
  t.is((await s.client.as(cast.other).get(`/users/${cast.member.id}/subscriptions/${priv}`)).json.msg, 'Invalid channel ID');
});

test.serial('default channels: administrators add and remove them; new users join them', async (t) => {
  const name = uniqueName('welcome');
  const id = await createChannel(s, cast.admin, name, [cast.admin.id]);
  const priv = await createChannel(s, cast.admin, uniqueName('private default'), [cast.admin.id], { invite_only: 'true' });
  const post = (as: { email: string; apiKey: string }, channelId: number) => s.client.as(as).post('/default_streams', { form: { stream_id: String(channelId) } });
  t.deepEqual((await post(cast.member, id)).json, { result: 'error', msg: 'Must be an organization administrator', code: 'UNAUTHORIZED_PRINCIPAL' });
  t.deepEqual((await post(cast.admin, priv)).json, { result: 'error', msg: 'Private channels cannot be made default.', code: 'BAD_REQUEST' });
  t.deepEqual((await post(cast.admin, 987654)).json, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });
  const events = recordEvents(s);
  t.deepEqual((await post(cast.admin, id)).json, { result: 'success', msg: '' });
  t.deepEqual((await post(cast.admin, id)).json, { result: 'success', msg: '' }, 'adding twice is harmless');
  const defaults = ofType(events.take(), 'default_streams');
  t.is(defaults.length, 1);
  t.true(defaults[0]!.event.default_streams.includes(id));
  t.false(defaults[0]!.users.includes(cast.guest.id));

  const newcomer = await addUser(s, { fullName: 'Newcomer' });
  const joined = (await mine(newcomer)).map((x) => x.stream_id);
  t.true(joined.includes(id));
  const record = (await mine(newcomer)).find((x) => x.stream_id === id);
  t.is(record.color, '#76ce90');
  const bot = await addUser(s, { fullName: 'Default Bot', isBot: true });
  t.false((await mine(bot)).some((x) => x.stream_id === id), 'bots do not join default channels');

  t.deepEqual((await s.client.as(cast.admin).delete('/default_streams', { form: { stream_id: String(id) } })).json, { result: 'success', msg: '' });
  t.false(ofType(events.take(), 'default_streams')[0]!.event.default_streams.includes(id));
  events.stop();
  t.is((await s.client.as(cast.member).delete('/default_streams', { form: { stream_id: String(id) } })).json.code, 'UNAUTHORIZED_PRINCIPAL');
  const later = await addUser(s, { fullName: 'Latecomer' });
  t.false((await mine(later)).some((x) => x.stream_id === id));
});
