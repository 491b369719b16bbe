// Scheduled delivery with a controlled clock: on time through the send command (own message ID, flags,
// events), edited before delivery, cancelled, failed (channel gone, sender deactivated, permission lost),
// and a failed message rescheduled by an edit.
import test from 'ava';
import { addUser, type TestUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';
import { events, makeChannel, register, uniqueName, unsubscribe } from '../messages/helpers.js';
import { scheduledList, scheduleOk, sentWith, startClockedServer, storedRow, type ClockedServer } from './helpers.js';

let c: ClockedServer;
test.before(async () => {
  c = await startClockedServer();
});
test.after.always(() => c?.s.close());

// Every test moves the one clock: they run one at a time.
async function cast(inviteOnly = false): Promise<{ user: TestUser; friend: TestUser; channelId: number; channel: string }> {
  const user = await addUser(c.s);
  const friend = await addUser(c.s);
  const channel = uniqueName('deliver');
  const channelId = await makeChannel(c.s, channel, [user.id, friend.id], { inviteOnly });
  return { user, friend, channelId, channel };
}

test.serial('a channel message is sent at its time with its own message ID, and leaves the scheduled list', async (t) => {
  const { user, friend, channelId } = await cast();
  const content = `on time ${uniqueName()}`;
  const id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 'later', content, scheduled_delivery_timestamp: String(c.now() + 60) });
  const friendQueue = (await register(c.s, friend, { event_types: JSON.stringify(['message']) })).queue_id;
  await c.advance(59);
  t.deepEqual(await sentWith(c.s, user.id, content), [], 'not a second early');
  t.is((await scheduledList(c.s, user)).length, 1);
  const published = await verifyAction(t, c.s, user, () => c.advance(1), { eventTypes: ['scheduled_messages', 'message'] });
  const sent = await sentWith(c.s, user.id, content);
  t.is(sent.length, 1);
  t.deepEqual(sent[0], { id: sent[0]!.id, stream_id: channelId, topic: 'later' });
  const row = await storedRow(c.s, id);
  t.like(row, { delivered: true, failed: false });
  t.is(Number(row.delivered_message_id), sent[0]!.id);
  t.deepEqual(await scheduledList(c.s, user), []);
  t.deepEqual(
    published.map((e) => [e.type, e.op ?? e.message?.id]),
    [
      ['message', sent[0]!.id],
      ['scheduled_messages', 'remove'],
    ],
  );
  t.is(published[1]!.scheduled_message_id, id);
  // The recipients get the message event the send command produces.
  const got = await events(c.s, friend, friendQueue);
  t.is(got.length, 1);
  t.like(got[0], { type: 'message', message: { id: sent[0]!.id, sender_id: user.id, content, subject: 'later' } });
});

test.serial('a direct message is delivered with read_by_sender as scheduled', async (t) => {
  const { user, friend } = await cast();
  const read = `dm read ${uniqueName()}`;
  const unread = `dm unread ${uniqueName()}`;
  await scheduleOk(c.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content: read, read_by_sender: 'true', scheduled_delivery_timestamp: String(c.now() + 10) });
  await scheduleOk(c.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content: unread, read_by_sender: 'false', scheduled_delivery_timestamp: String(c.now() + 10) });
  await c.advance(10);
  const flags = async (content: string, who: number) => {
    const [m] = await sentWith(c.s, user.id, content);
    return (await c.s.server.services.db.one('SELECT flags FROM user_messages WHERE message_id = $1 AND user_id = $2', [m!.id, who])).flags & 1;
  };
  t.is(await flags(read, user.id), 1);
  t.is(await flags(unread, user.id), 0);
  t.is(await flags(read, friend.id), 0);
});

test.serial('an edit before delivery changes what is sent and when', async (t) => {
  const { user, channelId } = await cast();
  const before = `before edit ${uniqueName()}`;
  const after = `after edit ${uniqueName()}`;
  const id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content: before, scheduled_delivery_timestamp: String(c.now() + 30) });
  const r = await c.s.client.as(user).patch(`/scheduled_messages/${id}`, { form: { content: after, topic: 'edited', scheduled_delivery_timestamp: String(c.now() + 90) } });
  t.is(r.status, 200, r.text);
  await c.advance(30);
  t.deepEqual(await sentWith(c.s, user.id, before), []);
  t.deepEqual(await sentWith(c.s, user.id, after), [], 'the new time is later');
  await c.advance(60);
  const sent = await sentWith(c.s, user.id, after);
  t.is(sent.length, 1);
  t.is(sent[0]!.topic, 'edited');
  t.deepEqual(await sentWith(c.s, user.id, before), []);
});

test.serial('an edit can also bring the time forward', async (t) => {
  const { user, channelId } = await cast();
  const content = `sooner ${uniqueName()}`;
  const id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content, scheduled_delivery_timestamp: String(c.now() + 3600) });
  await c.s.client.as(user).patch(`/scheduled_messages/${id}`, { form: { scheduled_delivery_timestamp: String(c.now() + 5) } });
  await c.advance(5);
  t.is((await sentWith(c.s, user.id, content)).length, 1);
});

test.serial('a cancelled message is never sent', async (t) => {
  const { user, channelId } = await cast();
  const content = `cancelled ${uniqueName()}`;
  const id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content, scheduled_delivery_timestamp: String(c.now() + 20) });
  t.is((await c.s.client.as(user).delete(`/scheduled_messages/${id}`)).status, 200);
  await c.advance(3600);
  t.deepEqual(await sentWith(c.s, user.id, content), []);
  t.false(c.s.server.services.scheduled.pending().has(id));
});

test.serial('a message to a channel archived meanwhile fails with its reason and an update event, and is not retried', async (t) => {
  const { user, channelId } = await cast();
  const content = `archived ${uniqueName()}`;
  const id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content, scheduled_delivery_timestamp: String(c.now() + 20) });
  t.is((await c.s.client.as(c.s.owner).delete(`/streams/${channelId}`)).status, 200);
  const published = await verifyAction(t, c.s, user, () => c.advance(20), { eventTypes: ['scheduled_messages'] });
  t.deepEqual(published.map(({ id: _id, ...e }) => e), [
    {
      type: 'scheduled_messages',
      op: 'update',
      scheduled_message: {
        scheduled_message_id: id,
        type: 'stream',
        to: channelId,
        topic: 't',
        content,
        rendered_content: `<p>${content}</p>`,
        scheduled_delivery_timestamp: c.now(),
        failed: true,
      },
    },
  ]);
  const row = await storedRow(c.s, id);
  t.like(row, { delivered: false, failed: true });
  t.regex(row.failure_message, /Not authorized to send to channel/);
  t.like((await scheduledList(c.s, user))[0], { scheduled_message_id: id, failed: true }, 'still listed, marked failed');
  await c.advance(3600);
  t.deepEqual(await sentWith(c.s, user.id, content), []);
  t.false(c.s.server.services.scheduled.pending().has(id));
});

test.serial('a sender deactivated meanwhile: the message fails', async (t) => {
  const { user, friend } = await cast();
  const content = `deactivated ${uniqueName()}`;
  const id = await scheduleOk(c.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content, scheduled_delivery_timestamp: String(c.now() + 20) });
  t.is((await c.s.client.as(c.s.owner).delete(`/users/${user.id}`)).status, 200);
  await c.advance(20);
  t.like(await storedRow(c.s, id), { delivered: false, failed: true, failure_message: 'Account is deactivated' });
  t.deepEqual(await sentWith(c.s, user.id, content), []);
});

test.serial('a permission lost meanwhile (removed from a private channel): the message fails; an edit with a new time revives it', async (t) => {
  const { user, channelId, channel } = await cast(true);
  const content = `lost permission ${uniqueName()}`;
  const id = await scheduleOk(c.s, user, { type: 'stream', to: String(channelId), topic: 't', content, scheduled_delivery_timestamp: String(c.now() + 20) });
  await unsubscribe(c.s, channel, [user.id]);
  await c.advance(20);
  t.like(await storedRow(c.s, id), { delivered: false, failed: true });
  // An edit of a failed message must give a new time; the message is checked again as it will be sent.
  const noTime = await c.s.client.as(user).patch(`/scheduled_messages/${id}`, { form: { content: 'try again' } });
  t.is(noTime.json.msg, 'Scheduled delivery time must be in the future.');
  const stillDenied = await c.s.client.as(user).patch(`/scheduled_messages/${id}`, { form: { scheduled_delivery_timestamp: String(c.now() + 30) } });
  t.is(stillDenied.status, 400);
  const friend2 = await addUser(c.s);
  const redirected = await c.s.client.as(user).patch(`/scheduled_messages/${id}`, {
    form: { type: 'direct', to: JSON.stringify([friend2.id]), scheduled_delivery_timestamp: String(c.now() + 30) },
  });
  t.is(redirected.status, 200, redirected.text);
  t.like((await scheduledList(c.s, user))[0], { scheduled_message_id: id, failed: false, type: 'private' });
  await c.advance(30);
  t.is((await sentWith(c.s, user.id, content)).length, 1);
  t.like(await storedRow(c.s, id), { delivered: true, failed: false });
});

test.serial('PATCH and DELETE of a delivered message: already sent / does not exist', async (t) => {
  const { user, friend } = await cast();
  const id = await scheduleOk(c.s, user, { type: 'direct', to: JSON.stringify([friend.id]), content: `done ${uniqueName()}`, scheduled_delivery_timestamp: String(c.now() + 5) });
  await c.advance(5);
  const edit = await c.s.client.as(user).patch(`/scheduled_messages/${id}`, { form: { content: 'too late' } });
  t.deepEqual(edit.json, { result: 'error', msg: 'Scheduled message was already sent', code: 'BAD_REQUEST' });
  t.is((await c.s.client.as(user).delete(`/scheduled_messages/${id}`)).status, 404);
});
