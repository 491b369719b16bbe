// Reminders over HTTP with a controlled delivery clock: created about a message the user can see, listed,
// cancelled, and delivered by the notification bot as a direct message in the reference's format; reminders
// events keep the register's reminders consistent; scheduled messages and reminders stay apart.
import test from 'ava';
import { addUser } from '../helpers/users.js';
import { expectError } from '../helpers/errors.js';
import { verifyAction } from '../helpers/verify-action.js';
import { dm, makeChannel, post, uniqueName } from '../messages/helpers.js';
import { scheduledList, startClockedServer, type ClockedServer } from './helpers.js';

let c: ClockedServer;
test.before(async () => {
  c = await startClockedServer();
});
test.after.always(() => c?.s.close());

const remind = (as: any, form: Record<string, string>) => c.s.client.as(as).post('/reminders', { form });
const reminders = async (as: any) => (await c.s.client.as(as).get('/reminders')).json.reminders as any[];

test.serial('a reminder about a channel message: listed, then delivered by the notification bot at its time', async (t) => {
  const user = await addUser(c.s, { fullName: 'Remi User' });
  const author = await addUser(c.s, { fullName: 'Ann Author' });
  const name = uniqueName('remind');
  const channelId = await makeChannel(c.s, name, [user.id, author.id]);
  const messageId = await post(c.s, author, name, 'plans', 'Ship it on Friday');
  const at = c.now() + 3600;
  let reminderId = 0;
  const added = await verifyAction(t, c.s, user, async () => {
    const r = await remind(user, { message_id: String(messageId), scheduled_delivery_timestamp: String(at), note: 'check status\n' });
    t.is(r.status, 200, r.text);
    reminderId = r.json.reminder_id;
  }, { eventTypes: ['reminders', 'realm_user'] });
  const expectedContent =
    `You requested a reminder for #**${name}>plans@${messageId}**. Note:\n > check status\n\n` +
    `@_**Ann Author|${author.id}** [said](http://127.0.0.1${''}`;
  const [listed, ...rest] = await reminders(user);
  t.deepEqual(rest, []);
  t.like(listed, { reminder_id: reminderId, type: 'private', to: [user.id], scheduled_delivery_timestamp: at, failed: false, reminder_target_message_id: messageId });
  t.true(listed.content.startsWith(expectedContent.slice(0, expectedContent.indexOf('[said]'))), listed.content);
  t.regex(listed.content, new RegExp(`\\[said\\]\\([^)]*/#narrow/channel/${channelId}-[^)]*/topic/plans/near/${messageId}\\):\n\`\`\`quote\nShip it on Friday\n\`\`\`$`));
  t.true(listed.rendered_content.includes('<blockquote>'));
  t.deepEqual(added.find((e) => e.type === 'reminders')!.reminders, [listed]);
  // Reminders are not scheduled messages.
  t.deepEqual(await scheduledList(c.s, user), []);

  const delivered = await verifyAction(t, c.s, user, () => c.advance(3600), { eventTypes: ['reminders', 'message'] });
  t.deepEqual(await reminders(user), []);
  t.deepEqual(delivered.find((e) => e.type === 'reminders'), { type: 'reminders', op: 'remove', reminder_id: reminderId, id: delivered.find((e) => e.type === 'reminders')!.id });
  const message = delivered.find((e) => e.type === 'message')!;
  t.is(message.message.type, 'private');
  t.is(message.message.sender_full_name, 'Notification Bot');
  t.deepEqual(message.message.display_recipient.map((u: any) => u.id).sort(), [message.message.sender_id, user.id].sort());
  t.is(message.message.content.startsWith('You requested a reminder for'), true);
  t.false(message.flags.includes('read'));
});

test.serial('a reminder about a direct message; cancelled reminders are never delivered', async (t) => {
  const user = await addUser(c.s);
  const friend = await addUser(c.s);
  const messageId = await dm(c.s, friend, [user.id], 'call me');
  const r = await remind(user, { message_id: String(messageId), scheduled_delivery_timestamp: String(c.now() + 60) });
  t.is(r.status, 200, r.text);
  const [listed] = await reminders(user);
  t.true(listed.content.startsWith('You requested a reminder for the following direct message.\n\n'));
  t.true(listed.content.includes(`/#narrow/dm/${[user.id, friend.id].sort((a, b) => a - b).join(',')}-dm/near/${messageId}`));
  const removed = await verifyAction(t, c.s, user, () => c.s.client.as(user).delete(`/reminders/${r.json.reminder_id}`), { eventTypes: ['reminders'] });
  t.like(removed[0], { type: 'reminders', op: 'remove', reminder_id: r.json.reminder_id });
  expectError(t, await c.s.client.as(user).delete(`/reminders/${r.json.reminder_id}`), 'Reminder does not exist', 'BAD_REQUEST', 404);
  await c.advance(60);
  const sent = await c.s.server.services.db.any("SELECT id FROM messages WHERE content LIKE 'You requested a reminder%' AND $1 = ANY(direct_recipients)", [user.id]);
  t.deepEqual(sent, []);
});

test.serial('reminder errors: past times, messages the user cannot see, long notes, someone else\'s reminder', async (t) => {
  const user = await addUser(c.s);
  const other = await addUser(c.s);
  const private_ = await dm(c.s, other, [await addUser(c.s).then((u) => u.id)], 'secret');
  const visible = await dm(c.s, other, [user.id], 'hello');
  const err = (r: any, msg: string, status = 400) => expectError(t, r, msg, 'BAD_REQUEST', status);
  err(await remind(user, { message_id: String(visible), scheduled_delivery_timestamp: String(c.now()) }), 'Scheduled delivery time must be in the future.');
  err(await remind(user, { message_id: String(private_), scheduled_delivery_timestamp: String(c.now() + 60) }), 'Invalid message(s)');
  err(
    await remind(user, { message_id: String(visible), scheduled_delivery_timestamp: String(c.now() + 60), note: 'x'.repeat(1001) }),
    'Maximum reminder note length: 1000 characters',
  );
  const mine = await remind(user, { message_id: String(visible), scheduled_delivery_timestamp: String(c.now() + 60) });
  err(await c.s.client.as(other).delete(`/reminders/${mine.json.reminder_id}`), 'Reminder does not exist', 404);
  // A reminder is not a scheduled message either way.
  t.is((await c.s.client.as(user).delete(`/scheduled_messages/${mine.json.reminder_id}`)).status, 404);
  t.is((await c.s.client.as(user).delete(`/reminders/${mine.json.reminder_id}`)).status, 200);
});
