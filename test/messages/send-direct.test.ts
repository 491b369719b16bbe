// Sending direct messages over HTTP: addressing forms, flags, the message event, local echo and every refusal.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { dm, events, getMessages, makeCast, realmOf, register, send, setRealm, systemGroupId } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

test('a direct message: the response, the stored message and each participant’s flags', async (t) => {
  const { member, other } = await makeCast(s);
  const r = await send(s, member, { type: 'direct', to: JSON.stringify([other.id]), content: 'hello **there**' });
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.json).sort(), ['id', 'msg', 'result']);
  t.is(r.json.result, 'success');
  const id = r.json.id as number;
  t.true(Number.isInteger(id));

  const mine = await getMessages(s, member, { anchor: 'newest', num_before: 1, num_after: 0 });
  t.is(mine.status, 200);
  const m = mine.json.messages[0];
  t.is(m.id, id);
  t.is(m.sender_id, member.id);
  t.is(m.sender_full_name, member.fullName);
  t.is(m.sender_email, member.email);
  t.is(m.content, '<p>hello <strong>there</strong></p>');
  t.is(m.content_type, 'text/html');
  t.is(m.type, 'private');
  t.is(m.subject, '');
  t.deepEqual(m.topic_links, []);
  t.deepEqual(m.reactions, []);
  t.deepEqual(m.submessages, []);
  t.false(m.is_me_message);
  t.is(m.client, 'API');
  t.is(m.avatar_url, null, 'client_gravatar defaults to true');
  t.true(Number.isInteger(m.recipient_id));
  t.true(Math.abs(m.timestamp - Date.now() / 1000) < 600);
  t.deepEqual(
    m.display_recipient,
    [member, other]
      .sort((a, b) => a.id - b.id)
      .map((u) => ({ id: u.id, email: u.email, full_name: u.fullName, is_mirror_dummy: false })),
  );
  t.deepEqual(m.flags, [], 'an API client’s own message is unread for its sender');
  t.false('stream_id' in m);
  t.false('edit_history' in m);

  const theirs = await getMessages(s, other, { anchor: 'newest', num_before: 1, num_after: 0 });
  t.is(theirs.json.messages[0].id, id);
  t.deepEqual(theirs.json.messages[0].flags, []);
  t.is(theirs.json.messages[0].recipient_id, m.recipient_id, 'one recipient_id per conversation');
});

test('to accepts a JSON list of IDs or emails, a comma list, a plain ID; deprecated type private', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const forms = [
    { type: 'direct', to: JSON.stringify([other.id, admin.id]) },
    { type: 'private', to: JSON.stringify([other.email, admin.email]) },
    { type: 'direct', to: `${other.email},${admin.email}` },
    { type: 'direct', to: `${other.id},${admin.id}` },
  ];
  const ids: number[] = [];
  for (const f of forms) {
    const r = await send(s, member, { ...f, content: 'group hello' });
    t.is(r.status, 200, JSON.stringify(f) + r.text);
    ids.push(r.json.id);
  }
  const single = await send(s, member, { type: 'direct', to: String(other.id), content: 'one' });
  t.is(single.status, 200);
  const got = await getMessages(s, admin, { anchor: 'newest', num_before: 10, num_after: 0 });
  t.deepEqual(got.json.messages.map((m: { id: number }) => m.id), ids);
  t.is(new Set(got.json.messages.map((m: { recipient_id: number }) => m.recipient_id)).size, 1, 'one conversation');
  const participants = got.json.messages[0].display_recipient.map((u: { id: number }) => u.id);
  t.deepEqual(participants, [member.id, other.id, admin.id].sort((a, b) => a - b));
});

test('read_by_sender and the client-name heuristic decide the sender’s read flag', async (t) => {
  const { member, other } = await makeCast(s);
  const explicit = await send(s, member, { type: 'direct', to: `[${other.id}]`, content: 'a', read_by_sender: 'true' });
  const web = await s.client.as(member).post('/messages', {
    form: { type: 'direct', to: `[${other.id}]`, content: 'b' },
    headers: { 'user-agent': 'ZulipMobile/27.1 (Android 14)' },
  });
  const refused = await s.client.as(member).post('/messages', {
    form: { type: 'direct', to: `[${other.id}]`, content: 'c', read_by_sender: 'false' },
    headers: { 'user-agent': 'ZulipMobile/27.1 (Android 14)' },
  });
  const got = await getMessages(s, member, { anchor: 'newest', num_before: 3, num_after: 0 });
  const flags = Object.fromEntries(got.json.messages.map((m: { id: number; flags: string[] }) => [m.id, m.flags]));
  t.deepEqual(flags[explicit.json.id], ['read']);
  t.deepEqual(flags[web.json.id], ['read']);
  t.deepEqual(flags[refused.json.id], []);
  const other_ = await getMessages(s, other, { anchor: 'newest', num_before: 3, num_after: 0 });
  t.true(other_.json.messages.every((m: { flags: string[] }) => m.flags.length === 0), 'recipients always start unread');
  t.is(got.json.messages.find((m: { id: number }) => m.id === web.json.id).client, 'ZulipMobile');
});

test('mentions set mentioned; silent mentions do not; wildcards set both wildcard flags names', async (t) => {
  const { member, other, admin } = await makeCast(s);
  await dm(s, member, [other.id, admin.id], `hi @**${other.fullName}** and @_**${admin.fullName}**`);
  await dm(s, member, [other.id, admin.id], 'hey @**all**');
  const o = (await getMessages(s, other, { anchor: 'newest', num_before: 2, num_after: 0 })).json.messages;
  const a = (await getMessages(s, admin, { anchor: 'newest', num_before: 2, num_after: 0 })).json.messages;
  t.deepEqual(o[0].flags, ['mentioned']);
  t.deepEqual(a[0].flags, [], 'a silent mention sets no flag');
  t.deepEqual(o[1].flags, ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  t.deepEqual(a[1].flags, ['stream_wildcard_mentioned', 'wildcard_mentioned']);
  t.regex(o[0].content, /class="user-mention" data-user-id="\d+">@/);
});

test('a message to oneself has only the sender as participant', async (t) => {
  const { member } = await makeCast(s);
  const id = await dm(s, member, [member.id], 'note to self');
  const m = (await getMessages(s, member, { anchor: id, num_before: 0, num_after: 0 })).json.messages[0];
  t.deepEqual(m.display_recipient.map((u: { id: number }) => u.id), [member.id]);
});

test('content: trailing whitespace trimmed, over-long content truncated, empty and NUL refused', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], '\n\nbody  \n ');
  const m = (await getMessages(s, member, { anchor: id, num_before: 0, num_after: 0, apply_markdown: false })).json.messages[0];
  t.is(m.content, 'body');
  t.is(m.content_type, 'text/x-markdown');
  const long = await dm(s, member, [other.id], 'x'.repeat(10_050));
  const lm = (await getMessages(s, member, { anchor: long, num_before: 0, num_after: 0, apply_markdown: false })).json.messages[0];
  t.is([...lm.content].length, 10_000);
  t.true(lm.content.endsWith('\n[message truncated]'));
  const empty = await send(s, member, { type: 'direct', to: `[${other.id}]`, content: '   ' });
  t.deepEqual(empty.json, { result: 'error', msg: 'Message must not be empty', code: 'BAD_REQUEST' });
  t.is(empty.status, 400);
  const nul = await send(s, member, { type: 'direct', to: `[${other.id}]`, content: 'a\u0000b' });
  t.is(nul.json.msg, 'Message must not contain null bytes');
});

test('recipient errors: unknown email, unknown ID, mixed list, no recipients, deactivated user, bad type', async (t) => {
  const { member, other } = await makeCast(s);
  const badEmail = await send(s, member, { type: 'direct', to: '["nobody@nowhere.example"]', content: 'x' });
  t.is(badEmail.status, 400);
  t.deepEqual(badEmail.json, { result: 'error', msg: "Invalid email 'nobody@nowhere.example'", code: 'BAD_REQUEST' });
  const badId = await send(s, member, { type: 'direct', to: '[987654]', content: 'x' });
  t.deepEqual(badId.json, { result: 'error', msg: 'Invalid user ID 987654', code: 'BAD_REQUEST' });
  const mixed = await send(s, member, { type: 'direct', to: JSON.stringify([other.id, other.email]), content: 'x' });
  t.is(mixed.json.msg, 'Recipient lists may contain emails or user IDs, but not both.');
  const none = await send(s, member, { type: 'direct', to: '[]', content: 'x' });
  t.is(none.json.msg, 'Message must have recipients');
  const missing = await send(s, member, { type: 'direct', content: 'x' });
  t.deepEqual(missing.json, { result: 'error', msg: "Missing 'to' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'to' });
  const badType = await send(s, member, { type: 'telegram', to: `[${other.id}]`, content: 'x' });
  t.is(badType.status, 400);
  t.is(badType.json.code, 'BAD_REQUEST');

  const gone = await addUser(s, { fullName: 'Gone Soon' });
  const realm = await realmOf(s);
  await s.server.services.db.none('UPDATE users SET is_active = false WHERE id = $1', [gone.id]);
  await realm.dispatch('realm.reload');
  const deactivated = await send(s, member, { type: 'direct', to: `[${gone.id}]`, content: 'x' });
  t.deepEqual(deactivated.json, { result: 'error', msg: `'${gone.email}' is no longer using Palaver.`, code: 'BAD_REQUEST' });
});

test('the message event: each recipient’s flags, Markdown or HTML per queue, local echo on the sender’s queue', async (t) => {
  const { member, other } = await makeCast(s);
  const senderQueue = await register(s, member, { event_types: '["message"]', apply_markdown: 'true' });
  const otherQueue = await register(s, other, { event_types: '["message"]', client_gravatar: 'false' });
  const r = await send(s, member, {
    type: 'direct',
    to: `[${other.id}]`,
    content: `hi @**${other.fullName}**`,
    queue_id: senderQueue.queue_id,
    local_id: '42.01',
    read_by_sender: 'true',
  });
  t.is(r.status, 200);
  const [mine] = await events(s, member, senderQueue.queue_id);
  const [theirs] = await events(s, other, otherQueue.queue_id);
  t.is(mine.type, 'message');
  t.deepEqual(mine.flags, ['read']);
  t.is(mine.local_message_id, '42.01');
  t.is(mine.message.id, r.json.id);
  t.is(mine.message.content_type, 'text/html');
  t.regex(mine.message.content, /^<p>hi <span class="user-mention"/);
  t.is(mine.message.avatar_url, null);
  t.false('rendered_content' in mine.message);
  t.false('stream_is_public' in mine.message);
  t.false('flags' in mine.message);
  t.deepEqual(theirs.flags, ['mentioned']);
  t.false('local_message_id' in theirs);
  t.is(theirs.message.content, `hi @**${other.fullName}**`);
  t.is(theirs.message.content_type, 'text/x-markdown');
  t.regex(theirs.message.avatar_url, /^https:\/\/secure\.gravatar\.com\/avatar\//);
  t.is(theirs.message.type, 'private');
  t.deepEqual(theirs.message.display_recipient.map((u: { id: number }) => u.id), [member.id, other.id].sort((a, b) => a - b));
});

test.serial('direct_message_permission_group and direct_message_initiator_group are enforced', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const admins = await systemGroupId(s, 'role:administrators');
  await dm(s, other, [member.id], 'an existing conversation');
  await setRealm(s, {}, { direct_message_initiator_group: admins });
  try {
    const initiate = await send(s, member, { type: 'direct', to: `[${admin.id}, ${other.id}]`, content: 'x' });
    t.is(initiate.json.msg, 'You do not have permission to initiate direct message conversations.');
    const reply = await send(s, member, { type: 'direct', to: `[${other.id}]`, content: 'a reply is fine' });
    t.is(reply.status, 200);
    const self = await send(s, member, { type: 'direct', to: `[${member.id}]`, content: 'a note to self is fine' });
    t.is(self.status, 200);
    const byAdmin = await send(s, admin, { type: 'direct', to: `[${member.id}]`, content: 'admins may' });
    t.is(byAdmin.status, 200);
  } finally {
    await setRealm(s, {}, { direct_message_initiator_group: await systemGroupId(s, 'role:everyone') });
  }
  await setRealm(s, {}, { direct_message_permission_group: admins });
  try {
    const refused = await send(s, member, { type: 'direct', to: `[${other.id}]`, content: 'x' });
    t.is(refused.json.msg, 'This conversation does not include any users who can authorize it.');
    const withAdmin = await send(s, member, { type: 'direct', to: `[${admin.id}]`, content: 'x' });
    t.is(withAdmin.status, 200);
  } finally {
    await setRealm(s, {}, { direct_message_permission_group: await systemGroupId(s, 'role:everyone') });
  }
});

test('concurrent sends all commit (group commit), with distinct increasing IDs, and arrive in order', async (t) => {
  const { member, other } = await makeCast(s);
  const q = await register(s, other, { event_types: '["message"]' });
  const results = await Promise.all(
    Array.from({ length: 30 }, (_, i) => send(s, member, { type: 'direct', to: `[${other.id}]`, content: `burst ${i}` })),
  );
  t.true(results.every((r) => r.status === 200));
  const ids = results.map((r) => r.json.id as number);
  t.is(new Set(ids).size, 30);
  const got = await getMessages(s, other, { anchor: 'newest', num_before: 30, num_after: 0, narrow: JSON.stringify([['dm', member.email]]) });
  t.deepEqual(got.json.messages.map((m: { id: number }) => m.id), [...ids].sort((a, b) => a - b));
  const evs = await events(s, other, q.queue_id);
  t.deepEqual(evs.map((e) => e.message.id), [...ids].sort((a, b) => a - b));
});

test('guests send and read direct messages like anyone', async (t) => {
  const { guest, member } = await makeCast(s);
  const id = await dm(s, guest, [member.id], 'hello from a guest');
  const r = await s.client.as(member).get(`/messages/${id}`);
  t.is(r.json.message.sender_id, guest.id);
  t.deepEqual((await getMessages(s, guest, { anchor: 'newest', num_before: 1, num_after: 0 })).json.messages.map((m: { id: number }) => m.id), [id]);
});

test('a /me message: is_me_message in the message event (the stored message made at the commit) and in the history', async (t) => {
  const { member, other } = await makeCast(s);
  const q = await register(s, other, { event_types: '["message"]', apply_markdown: 'true' });
  const r = await send(s, member, { type: 'direct', to: `[${other.id}]`, content: '/me waves' });
  t.is(r.status, 200);
  const [e] = await events(s, other, q.queue_id);
  t.is(e.message.id, r.json.id);
  t.true(e.message.is_me_message);
  t.is(e.message.content, '<p>/me waves</p>');
  const got = await getMessages(s, other, { anchor: 'newest', num_before: 1, num_after: 0 });
  t.is(got.json.messages[0].id, r.json.id);
  t.true(got.json.messages[0].is_me_message);
});
