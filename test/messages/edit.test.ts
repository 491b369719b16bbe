// Editing messages over HTTP: content (mentions recomputed), topics with propagate_mode, resolving, moving to
// another channel, time limits and permissions, edit history, and the update_message event.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import type { Credentials } from '../helpers/http.js';
import { dm, events, getMessages, makeCast, makeChannel, post, register, setRealm, systemGroupId, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

function edit(as: Credentials, id: number, form: Record<string, string>) {
  return s.client.as(as).patch(`/messages/${id}`, { form });
}
async function backdate(id: number, seconds: number) {
  await s.server.services.db.none(`UPDATE messages SET date_sent = now() - make_interval(secs => $2) WHERE id = $1`, [id, seconds]);
}
const single = async (as: Credentials, id: number) => (await s.client.as(as).get(`/messages/${id}`, { query: { apply_markdown: 'false' } })).json;

test('editing content: new content, edit history, last_edit_timestamp, mention flags and the update_message event', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], 'first draft');
  const q = await register(s, other, { event_types: '["update_message"]' });
  const r = await edit(member, id, { content: `final, @**${other.fullName}**` });
  t.deepEqual(r.json, { result: 'success', msg: '' });
  const got = await single(other, id);
  t.is(got.message.content, `final, @**${other.fullName}**`);
  t.deepEqual(got.message.flags, ['mentioned']);
  t.true(Number.isInteger(got.message.last_edit_timestamp));
  t.false('last_moved_timestamp' in got.message);
  t.is(got.message.edit_history.length, 1);
  t.like(got.message.edit_history[0], { user_id: member.id, prev_content: 'first draft', prev_rendered_content: '<p>first draft</p>' });
  const [e] = await events(s, other, q.queue_id);
  t.like(e, {
    type: 'update_message',
    user_id: member.id,
    message_id: id,
    message_ids: [id],
    rendering_only: false,
    orig_content: 'first draft',
    orig_rendered_content: '<p>first draft</p>',
    content: `final, @**${other.fullName}**`,
    is_me_message: false,
    flags: ['mentioned'],
  });
  t.regex(e.rendered_content, /user-mention/);
  t.false('subject' in e);
  t.false('stream_id' in e);
  await edit(member, id, { content: 'no mention now' });
  t.deepEqual((await single(other, id)).message.flags, [], 'a removed mention clears the flag');
});

test('edit refusals: others’ messages, nothing to change, DM topics and moves, propagate_mode alone, unknown message', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], 'x');
  t.deepEqual((await edit(other, id, { content: 'hijack' })).json, {
    result: 'error',
    msg: "You don't have permission to edit this message",
    code: 'BAD_REQUEST',
  });
  t.is((await edit(member, id, {})).json.msg, 'Nothing to change');
  t.is((await edit(member, id, { topic: 'x' })).json.msg, 'Direct messages cannot have topics.');
  t.is((await edit(member, id, { stream_id: '1' })).json.msg, 'Direct messages cannot be moved to channels.');
  t.is((await edit(member, id, { content: 'y', propagate_mode: 'change_all' })).json.msg, 'Invalid propagate_mode without topic edit');
  t.is((await edit(member, 999999999, { content: 'y' })).json.msg, 'Invalid message(s)');
  t.is((await edit(member, id, { content: 'y', propagate_mode: 'change_some' })).status, 400);
});

test.serial('content edits: the organization switch and the time limit', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], 'x');
  await setRealm(s, { allow_message_editing: false });
  try {
    t.is((await edit(member, id, { content: 'y' })).json.msg, 'Your organization has turned off message editing');
  } finally {
    await setRealm(s, { allow_message_editing: true });
  }
  await backdate(id, 700);
  t.deepEqual((await edit(member, id, { content: 'y' })).json, {
    result: 'error',
    msg: 'The time limit for editing this message has past',
    code: 'BAD_REQUEST',
  });
  const recent = await dm(s, member, [other.id], 'x');
  await backdate(recent, 610);
  t.is((await edit(member, recent, { content: 'within the grace period' })).status, 200);
});

test('topic edits with propagate_mode change_one, change_later and change_all', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  const [a, b, c] = [await post(s, member, name, 'old', 'a'), await post(s, other, name, 'old', 'b'), await post(s, member, name, 'old', 'c')];
  const q = await register(s, other, { event_types: '["update_message"]' });
  t.is((await edit(member, b, { topic: 'later', propagate_mode: 'change_later' })).status, 200);
  const topics = async () => (await getMessages(s, member, { anchor: a, num_before: 0, num_after: 2, narrow: JSON.stringify([['channel', name]]) })).json.messages.map((m: { subject: string }) => m.subject);
  t.deepEqual(await topics(), ['old', 'later', 'later']);
  const [e] = await events(s, other, q.queue_id);
  t.like(e, {
    type: 'update_message',
    user_id: member.id,
    message_id: b,
    message_ids: [b, c],
    stream_id: channelId,
    stream_name: name,
    orig_subject: 'old',
    subject: 'later',
    propagate_mode: 'change_later',
    topic_links: [],
    flags: [],
  });
  t.false('content' in e);
  t.is((await edit(member, a, { topic: 'one' })).status, 200);
  t.deepEqual(await topics(), ['one', 'later', 'later']);
  t.is((await edit(other, c, { topic: 'all', propagate_mode: 'change_all' })).status, 200);
  t.deepEqual(await topics(), ['one', 'all', 'all']);
  const moved = await single(member, b);
  t.true(Number.isInteger(moved.message.last_moved_timestamp));
  t.false('last_edit_timestamp' in moved.message);
  t.deepEqual(moved.message.edit_history.map((h: { prev_topic: string; topic: string }) => [h.prev_topic, h.topic]), [['later', 'all'], ['old', 'later']]);
});

test.serial('topic permissions: moving needs can_move_messages_between_topics_group; resolving can_resolve_topics_group', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id, admin.id]);
  const id = await post(s, member, name, 'question', 'why?');
  const admins = await systemGroupId(s, 'role:administrators');
  const everyone = await systemGroupId(s, 'role:everyone');
  await setRealm(s, {}, { can_move_messages_between_topics_group: admins, can_resolve_topics_group: admins });
  try {
    t.is((await edit(member, id, { topic: 'renamed' })).json.msg, "You don't have permission to edit this message");
    t.is((await edit(member, id, { topic: '✔ question' })).json.msg, "You don't have permission to resolve topics in this channel.");
    t.is((await edit(admin, id, { topic: '✔ question' })).status, 200);
  } finally {
    await setRealm(s, {}, { can_move_messages_between_topics_group: everyone, can_resolve_topics_group: everyone });
  }
  const resolved = await single(member, id);
  t.is(resolved.message.subject, '✔ question');
  t.false('last_moved_timestamp' in resolved.message, 'resolving is not a move');
  const list = await getMessages(s, member, { anchor: 'newest', num_before: 5, num_after: 0, narrow: JSON.stringify([['channel', name], ['is', 'resolved']]) });
  t.deepEqual(list.json.messages.map((m: { id: number }) => m.id), [id]);
  t.is((await edit(other, id, { topic: 'question' })).status, 200, 'anyone may unresolve by default');
});

test.serial('move time limits: members are limited, moderators are not; change_all reports what may move', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  const oldOne = await post(s, member, name, 'aging', 'old');
  const newOne = await post(s, member, name, 'aging', 'new');
  await backdate(oldOne, 3600);
  await setRealm(s, { move_messages_within_stream_limit_seconds: 600 });
  try {
    t.is((await edit(other, oldOne, { topic: 'moved' })).json.msg, "The time limit for editing this message's topic has passed.");
    t.deepEqual((await edit(other, newOne, { topic: 'moved', propagate_mode: 'change_all' })).json, {
      result: 'error',
      msg: 'You only have permission to move the 1/2 most recent messages in this topic.',
      code: 'MOVE_MESSAGES_TIME_LIMIT_EXCEEDED',
      first_message_id_allowed_to_move: newOne,
      total_messages_allowed_to_move: 1,
      total_messages_in_topic: 2,
    });
    t.is((await edit(admin, oldOne, { topic: 'moved', propagate_mode: 'change_all' })).status, 200);
  } finally {
    await setRealm(s, { move_messages_within_stream_limit_seconds: 604800 });
  }
});

test('moving to another channel: rows follow the subscribers, those who lose access get delete_message', async (t) => {
  const { member, other, admin, guest } = await makeCast(s);
  const from = uniqueName('from');
  const to = uniqueName('to');
  const fromId = await makeChannel(s, from, [member.id, other.id, guest.id]);
  const toId = await makeChannel(s, to, [member.id, admin.id], { inviteOnly: true });
  const a = await post(s, member, from, 'moving', 'a');
  const b = await post(s, member, from, 'moving', 'b');
  t.is((await edit(guest, a, { stream_id: String(toId) })).json.msg, 'Invalid channel ID', 'the guest cannot see the target');
  const q = await register(s, other, { event_types: '["update_message","delete_message"]', client_capabilities: '{"bulk_message_deletion":true}' });
  const adminQ = await register(s, admin, { event_types: '["update_message"]' });
  const r = await edit(member, a, { stream_id: String(toId), topic: 'arrived', propagate_mode: 'change_all' });
  t.is(r.status, 200, r.text);
  const moved = await single(admin, a);
  t.is(moved.message.stream_id, toId);
  t.is(moved.message.subject, 'arrived');
  t.deepEqual(moved.message.flags, ['read'], 'new subscribers get the moved messages as read');
  t.like(moved.message.edit_history[0], { prev_stream: fromId, stream: toId, prev_topic: 'moving', topic: 'arrived' });
  t.is((await s.client.as(other).get(`/messages/${b}`)).json.msg, 'Invalid message(s)', 'the other lost access');
  const [gone] = await events(s, other, q.queue_id);
  t.like(gone, { type: 'delete_message', message_ids: [a, b], message_type: 'stream', stream_id: fromId, topic: 'moving' });
  const [upd] = await events(s, admin, adminQ.queue_id);
  t.like(upd, { type: 'update_message', message_ids: [a, b], new_stream_id: toId, stream_id: fromId, orig_subject: 'moving', subject: 'arrived', propagate_mode: 'change_all' });
  t.is((await edit(member, a, { stream_id: String(fromId), content: 'both' })).json.msg, 'Cannot change message content while changing channel');
});

test('GET /messages/{id}/history lists every version, oldest first', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  const id = await post(s, member, name, 'first topic', 'version one');
  await edit(member, id, { content: 'version two' });
  await edit(member, id, { topic: 'second topic' });
  const r = await s.client.as(other).get(`/messages/${id}/history`);
  t.is(r.status, 200);
  const h = r.json.message_history;
  t.is(h.length, 3);
  t.like(h[0], { content: 'version one', rendered_content: '<p>version one</p>', topic: 'first topic', user_id: member.id, stream: channelId });
  t.like(h[1], { content: 'version two', prev_content: 'version one', prev_rendered_content: '<p>version one</p>', topic: 'first topic', user_id: member.id });
  t.like(h[2], { content: 'version two', topic: 'second topic', prev_topic: 'first topic' });
  t.true(h.every((e: { timestamp: number }) => Number.isInteger(e.timestamp)));
  const outsider = await makeCast(s);
  const private_ = await dm(s, member, [other.id], 'secret');
  t.is((await s.client.as(outsider.member).get(`/messages/${private_}/history`)).json.msg, 'Invalid message(s)');
});

test('an edit that adds a channel wildcard mention in a large channel needs can_mention_many_users_group', async (t) => {
  const { member, admin } = await makeCast(s);
  const crowd = [];
  for (let i = 0; i < 15; i++) crowd.push((await addUser(s, { fullName: `Edit crowd ${i}` })).id);
  const name = uniqueName('big');
  await makeChannel(s, name, [member.id, admin.id, ...crowd]);
  const id = await post(s, member, name, 't', 'plain');
  t.deepEqual((await edit(member, id, { content: 'now @**all**' })).json, {
    result: 'error',
    msg: 'You do not have permission to use channel wildcard mentions in this channel.',
    code: 'STREAM_WILDCARD_MENTION_NOT_ALLOWED',
  });
  const adminMsg = await post(s, admin, name, 't', 'plain');
  t.is((await edit(admin, adminMsg, { content: 'now @**all**' })).status, 200);
  const crowdMsg = (await getMessages(s, { email: admin.email, apiKey: admin.apiKey }, { anchor: adminMsg, num_before: 0, num_after: 0 })).json.messages[0];
  t.deepEqual(crowdMsg.flags, ['stream_wildcard_mentioned', 'wildcard_mentioned']);
});
