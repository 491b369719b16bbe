// Scheduled messages over HTTP: E2 create and its rules, GET, PATCH (content, topic, recipient, delivery time),
// DELETE, the scheduled_messages events and the register section.
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';
import { makeChannel, uniqueName } from '../messages/helpers.js';
import { schedule, scheduledList, scheduleOk, startClockedServer, type ClockedServer } from './helpers.js';

let c: ClockedServer;
test.before(async () => {
  c = await startClockedServer();
});
test.after.always(() => c?.s.close());

const later = (seconds = 3600) => String(c.now() + seconds);
const strip = (events: Record<string, any>[]) => events.map(({ id: _id, ...e }) => e);

async function sender(): Promise<{ user: TestUser; friend: TestUser; channelId: number; channel: string }> {
  const user = await addUser(c.s);
  const friend = await addUser(c.s);
  const channel = uniqueName('sched');
  const channelId = await makeChannel(c.s, channel, [user.id, friend.id]);
  return { user, friend, channelId, channel };
}

test('E2: channel and direct messages are scheduled; GET lists them soonest first in the reference shape', async (t) => {
  const { user, friend, channelId } = await sender();
  const at1 = c.now() + 7200;
  const at2 = c.now() + 3600;
  const id1 = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 'plans', content: 'Hi **all**', scheduled_delivery_timestamp: String(at1) });
  const id2 = await scheduleOk(c.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content: 'psst', scheduled_delivery_timestamp: String(at2) });
  t.not(id1, id2);
  t.deepEqual(await scheduledList(c.s, user), [
    { scheduled_message_id: id2, type: 'private', to: [friend.id], content: 'psst', rendered_content: '<p>psst</p>', scheduled_delivery_timestamp: at2, failed: false },
    {
      scheduled_message_id: id1,
      type: 'stream',
      to: channelId,
      topic: 'plans',
      content: 'Hi **all**',
      rendered_content: '<p>Hi <strong>all</strong></p>',
      scheduled_delivery_timestamp: at1,
      failed: false,
    },
  ]);
  t.deepEqual(await scheduledList(c.s, friend), [], 'only the sender sees them');
});

test('E2: every type name is accepted; a channel ID may come in a one-element list; a single user ID is a list of one', async (t) => {
  const { user, friend, channelId } = await sender();
  for (const type of ['channel', 'stream']) {
    for (const to of [String(channelId), JSON.stringify([channelId])]) {
      t.is((await schedule(c.s, user, { type, to, topic: 't', content: 'x', scheduled_delivery_timestamp: later() })).status, 200);
    }
  }
  for (const type of ['direct', 'private']) {
    t.is((await schedule(c.s, user, { type, to: JSON.stringify([friend.id]), content: 'x', scheduled_delivery_timestamp: later() })).status, 200);
  }
  t.is((await schedule(c.s, user, { type: 'direct', to: String(friend.id), content: 'x', scheduled_delivery_timestamp: later() })).status, 200);
  const all = await scheduledList(c.s, user);
  t.deepEqual(all.map((m) => m.to), [channelId, channelId, channelId, channelId, [friend.id], [friend.id], [friend.id]]);
});

test('E2: names and emails are refused; unknown channel IDs are STREAM_DOES_NOT_EXIST with stream_id; unknown users BAD_REQUEST', async (t) => {
  const { user, friend, channel } = await sender();
  const msg = 'Scheduled messages take a channel ID or a list of user IDs, not names or email addresses.';
  for (const [type, to] of [
    ['stream', channel],
    ['stream', JSON.stringify(channel)],
    ['direct', JSON.stringify([friend.email])],
    ['direct', friend.email],
  ]) {
    const r = await schedule(c.s, user, { type: type!, to: to!, topic: 't', content: 'x', scheduled_delivery_timestamp: later() });
    t.is(r.status, 400, `${type} ${to}`);
    t.deepEqual(r.json, { result: 'error', msg, code: 'BAD_REQUEST' });
  }
  const noChannel = await schedule(c.s, user, { type: 'stream', to: '999999', topic: 't', content: 'x', scheduled_delivery_timestamp: later() });
  t.is(noChannel.status, 400);
  t.deepEqual(noChannel.json, { result: 'error', msg: "Channel with ID '999999' does not exist", code: 'STREAM_DOES_NOT_EXIST', stream_id: 999999 });
  const noUser = await schedule(c.s, user, { type: 'direct', to: '[999999]', content: 'x', scheduled_delivery_timestamp: later() });
  t.deepEqual(noUser.json, { result: 'error', msg: 'Invalid user ID 999999', code: 'BAD_REQUEST' });
  t.deepEqual(await scheduledList(c.s, user), []);
});

test('E2: the sending rules apply to content and topic', async (t) => {
  const { user, channelId } = await sender();
  const form = (o: Record<string, string>) => ({ type: 'stream', to: String(channelId), topic: 't', content: 'x', scheduled_delivery_timestamp: later(), ...o });
  t.is((await schedule(c.s, user, form({ content: '  \n ' }))).json.msg, 'Message must not be empty');
  t.is((await schedule(c.s, user, form({ content: 'a\u0000b' }))).json.msg, 'Message must not contain null bytes');
  const noTopic = { type: 'stream', to: String(channelId), content: 'x', scheduled_delivery_timestamp: later() };
  t.is((await schedule(c.s, user, noTopic)).json.msg, 'Missing topic');
  // "(no topic)" is the empty topic; a long topic is cut as when sending.
  const empty = await scheduleOk(c.s, user, form({ topic: '(no topic)' }));
  const long = await scheduleOk(c.s, user, form({ topic: 'x'.repeat(80) }));
  const byId = new Map((await scheduledList(c.s, user)).map((m) => [m.scheduled_message_id, m]));
  t.is(byId.get(empty).topic, '');
  t.is(byId.get(long).topic, 'x'.repeat(57) + '...');
  // A channel that requires topics refuses the empty one.
  const strict = await makeChannel(c.s, uniqueName('strict'), [user.id], { topicsPolicy: 'disable_empty_topic' });
  const r = await schedule(c.s, user, { type: 'stream', to: String(strict), topic: '', content: 'x', scheduled_delivery_timestamp: later() });
  t.is(r.json.msg, 'Topics are required in this channel.');
  // So does posting permission: a private channel the sender is not in is answered as missing, not by its name.
  const secret = await makeChannel(c.s, uniqueName('secret'), [], { inviteOnly: true });
  const denied = await schedule(c.s, user, { type: 'stream', to: String(secret), topic: 't', content: 'x', scheduled_delivery_timestamp: later() });
  t.is(denied.status, 400);
  t.is(denied.json.code, 'STREAM_DOES_NOT_EXIST');
  t.is(denied.json.stream_id, secret);
});

test('E2: the delivery time must be in the future', async (t) => {
  const { user, channelId } = await sender();
  for (const at of [c.now(), c.now() - 60]) {
    const r = await schedule(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content: 'x', scheduled_delivery_timestamp: String(at) });
    t.deepEqual(r.json, { result: 'error', msg: 'Scheduled delivery time must be in the future.', code: 'BAD_REQUEST' });
  }
  const missing = await schedule(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content: 'x' });
  t.is(missing.json.code, 'REQUEST_VARIABLE_MISSING');
});

test('PATCH edits content, topic, delivery time and recipient (channel ⇄ direct)', async (t) => {
  const { user, friend, channelId } = await sender();
  const id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 'old', content: 'old text', scheduled_delivery_timestamp: later() });
  const patch = (form: Record<string, string>) => c.s.client.as(user).patch(`/scheduled_messages/${id}`, { form });
  const at = c.now() + 9000;
  t.is((await patch({ content: 'new *text*', topic: 'new', scheduled_delivery_timestamp: String(at) })).status, 200);
  t.like((await scheduledList(c.s, user))[0], { type: 'stream', to: channelId, topic: 'new', content: 'new *text*', rendered_content: '<p>new <em>text</em></p>', scheduled_delivery_timestamp: at });
  t.is((await patch({ type: 'direct', to: JSON.stringify([friend.id]) })).status, 200);
  const direct = (await scheduledList(c.s, user))[0];
  t.like(direct, { type: 'private', to: [friend.id], content: 'new *text*' });
  t.false('topic' in direct);
  t.is((await patch({ to: JSON.stringify([friend.id, user.id]) })).status, 200, 'a new recipient list of the same type');
  t.is((await patch({ type: 'stream', to: String(channelId), topic: 'back' })).status, 200);
  t.like((await scheduledList(c.s, user))[0], { type: 'stream', to: channelId, topic: 'back' });
});

test('PATCH errors: not found, type without recipient or topic, time in the past, nothing to change, names', async (t) => {
  const { user, friend, channelId } = await sender();
  const stranger = await addUser(c.s);
  const id = await scheduleOk(c.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content: 'x', scheduled_delivery_timestamp: later() });
  const patch = (form: Record<string, string>, as = user, which = id) => c.s.client.as(as).patch(`/scheduled_messages/${which}`, { form });
  for (const r of [await patch({ content: 'y' }, stranger), await patch({ content: 'y' }, user, 999_999)]) {
    t.is(r.status, 404);
    t.deepEqual(r.json, { result: 'error', msg: 'Scheduled message does not exist', code: 'BAD_REQUEST' });
  }
  t.is((await patch({ type: 'stream' })).json.msg, 'Recipient required when updating type of scheduled message.');
  t.is((await patch({ type: 'stream', to: String(channelId) })).json.msg, 'Topic required when updating scheduled message type to channel.');
  t.is((await patch({ scheduled_delivery_timestamp: String(c.now() - 1) })).json.msg, 'Scheduled delivery time must be in the future.');
  t.is((await patch({})).json.msg, 'Client did not pass any new values.');
  t.is((await patch({ to: JSON.stringify([friend.email]) })).status, 400);
  t.is((await patch({ type: 'stream', to: '999999', topic: 't' })).json.code, 'STREAM_DOES_NOT_EXIST');
  t.like((await scheduledList(c.s, user))[0], { type: 'private', content: 'x' }, 'unchanged by refused edits');
});

test('DELETE cancels; the message leaves the list; a second delete and other users get 404', async (t) => {
  const { user, friend } = await sender();
  const id = await scheduleOk(c.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content: 'x', scheduled_delivery_timestamp: later() });
  t.is((await c.s.client.as(friend).delete(`/scheduled_messages/${id}`)).status, 404);
  t.is((await c.s.client.as(user).delete(`/scheduled_messages/${id}`)).status, 200);
  t.deepEqual(await scheduledList(c.s, user), []);
  const again = await c.s.client.as(user).delete(`/scheduled_messages/${id}`);
  t.is(again.status, 404);
  t.is(again.json.msg, 'Scheduled message does not exist');
});

test('scheduled_messages events (add, update, remove) keep the register section current', async (t) => {
  const { user, friend, channelId } = await sender();
  const opts = { eventTypes: ['scheduled_messages'] };
  let id = 0;
  const at = c.now() + 5000;
  const added = await verifyAction(t, c.s, user, async () => {
    id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content: 'hello', scheduled_delivery_timestamp: String(at) });
  }, opts);
  t.deepEqual(strip(added), [
    {
      type: 'scheduled_messages',
      op: 'add',
      scheduled_messages: [{ scheduled_message_id: id, type: 'stream', to: channelId, topic: 't', content: 'hello', rendered_content: '<p>hello</p>', scheduled_delivery_timestamp: at, failed: false }],
    },
  ]);
  const updated = await verifyAction(t, c.s, user, () => c.s.client.as(user).patch(`/scheduled_messages/${id}`, { form: { type: 'direct', to: JSON.stringify([friend.id]) } }), opts);
  t.deepEqual(strip(updated), [
    {
      type: 'scheduled_messages',
      op: 'update',
      scheduled_message: { scheduled_message_id: id, type: 'private', to: [friend.id], content: 'hello', rendered_content: '<p>hello</p>', scheduled_delivery_timestamp: at, failed: false },
    },
  ]);
  const removed = await verifyAction(t, c.s, user, () => c.s.client.as(user).delete(`/scheduled_messages/${id}`), opts);
  t.deepEqual(strip(removed), [{ type: 'scheduled_messages', op: 'remove', scheduled_message_id: id }]);
});
