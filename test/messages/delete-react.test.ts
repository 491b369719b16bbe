// Deleting messages and emoji reactions over HTTP: permissions and time limits, delete_message in both forms,
// reaction validation, historical rows, reaction events.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Credentials } from '../helpers/http.js';
import { dm, events, getMessages, makeCast, makeChannel, post, register, setRealm, systemGroupId, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const del = (as: Credentials, id: number) => s.client.as(as).delete(`/messages/${id}`);
const react = (as: Credentials, id: number, form: Record<string, string>) => s.client.as(as).post(`/messages/${id}/reactions`, { form });
const unreact = (as: Credentials, id: number, form: Record<string, string>) => s.client.as(as).delete(`/messages/${id}/reactions`, { form });

test('deleting one’s own message: gone for everyone, delete_message in bulk and legacy forms', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], 'oops');
  const bulk = await register(s, other, { event_types: '["delete_message"]', client_capabilities: '{"bulk_message_deletion":true}' });
  const legacy = await register(s, other, { event_types: '["delete_message"]' });
  const r = await del(member, id);
  t.deepEqual(r.json, { result: 'success', msg: '' });
  t.is((await s.client.as(other).get(`/messages/${id}`)).json.msg, 'Invalid message(s)');
  const [b] = await events(s, other, bulk.queue_id);
  t.deepEqual({ ...b, id: 0 }, { type: 'delete_message', message_type: 'private', message_ids: [id], id: 0 });
  const [l] = await events(s, other, legacy.queue_id);
  t.deepEqual({ ...l, id: 0 }, { type: 'delete_message', message_type: 'private', message_id: id, id: 0 });
  t.is((await del(member, id)).json.msg, 'Invalid message(s)');
});

test('deleting a channel message: stream fields in the event, first_message_id kept right', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  const q = await register(s, other, { event_types: '["delete_message"]', client_capabilities: '{"bulk_message_deletion":true,"empty_topic_name":true}' });
  const id = await post(s, member, name, '', 'x');
  t.is((await del(member, id)).status, 200);
  const [e] = await events(s, other, q.queue_id);
  t.like(e, { type: 'delete_message', message_ids: [id], message_type: 'stream', stream_id: channelId, topic: '' });
  t.false('empty_topic_display_name' in e);
});

test('others may not delete a member’s message; administrators may', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const id = await dm(s, member, [other.id, admin.id], 'mine');
  t.deepEqual((await del(other, id)).json, { result: 'error', msg: "You don't have permission to delete this message", code: 'BAD_REQUEST' });
  t.is((await del(admin, id)).status, 200);
});

test.serial('deleting one’s own message: the time limit and can_delete_own_message_group', async (t) => {
  const { member, other } = await makeCast(s);
  const old = await dm(s, member, [other.id], 'old');
  await s.server.services.db.none(`UPDATE messages SET date_sent = now() - interval '1 hour' WHERE id = $1`, [old]);
  t.deepEqual((await del(member, old)).json, { result: 'error', msg: 'The time limit for deleting this message has passed', code: 'BAD_REQUEST' });
  const fresh = await dm(s, member, [other.id], 'fresh');
  await setRealm(s, {}, { can_delete_own_message_group: await systemGroupId(s, 'role:administrators') });
  try {
    t.is((await del(member, fresh)).json.msg, "You don't have permission to delete this message");
  } finally {
    await setRealm(s, {}, { can_delete_own_message_group: await systemGroupId(s, 'role:everyone') });
  }
  t.is((await del(member, fresh)).status, 200);
});

test('reactions: add by name, shown on the message, events to recipients, duplicates and removal', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], 'react to me');
  const q = await register(s, member, { event_types: '["reaction"]' });
  const r = await react(other, id, { emoji_name: 'octopus' });
  t.deepEqual(r.json, { result: 'success', msg: '' });
  const m = (await s.client.as(member).get(`/messages/${id}`)).json.message;
  t.deepEqual(m.reactions, [{ emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji', user_id: other.id }]);
  t.deepEqual((await react(other, id, { emoji_name: 'octopus' })).json, { result: 'error', msg: 'Reaction already exists.', code: 'BAD_REQUEST' });
  const withReaction = await getMessages(s, member, { anchor: 'newest', num_before: 3, num_after: 0, narrow: '[["has","reaction"]]' });
  t.deepEqual(withReaction.json.messages.map((x: { id: number }) => x.id), [id]);
  t.is((await unreact(other, id, { emoji_code: '1f419' })).status, 200);
  t.deepEqual((await unreact(other, id, { emoji_name: 'octopus' })).json, { result: 'error', msg: "Reaction doesn't exist.", code: 'BAD_REQUEST' });
  const evs = await events(s, member, q.queue_id);
  const common = { type: 'reaction', user_id: other.id, message_id: id, emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'unicode_emoji' };
  t.like(evs[0], { ...common, op: 'add' });
  t.like(evs[1], { ...common, op: 'remove' });
  t.deepEqual(evs[0].user, { user_id: other.id, email: other.email, full_name: other.fullName });
});

test('reaction validation: unknown names, mismatched codes, bad types, missing arguments', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], 'x');
  t.deepEqual((await react(member, id, { emoji_name: 'no_such_emoji' })).json, { result: 'error', msg: "Emoji 'no_such_emoji' does not exist", code: 'BAD_REQUEST' });
  t.is((await react(member, id, { emoji_name: 'octopus', emoji_code: '1f600', reaction_type: 'unicode_emoji' })).json.msg, 'Invalid emoji name.');
  t.is((await react(member, id, { emoji_name: 'octopus', emoji_code: 'zzzz', reaction_type: 'unicode_emoji' })).json.msg, 'Invalid emoji code.');
  t.is((await react(member, id, { emoji_name: 'octopus', emoji_code: '1f419', reaction_type: 'weird' })).json.msg, 'Invalid emoji type.');
  t.is((await react(member, id, { emoji_name: 'x', emoji_code: '77', reaction_type: 'realm_emoji' })).json.msg, 'Invalid custom emoji.');
  // One emoji check for reactions and statuses (Zulip's check_emoji_request): an unknown extra emoji is a bad code.
  t.is((await react(member, id, { emoji_name: 'x', emoji_code: 'x', reaction_type: 'zulip_extra_emoji' })).json.msg, 'Invalid emoji code.');
  t.is((await react(member, id, { emoji_name: 'octopus', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji' })).json.msg, 'Invalid emoji name.');
  t.is((await react(member, id, {})).json.code, 'REQUEST_VARIABLE_MISSING');
  t.is((await unreact(member, id, {})).json.msg, 'At least one of the following arguments must be present: emoji_name, emoji_code');
  t.is((await react(member, id, { emoji_name: 'zulip' })).status, 200);
  const m = (await s.client.as(member).get(`/messages/${id}`)).json.message;
  t.deepEqual(m.reactions, [{ emoji_name: 'zulip', emoji_code: 'zulip', reaction_type: 'zulip_extra_emoji', user_id: member.id }]);
});

test('a vote for an existing reaction keeps its name; reacting to an unreceived public message adds a historical row', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id]);
  const id = await post(s, member, name, 't', 'public');
  t.is((await react(member, id, { emoji_name: 'thumbs_up' })).status, 200);
  t.is((await react(other, id, { emoji_name: '+1' })).status, 200);
  const m = (await s.client.as(other).get(`/messages/${id}`)).json.message;
  t.deepEqual(m.reactions.map((r: { emoji_name: string; user_id: number }) => [r.emoji_name, r.user_id]), [['thumbs_up', member.id], ['thumbs_up', other.id]]);
  t.deepEqual(m.flags, ['read', 'historical']);
  const personal = await getMessages(s, other, { anchor: 'newest', num_before: 5, num_after: 0 });
  t.true(personal.json.messages.some((x: { id: number }) => x.id === id), 'the historical row puts it in personal history');
  const theirs = await dm(s, member, [admin.id], 'private');
  t.is((await react(other, theirs, { emoji_name: 'octopus' })).json.msg, 'Invalid message(s)');
});
