// Reporting a message (POST /messages/{id}/report): the notification bot posts the report to the moderation
// request channel in the reference's format; refusals in the reference's order.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { expectError } from '../helpers/errors.js';
import { addUser } from '../helpers/users.js';
import { dm, events, makeChannel, post, register, setRealm, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const report = (as: any, id: number, form: Record<string, string>) => s.client.as(as).post(`/messages/${id}/report`, { form });

test.serial('a report goes to the moderation request channel, from the notification bot, quoting the message', async (t) => {
  const moderator = await addUser(s, { role: 300, fullName: 'Mod Erator' });
  const reporter = await addUser(s, { fullName: 'Rep Orter' });
  const offender = await addUser(s, { fullName: 'Off Ender' });
  const err = (r: any, msg: string) => expectError(t, r, msg);
  const name = uniqueName('general');
  await makeChannel(s, name, [reporter.id, offender.id]);
  // Fences that do not start a line do not lengthen the quoting fence (the reference's get_unused_fence).
  const bad = await post(s, offender, name, 'chat', 'buy ```cheap``` stuff');
  err(await report(reporter, bad, { report_type: 'spam' }), 'Moderation request channel must be specified to enable message reporting.');

  const modChannel = await makeChannel(s, uniqueName('moderation'), [moderator.id], { inviteOnly: true });
  await setRealm(s, { moderation_request_channel_id: modChannel });
  err(await report(reporter, bad, { report_type: 'other' }), 'An explanation is required.');
  err(await report(reporter, 999_999_999, { report_type: 'spam' }), 'Invalid message(s)');
  t.is((await report(reporter, bad, { report_type: 'nonsense' })).status, 400);

  const queue = (await register(s, moderator, { event_types: JSON.stringify(['message']) })).queue_id;
  const r = await report(reporter, bad, { report_type: 'spam', description: 'Selling things' });
  t.is(r.status, 200, r.text);
  const [e] = await events(s, moderator, queue);
  t.is(e.message.stream_id, modChannel);
  t.is(e.message.subject, "Off Ender's moderation requests");
  t.is(e.message.sender_full_name, 'Notification Bot');
  t.is(
    e.message.content,
    `@_**Rep Orter|${reporter.id}** reported #**${name}>chat@${bad}** sent by @_**Off Ender|${offender.id}**.\n` +
      '- Reason: **Spam**\n- Notes:\n```quote\nSelling things\n```\n' +
      `\`\`\` spoiler **Message sent by @_**Off Ender|${offender.id}****\nbuy \`\`\`cheap\`\`\` stuff\n\`\`\`\n`,
  );

  // A direct message the reporter received can be reported; one they cannot see cannot.
  const direct = await dm(s, offender, [reporter.id], 'rude words');
  t.is((await report(reporter, direct, { report_type: 'harassment' })).status, 200);
  const [e2] = await events(s, moderator, queue).then((x) => x.slice(1));
  t.true(e2.message.content.startsWith(`@_**Rep Orter|${reporter.id}** reported a DM sent by @_**Off Ender|${offender.id}**.\n- Reason: **Harassment**`));
  const outsider = await addUser(s);
  err(await report(outsider, direct, { report_type: 'spam' }), 'Invalid message(s)');
  await setRealm(s, { moderation_request_channel_id: -1 });
});
