// Sending channel messages over HTTP: addressing, topics and topics_policy, who may post, wildcard mentions,
// automatic follow, and the message event to subscribers and all_public_streams queues.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { events, getMessages, makeCast, makeChannel, post, realmOf, register, send, systemGroupId, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const narrowTo = (channelId: number, topic?: string) =>
  JSON.stringify([{ operator: 'channel', operand: channelId }, ...(topic === undefined ? [] : [{ operator: 'topic', operand: topic }])]);

test('a channel message by name, ID, JSON name or one-element list; its stored shape', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id, other.id]);
  const forms = [name, String(id), JSON.stringify(name), JSON.stringify([id])];
  const sent: number[] = [];
  for (const to of forms) {
    const r = await send(s, member, { type: 'stream', to, topic: 'greetings', content: 'hi' });
    t.is(r.status, 200, r.text);
    sent.push(r.json.id);
  }
  const viaChannel = await send(s, member, { type: 'channel', to: name, subject: 'legacy subject', content: 'hi' });
  t.is(viaChannel.status, 200);
  const got = await getMessages(s, other, { anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowTo(id) });
  const ours = got.json.messages.filter((m: { sender_id: number }) => m.sender_id === member.id);
  t.deepEqual(ours.map((m: { id: number }) => m.id), [...sent, viaChannel.json.id]);
  const m = ours[0];
  t.is(m.type, 'stream');
  t.is(m.stream_id, id);
  t.is(m.display_recipient, name);
  t.is(m.subject, 'greetings');
  t.is(m.recipient_id, 2 * id);
  t.deepEqual(m.flags, []);
  t.is(ours[4].subject, 'legacy subject');
});

test('unknown channels: STREAM_DOES_NOT_EXIST with the name or the ID', async (t) => {
  const { member } = await makeCast(s);
  const byName = await send(s, member, { type: 'stream', to: 'no such room', topic: 'x', content: 'x' });
  t.is(byName.status, 400);
  t.deepEqual(byName.json, { result: 'error', msg: "Channel 'no such room' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream: 'no such room' });
  const byId = await send(s, member, { type: 'stream', to: '99999', topic: 'x', content: 'x' });
  t.deepEqual(byId.json, { result: 'error', msg: "Channel with ID '99999' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream_id: 99999 });
});

test('topics: required, trimmed, "(no topic)" and the display name mean the empty topic, long ones cut', async (t) => {
  const { member } = await makeCast(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id]);
  const missing = await send(s, member, { type: 'stream', to: name, content: 'x' });
  t.deepEqual(missing.json, { result: 'error', msg: 'Missing topic', code: 'BAD_REQUEST' });
  const ids = [
    await post(s, member, name, '(no topic)', 'a'),
    await post(s, member, name, 'general chat', 'b'),
    await post(s, member, name, '   ', 'c'),
    await post(s, member, name, '  spaced  ', 'd'),
    await post(s, member, name, 'y'.repeat(70), 'e'),
  ];
  const raw = await getMessages(s, member, { anchor: ids[0], num_before: 0, num_after: 5, narrow: narrowTo(id), allow_empty_topic_name: true });
  t.deepEqual(raw.json.messages.map((m: { subject: string }) => m.subject), ['', '', '', 'spaced', 'y'.repeat(57) + '...']);
  const legacy = await getMessages(s, member, { anchor: ids[0], num_before: 0, num_after: 1, narrow: narrowTo(id) });
  t.is(legacy.json.messages[0].subject, 'general chat', 'clients without the empty topic see the display name');
  const bad = await send(s, member, { type: 'stream', to: name, topic: 'a\u0007b', content: 'x' });
  t.is(bad.json.msg, 'Invalid character in topic, at position 2!');
});

test('topics_policy: disable_empty_topic refuses the empty topic; empty_topic_only refuses named topics', async (t) => {
  const { member } = await makeCast(s);
  const strict = uniqueName();
  await makeChannel(s, strict, [member.id], { topicsPolicy: 'disable_empty_topic' });
  const refused = await send(s, member, { type: 'stream', to: strict, topic: '', content: 'x' });
  t.deepEqual(refused.json, { result: 'error', msg: 'Topics are required in this channel.', code: 'BAD_REQUEST' });
  t.is((await send(s, member, { type: 'stream', to: strict, topic: 'named', content: 'x' })).status, 200);
  const only = uniqueName();
  await makeChannel(s, only, [member.id], { topicsPolicy: 'empty_topic_only' });
  const named = await send(s, member, { type: 'stream', to: only, topic: 'named', content: 'x' });
  t.deepEqual(named.json, { result: 'error', msg: 'Only the general chat topic is allowed in this channel.', code: 'TOPICS_NOT_ALLOWED' });
  t.is((await send(s, member, { type: 'stream', to: only, topic: '', content: 'x' })).status, 200);
});

test('who may post: private channels need a subscription; can_send_message_group; guests only where subscribed', async (t) => {
  const { member, other, admin, guest } = await makeCast(s);
  const secret = uniqueName('secret');
  await makeChannel(s, secret, [member.id], { inviteOnly: true });
  // A private channel the sender may not know of is answered like a missing one (its existence stays hidden);
  // an administrator, who may know it, is refused by name.
  const outsider = await send(s, other, { type: 'stream', to: secret, topic: 't', content: 'x' });
  t.deepEqual(outsider.json, { result: 'error', msg: `Channel '${secret}' does not exist`, code: 'STREAM_DOES_NOT_EXIST', stream: secret });
  const adminOutsider = await send(s, admin, { type: 'stream', to: secret, topic: 't', content: 'x' });
  t.is(adminOutsider.json.msg, `Not authorized to send to channel '${secret}'`);
  t.is((await send(s, member, { type: 'stream', to: secret, topic: 't', content: 'x' })).status, 200);

  const announcements = uniqueName('announce');
  const admins = await systemGroupId(s, 'role:administrators');
  await makeChannel(s, announcements, [member.id, admin.id], { groupSettings: { can_send_message_group: admins } });
  const memberPost = await send(s, member, { type: 'stream', to: announcements, topic: 't', content: 'x' });
  t.deepEqual(memberPost.json, { result: 'error', msg: 'You do not have permission to post in this channel.', code: 'BAD_REQUEST' });
  t.is((await send(s, admin, { type: 'stream', to: announcements, topic: 't', content: 'x' })).status, 200);

  const open = uniqueName('open');
  await makeChannel(s, open, [member.id]);
  // Guests post only where subscribed (or web-public), as in Zulip's access_stream_for_send_message.
  const guestPost = await send(s, guest, { type: 'stream', to: open, topic: 't', content: 'not subscribed' });
  t.is(guestPost.json.code, 'STREAM_DOES_NOT_EXIST');
  await s.client.as(member).post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: open }]), principals: JSON.stringify([guest.id]) } });
  t.is((await send(s, guest, { type: 'stream', to: open, topic: 't', content: 'subscribed now' })).status, 200);
});

test('subscribers receive the message; a non-subscriber reads it only through the channel’s history', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id, other.id]);
  const msg = await post(s, member, name, 'news', 'for subscribers');
  const personal = await getMessages(s, admin, { anchor: 'newest', num_before: 5, num_after: 0 });
  t.false(personal.json.messages.some((m: { id: number }) => m.id === msg));
  const viaChannel = await getMessages(s, admin, { anchor: msg, num_before: 0, num_after: 0, narrow: narrowTo(id) });
  t.is(viaChannel.json.messages[0].id, msg);
  t.deepEqual(viaChannel.json.messages[0].flags, ['read', 'historical']);
  const single = await s.client.as(admin).get(`/messages/${msg}`);
  t.is(single.status, 200);
  t.deepEqual(single.json.message.flags, ['read', 'historical']);
  t.is(single.json.raw_content, 'for subscribers');
});

test('wildcard mentions in large channels need can_mention_many_users_group', async (t) => {
  const { member, admin } = await makeCast(s);
  const crowd = [];
  for (let i = 0; i < 15; i++) crowd.push((await addUser(s, { fullName: `Crowd ${i}` })).id);
  const name = uniqueName('big');
  await makeChannel(s, name, [member.id, admin.id, ...crowd]);
  const refused = await send(s, member, { type: 'stream', to: name, topic: 't', content: 'hey @**all**' });
  t.deepEqual(refused.json, {
    result: 'error',
    msg: 'You do not have permission to use channel wildcard mentions in this channel.',
    code: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
  });
  t.is((await send(s, member, { type: 'stream', to: name, topic: 't', content: 'silent @_**all** is fine' })).status, 200);
  t.is((await send(s, admin, { type: 'stream', to: name, topic: 't', content: 'hey @**everyone**' })).status, 200);

  // Sixteen participants in a topic make it large for @topic.
  const realm = await realmOf(s);
  const topic = 'busy topic';
  for (const uid of crowd) {
    const u = realm.state.usersById.get(uid)!;
    await post(s, { email: u.email, apiKey: u.apiKey }, name, topic, 'me too');
  }
  await post(s, admin, name, topic, 'and me');
  const topicRefused = await send(s, member, { type: 'stream', to: name, topic, content: 'hey @**topic**' });
  t.deepEqual(topicRefused.json, {
    result: 'error',
    msg: 'You do not have permission to use topic wildcard mentions in this topic.',
    code: 'TOPIC_WILDCARD_MENTION_NOT_ALLOWED',
  });
  t.is((await send(s, admin, { type: 'stream', to: name, topic, content: 'hey @**topic**' })).status, 200);
});

test('@topic flags the topic’s participants; @all flags every subscriber', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id, other.id, admin.id]);
  await post(s, other, name, 'talk', 'I was here');
  await post(s, member, name, 'talk', 'hello @**topic**');
  await post(s, member, name, 'talk', 'hello @**channel**');
  const flagsOf = async (u: typeof member) =>
    (await getMessages(s, u, { anchor: 'newest', num_before: 2, num_after: 0, narrow: narrowTo(id, 'talk') })).json.messages.map(
      (m: { flags: string[] }) => m.flags.filter((f) => f !== 'read'),
    );
  t.deepEqual(await flagsOf(other), [['topic_wildcard_mentioned', 'wildcard_mentioned'], ['stream_wildcard_mentioned', 'wildcard_mentioned']]);
  t.deepEqual(await flagsOf(admin), [[], ['stream_wildcard_mentioned', 'wildcard_mentioned']]);
});

test('starting a topic follows it (automatic_new_visibility_policy and a user_topic event); later sends do not', async (t) => {
  const { member } = await makeCast(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id]);
  const q = await register(s, member, { event_types: '["user_topic"]' });
  const first = await send(s, member, { type: 'stream', to: name, topic: 'fresh', content: 'first' });
  t.is(first.json.automatic_new_visibility_policy, 3);
  const second = await send(s, member, { type: 'stream', to: name, topic: 'fresh', content: 'second' });
  t.false('automatic_new_visibility_policy' in second.json);
  const evs = await events(s, member, q.queue_id);
  t.is(evs.length, 1);
  t.like(evs[0], { type: 'user_topic', stream_id: id, topic_name: 'fresh', visibility_policy: 3 });
  t.true(Number.isInteger(evs[0].last_updated));
  const followed = await getMessages(s, member, { anchor: 'newest', num_before: 5, num_after: 0, narrow: '[["is","followed"]]' });
  t.deepEqual(followed.json.messages.map((m: { id: number }) => m.id), [first.json.id, second.json.id]);
});

test('message events reach subscribers with flags and all_public_streams queues of others', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  const id = await makeChannel(s, name, [member.id, other.id]);
  const subscriber = await register(s, other, { event_types: '["message"]', client_capabilities: '{"empty_topic_name":true}' });
  const watcher = await register(s, admin, { event_types: '["message"]', all_public_streams: 'true' });
  const plain = await register(s, admin, { event_types: '["message"]' });
  const msg = await post(s, member, name, '', `ping @**${other.fullName}**`);
  const [toSub] = await events(s, other, subscriber.queue_id);
  t.deepEqual(toSub.flags, ['mentioned']);
  t.is(toSub.message.id, msg);
  t.is(toSub.message.stream_id, id);
  t.is(toSub.message.display_recipient, name);
  t.is(toSub.message.subject, '');
  const toWatcher = (await events(s, admin, watcher.queue_id)).find((e) => e.message.id === msg);
  t.deepEqual(toWatcher.flags, []);
  t.is(toWatcher.message.subject, 'general chat');
  t.false((await events(s, admin, plain.queue_id)).some((e) => e.message.id === msg));
});
