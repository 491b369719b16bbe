// Reading messages over HTTP: GET /messages anchors and ranges, narrows in both forms, search highlighting,
// channel history access by role, GET /messages/{id}, POST /messages/render and matches_narrow.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dm, getMessages, makeCast, makeChannel, post, subscribe, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const ids = (r: { json: { messages: { id: number }[] } }) => r.json.messages.map((m) => m.id);

test('anchors and ranges: newest, oldest, an ID, include_anchor, and the found_* answers', async (t) => {
  const { member, other } = await makeCast(s);
  const sent: number[] = [];
  for (let i = 0; i < 5; i++) sent.push(await dm(s, member, [other.id], `message ${i}`));
  const narrow = JSON.stringify([['dm', String(other.id)]]);

  const newest = await getMessages(s, member, { anchor: 'newest', num_before: 3, num_after: 0, narrow });
  t.deepEqual(ids(newest), sent.slice(2));
  t.is(newest.json.anchor, 10_000_000_000_000_000);
  t.like(newest.json, { found_newest: true, found_oldest: false, found_anchor: false, history_limited: false });

  const oldest = await getMessages(s, member, { anchor: 'oldest', num_before: 0, num_after: 2, narrow });
  t.deepEqual(ids(oldest), sent.slice(0, 2));
  t.like(oldest.json, { anchor: 0, found_oldest: true, found_newest: false, found_anchor: false });

  const around = await getMessages(s, member, { anchor: String(sent[2]), num_before: 1, num_after: 1, narrow });
  t.deepEqual(ids(around), sent.slice(1, 4));
  t.like(around.json, { anchor: sent[2], found_anchor: true, found_oldest: false, found_newest: false });

  const all = await getMessages(s, member, { anchor: sent[2]!, num_before: 10, num_after: 10, narrow });
  t.deepEqual(ids(all), sent);
  t.like(all.json, { found_oldest: true, found_newest: true, found_anchor: true });

  const excluded = await getMessages(s, member, { anchor: sent[2]!, num_before: 0, num_after: 2, include_anchor: false, narrow });
  t.deepEqual(ids(excluded), sent.slice(3, 5));
  t.false(excluded.json.found_anchor);

  const beforeOnly = await getMessages(s, member, { anchor: sent[2]!, num_before: 2, num_after: 0, include_anchor: false, narrow });
  t.deepEqual(ids(beforeOnly), sent.slice(0, 2));
});

test('first_unread anchors at the oldest unread message, else at the newest', async (t) => {
  const { member, other } = await makeCast(s);
  const a = await dm(s, other, [member.id], 'a');
  const b = await dm(s, other, [member.id], 'b');
  const c = await dm(s, other, [member.id], 'c');
  const narrow = JSON.stringify([{ operator: 'dm', operand: [other.id] }]);
  await s.client.as(member).post('/messages/flags', { form: { messages: `[${a}]`, op: 'add', flag: 'read' } });
  const r = await getMessages(s, member, { anchor: 'first_unread', num_before: 1, num_after: 1, narrow });
  t.is(r.json.anchor, b);
  t.deepEqual(ids(r), [a, b, c]);
  t.true(r.json.found_anchor);
  await s.client.as(member).post('/mark_all_as_read');
  const none = await getMessages(s, member, { anchor: 'first_unread', num_before: 2, num_after: 2, narrow });
  t.is(none.json.anchor, 10_000_000_000_000_000);
  t.deepEqual(ids(none), [b, c]);
  t.true(none.json.found_newest);
});

test('GET /messages refuses bad ranges and bad narrows with Zulip’s texts', async (t) => {
  const { member } = await makeCast(s);
  const get = (q: Record<string, unknown>) => getMessages(s, member, q);
  t.deepEqual((await get({ anchor: 'newest', num_before: 4000, num_after: 1001 })).json, {
    result: 'error',
    msg: 'Too many messages requested (maximum 5000).',
    code: 'BAD_REQUEST',
  });
  t.is((await get({ anchor: 'sideways', num_before: 1, num_after: 1 })).json.msg, 'Invalid anchor');
  t.is((await get({ num_before: 1, num_after: 1 })).json.msg, "Missing 'anchor' argument.");
  const missing = await get({ anchor: 'newest', num_after: 1 });
  t.is(missing.json.code, 'REQUEST_VARIABLE_MISSING');
  t.is(missing.json.var_name, 'num_before');
  t.is((await get({ anchor: 'newest', num_before: 1, num_after: 1, narrow: '[["frobnicate","x"]]' })).json.msg, 'Invalid narrow operator: unknown operator frobnicate');
  t.is((await get({ anchor: 'newest', num_before: 1, num_after: 0, narrow: '[["sender","nobody@nowhere.example"]]' })).json.msg, 'Invalid narrow operator: unknown user nobody@nowhere.example');
  t.is((await get({ anchor: 'newest', num_before: 1, num_after: 0, narrow: '[["channel","no such channel"]]' })).json.msg, 'Invalid narrow operator: unknown channel no such channel');
  const mixed = await get({ anchor: 5, num_before: 1, num_after: 1, include_anchor: false });
  t.is(mixed.json.msg, 'The anchor can only be excluded at an end of the range');
});

test('narrows: sender, dm, is:dm, search with highlights, has:link, both narrow forms agree', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  const x = await post(s, member, name, 'Cooking tips', 'I love baking bread at https://example.com/bread');
  const y = await post(s, other, name, 'cooking tips', 'Bread is great');
  const z = await dm(s, other, [member.id, admin.id], 'bread for the group');
  const w = await dm(s, other, [member.id], 'just us');
  const q = (narrow: unknown) => getMessages(s, member, { anchor: 'newest', num_before: 20, num_after: 0, narrow: JSON.stringify(narrow) });

  t.deepEqual(ids(await q([{ operator: 'sender', operand: other.id }])).filter((id) => [x, y, z, w].includes(id)), [y, z, w]);
  t.deepEqual(ids(await q([['dm', `${other.email},${admin.email}`]])), [z]);
  t.deepEqual(ids(await q([{ operator: 'dm', operand: [other.id] }])), [w]);
  t.deepEqual(ids(await q([['is', 'private']])).filter((id) => [x, y, z, w].includes(id)), [z, w]);
  t.deepEqual(ids(await q([['channel', name], ['topic', 'COOKING TIPS']])), [x, y]);
  t.deepEqual(ids(await q([{ operator: 'stream', operand: channelId }, { operator: 'has', operand: 'link' }])), [x]);
  t.deepEqual(ids(await q([{ operator: 'channel', operand: channelId }, { operator: 'has', operand: 'link', negated: true }])), [y]);

  const search = await q([['search', 'bread']]);
  t.deepEqual(ids(search), [x, y, z]);
  const first = search.json.messages[0];
  t.is(first.match_subject, 'Cooking tips');
  t.regex(first.match_content, /<span class="highlight">bread<\/span>/);
  const topicHit = await q([['channel', name], ['search', 'cook']]);
  t.deepEqual(ids(topicHit), [x, y]);
  t.is(topicHit.json.messages[1].match_subject, '<span class="highlight">cooking</span> tips');
  t.false('match_content' in (await q([['channel', name]])).json.messages[0]);
});

test('channel history: public to members, not to guests; private shared history after subscribing, protected not', async (t) => {
  const { member, other, guest, admin } = await makeCast(s);
  const open = uniqueName('open');
  const openId = await makeChannel(s, open, [member.id]);
  const early = await post(s, member, open, 't', 'before anyone else');
  const narrow = (id: number) => JSON.stringify([['channel', String(id)]]);
  const read = async (u: typeof member, id: number) => ids(await getMessages(s, u, { anchor: 'newest', num_before: 50, num_after: 0, narrow: narrow(id) }));
  t.true((await read(other, openId)).includes(early), 'a member reads a public channel’s history');
  t.false((await read(guest, openId)).includes(early), 'a guest does not');
  const single = await s.client.as(guest).get(`/messages/${early}`);
  t.deepEqual(single.json, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });

  const shared = uniqueName('shared');
  const sharedId = await makeChannel(s, shared, [member.id], { inviteOnly: true, history: true });
  const sharedEarly = await post(s, member, shared, 't', 'shared history');
  t.deepEqual(await read(other, sharedId), [], 'a non-subscriber reads nothing of a private channel');
  t.is((await s.client.as(admin).get(`/messages/${sharedEarly}`)).json.msg, 'Invalid message(s)');
  await subscribe(s, shared, [other.id], member);
  t.true((await read(other, sharedId)).includes(sharedEarly), 'a new subscriber reads the shared history');

  const protectedName = uniqueName('protected');
  const protectedId = await makeChannel(s, protectedName, [member.id], { inviteOnly: true, history: false });
  const before = await post(s, member, protectedName, 't', 'before you came');
  await subscribe(s, protectedName, [other.id], member);
  const after = await post(s, member, protectedName, 't', 'after you came');
  const seen = await read(other, protectedId);
  t.false(seen.includes(before));
  t.true(seen.includes(after));
});

test('GET /messages/{id}: the message with flags and raw_content; others’ direct messages are invalid', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const id = await dm(s, member, [other.id], 'hello *there*');
  const r = await s.client.as(other).get(`/messages/${id}`);
  t.is(r.status, 200);
  t.is(r.json.raw_content, 'hello *there*');
  t.is(r.json.message.id, id);
  t.is(r.json.message.content, '<p>hello <em>there</em></p>');
  t.deepEqual(r.json.message.flags, []);
  const md = await s.client.as(other).get(`/messages/${id}`, { query: { apply_markdown: 'false' } });
  t.is(md.json.message.content, 'hello *there*');
  t.deepEqual((await s.client.as(admin).get(`/messages/${id}`)).json, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
  t.is((await s.client.as(member).get('/messages/999999999')).json.msg, 'Invalid message(s)');
});

test('POST /messages/render renders without sending', async (t) => {
  const { member } = await makeCast(s);
  const r = await s.client.as(member).post('/messages/render', { form: { content: '**bold** :smile:' } });
  t.is(r.status, 200);
  t.is(r.json.rendered.slice(0, 27), '<p><strong>bold</strong> <s');
  t.regex(r.json.rendered, /<span aria-label="smile" class="emoji emoji-[0-9a-f]+" role="img" title="smile">:smile:<\/span>/);
  const missing = await s.client.as(member).post('/messages/render', { form: {} });
  t.is(missing.json.code, 'REQUEST_VARIABLE_MISSING');
});

test('POST /messages/render translates emoticons only for authors who turned translate_emoticons on', async (t) => {
  const { member } = await makeCast(s);
  const before = await s.client.as(member).post('/messages/render', { form: { content: 'ok :)' } });
  t.is(before.json.rendered, '<p>ok :)</p>');
  const set = await s.client.as(member).patch('/settings', { form: { translate_emoticons: 'true' } });
  t.is(set.status, 200);
  const after = await s.client.as(member).post('/messages/render', { form: { content: 'ok :)' } });
  t.is(after.json.rendered, '<p>ok <span aria-label="smile" class="emoji emoji-1f642" role="img" title="smile">:smile:</span></p>');
});

test('POST /messages/render (on the render pool): mentions of a deactivated user are silent, quoted ones too', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const gone = await s.client.as(admin).delete(`/users/${other.id}`);
  t.is(gone.status, 200, gone.text);
  const r = await s.client.as(member).post('/messages/render', { form: { content: `@**${other.fullName}**\n> @**${admin.fullName}**` } });
  t.is(
    r.json.rendered,
    `<p><span class="user-mention silent" data-user-id="${other.id}">${other.fullName}</span></p>\n` +
      `<blockquote>\n<p><span class="user-mention silent" data-user-id="${admin.id}">${admin.fullName}</span></p>\n</blockquote>`,
  );
});

test('matches_narrow: only matching messages of the viewer, with highlighted content and topic', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  const a = await post(s, member, name, 'Recipes', 'try the <b>soup</b>');
  const b = await post(s, member, name, 'Other things', 'nothing relevant');
  const c = await dm(s, admin, [other.id], 'soup for two');
  const r = await s.client.as(member).get('/messages/matches_narrow', {
    query: { msg_ids: JSON.stringify([a, b, c]), narrow: JSON.stringify([{ operator: 'search', operand: 'soup' }]) },
  });
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.json.messages), [String(a)], 'b does not match; c is not the viewer’s');
  t.is(r.json.messages[a].match_subject, 'Recipes');
  t.is(r.json.messages[a].match_content, '<p>try the &lt;b&gt;<span class="highlight">soup</span>&lt;/b&gt;</p>');
  const plain = await s.client.as(member).get('/messages/matches_narrow', {
    query: { msg_ids: JSON.stringify([a, b]), narrow: JSON.stringify([['topic', 'other things']]) },
  });
  t.deepEqual(plain.json.messages, { [b]: { match_content: '<p>nothing relevant</p>', match_subject: 'Other things' } });
  const bad = await s.client.as(member).get('/messages/matches_narrow', { query: { msg_ids: '[1]', narrow: '[["is","bogus"]]' } });
  t.is(bad.json.msg, "Invalid narrow operator: unknown 'is' operand bogus");
});

test('GET /messages with message_ids: the accessible ones among them, optionally narrowed', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const mine = await dm(s, other, [member.id], 'for member');
  const notMine = await dm(s, other, [admin.id], 'for admin');
  const r = await getMessages(s, member, { message_ids: [mine, notMine, 999999999] });
  t.is(r.status, 200);
  t.deepEqual(ids(r), [mine]);
  t.false(r.json.history_limited);
  t.false('found_anchor' in r.json);
  const narrowed = await getMessages(s, member, { message_ids: [mine], narrow: '[["is","starred"]]' });
  t.deepEqual(ids(narrowed), []);
  const both = await getMessages(s, member, { message_ids: [mine], anchor: 'newest' });
  t.is(both.json.msg, 'Unsupported parameter combination: message_ids, anchor');
});
