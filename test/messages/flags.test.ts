// Personal flags over HTTP: POST /messages/flags (the spec's state table), historical rows, flags/narrow,
// the mark-as-read operations, update_message_flags events, and the register snapshot kept right by them.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import type { Credentials } from '../helpers/http.js';
import { dm, events, getMessages, makeCast, makeChannel, post, register, uniqueName, unsubscribe } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

function flags(as: Credentials, messages: number[], op: 'add' | 'remove', flag: string) {
  return s.client.as(as).post('/messages/flags', { form: { messages: JSON.stringify(messages), op, flag } });
}

async function flagsOf(as: Credentials, id: number): Promise<string[]> {
  const r = await s.client.as(as).get(`/messages/${id}`);
  return r.json.message.flags;
}

test('star and unstar: the response, the stored flag and the update_message_flags event', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, other, [member.id], 'star me');
  const q = await register(s, member, { event_types: '["update_message_flags"]' });
  const add = await flags(member, [id], 'add', 'starred');
  t.is(add.status, 200);
  t.deepEqual(add.json, { result: 'success', msg: '', messages: [id] });
  t.deepEqual(await flagsOf(member, id), ['starred']);
  const again = await flags(member, [id], 'add', 'starred');
  t.is(again.status, 200, 'adding a present flag is not an error');
  const remove = await flags(member, [id], 'remove', 'starred');
  t.deepEqual(remove.json.messages, [id]);
  t.deepEqual(await flagsOf(member, id), []);
  const evs = await events(s, member, q.queue_id);
  t.deepEqual(
    evs.map(({ id: _id, ...e }) => e),
    [
      { type: 'update_message_flags', op: 'add', operation: 'add', flag: 'starred', messages: [id], all: false },
      { type: 'update_message_flags', op: 'remove', operation: 'remove', flag: 'starred', messages: [id], all: false },
    ],
    'no event for a change that changed nothing',
  );
});

test('only read, starred and collapsed can change; unknown flags are invalid', async (t) => {
  const { member, other } = await makeCast(s);
  const id = await dm(s, other, [member.id], 'x');
  for (const flag of ['mentioned', 'stream_wildcard_mentioned', 'topic_wildcard_mentioned', 'wildcard_mentioned', 'has_alert_word', 'historical']) {
    const r = await flags(member, [id], 'add', flag);
    t.deepEqual(r.json, { result: 'error', msg: `Flag not editable: '${flag}'`, code: 'BAD_REQUEST' });
  }
  t.deepEqual((await flags(member, [id], 'add', 'bogus')).json, { result: 'error', msg: "Invalid flag: 'bogus'", code: 'BAD_REQUEST' });
  t.is((await flags(member, [id], 'toggle' as 'add', 'read')).status, 400);
  t.is((await flags(member, [id], 'add', 'collapsed')).status, 200);
  t.deepEqual(await flagsOf(member, id), ['collapsed']);
});

test('starring a public channel message one never received adds a historical row; others’ DMs are invalid', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id]);
  const msg = await post(s, member, name, 't', 'public words');
  t.deepEqual(await flagsOf(other, msg), ['read', 'historical']);
  t.is((await flags(other, [msg], 'add', 'starred')).status, 200);
  t.deepEqual(await flagsOf(other, msg), ['read', 'starred', 'historical']);
  const starred = await getMessages(s, other, { anchor: 'newest', num_before: 5, num_after: 0, narrow: '[["is","starred"]]' });
  t.deepEqual(starred.json.messages.map((m: { id: number }) => m.id), [msg]);
  const theirDm = await dm(s, member, [admin.id], 'private');
  t.deepEqual((await flags(other, [theirDm], 'add', 'starred')).json, { result: 'error', msg: 'Invalid message(s)', code: 'BAD_REQUEST' });
  t.is((await flags(other, [theirDm], 'add', 'read')).status, 200, 'marking read needs no row (the historical default is read)');
});

test('marking unread skips channels one is not subscribed to, and says which', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  const inChannel = await post(s, other, name, 't', 'channel message');
  const direct = await dm(s, other, [member.id], 'direct message');
  await flags(member, [inChannel, direct], 'add', 'read');
  await unsubscribe(s, name, [member.id]);
  const q = await register(s, member, { event_types: '["update_message_flags"]' });
  const r = await flags(member, [inChannel, direct], 'remove', 'read');
  t.deepEqual(r.json, { result: 'success', msg: '', messages: [direct], ignored_because_not_subscribed_channels: [channelId] });
  t.deepEqual(await flagsOf(member, inChannel), ['read']);
  t.deepEqual(await flagsOf(member, direct), []);
  const [e] = await events(s, member, q.queue_id);
  t.like(e, { type: 'update_message_flags', op: 'remove', flag: 'read', messages: [direct], all: false });
  t.deepEqual(e.message_details, { [direct]: { type: 'private', user_ids: [other.id] } });
});

test('mark_all_as_read, mark_stream_as_read and mark_topic_as_read', async (t) => {
  const { member, other } = await makeCast(s);
  const a = uniqueName('a');
  const b = uniqueName('b');
  const aId = await makeChannel(s, a, [member.id, other.id]);
  await makeChannel(s, b, [member.id, other.id]);
  const a1 = await post(s, other, a, 'one', 'x');
  const a2 = await post(s, other, a, 'two', 'x');
  const b1 = await post(s, other, b, 'one', 'x');
  const d1 = await dm(s, other, [member.id], 'x');
  const q = await register(s, member, { event_types: '["update_message_flags"]' });

  const topic = await s.client.as(member).post('/mark_topic_as_read', { form: { stream_id: String(aId), topic_name: 'ONE' } });
  t.deepEqual(topic.json, { result: 'success', msg: '' });
  t.deepEqual(await flagsOf(member, a1), ['read']);
  t.deepEqual(await flagsOf(member, a2), []);
  const noTopic = await s.client.as(member).post('/mark_topic_as_read', { form: { stream_id: String(aId), topic_name: 'nope' } });
  t.deepEqual(noTopic.json, { result: 'error', msg: "No such topic 'nope'", code: 'BAD_REQUEST' });

  const channel = await s.client.as(member).post('/mark_stream_as_read', { form: { stream_id: String(aId) } });
  t.is(channel.status, 200);
  t.deepEqual(await flagsOf(member, a2), ['read']);
  t.deepEqual(await flagsOf(member, b1), []);
  const bad = await s.client.as(member).post('/mark_stream_as_read', { form: { stream_id: '999999' } });
  t.deepEqual(bad.json, { result: 'error', msg: 'Invalid channel ID', code: 'BAD_REQUEST' });

  const all = await s.client.as(member).post('/mark_all_as_read');
  t.deepEqual(all.json, { result: 'success', msg: '', complete: true });
  t.deepEqual(await flagsOf(member, b1), ['read']);
  t.deepEqual(await flagsOf(member, d1), ['read']);
  const evs = await events(s, member, q.queue_id);
  t.deepEqual(evs.map((e) => e.messages), [[a1], [a2], [b1, d1]]);
  t.true(evs.every((e) => e.op === 'add' && e.flag === 'read' && e.all === false));
});

test('flags/narrow applies a flag to a range of a narrow and reports what it processed', async (t) => {
  const { member, other } = await makeCast(s);
  const ids = [await dm(s, other, [member.id], '1'), await dm(s, other, [member.id], '2'), await dm(s, other, [member.id], '3')];
  await flags(member, [ids[0]!], 'add', 'read');
  const r = await s.client.as(member).post('/messages/flags/narrow', {
    form: { anchor: 'oldest', num_before: '0', num_after: '10', narrow: JSON.stringify([['dm', other.email]]), op: 'add', flag: 'read' },
  });
  t.deepEqual(r.json, {
    result: 'success',
    msg: '',
    processed_count: 3,
    updated_count: 2,
    first_processed_id: ids[0],
    last_processed_id: ids[2],
    found_oldest: true,
    found_newest: true,
  });
  const unread = await s.client.as(member).post('/messages/flags/narrow', {
    form: { anchor: String(ids[2]), num_before: '1', num_after: '0', narrow: JSON.stringify([['dm', other.email]]), op: 'remove', flag: 'read' },
  });
  t.like(unread.json, { processed_count: 2, updated_count: 2, first_processed_id: ids[1], last_processed_id: ids[2], ignored_because_not_subscribed_channels: [] });
  const badFlag = await s.client.as(member).post('/messages/flags/narrow', {
    form: { anchor: 'oldest', num_before: '0', num_after: '1', narrow: '[]', op: 'add', flag: 'mentioned' },
  });
  t.is(badFlag.json.msg, "Flag not editable: 'mentioned'");
});

test('register: max_message_id, unread_msgs, recent_private_conversations, starred_messages follow the changes', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  const fresh = await register(s, member, { fetch_event_types: '["message","update_message_flags","recent_private_conversations","starred_messages"]' });
  t.deepEqual(fresh.unread_msgs, { pms: [], streams: [], huddles: [], mentions: [], count: 0, old_unreads_missing: false });
  t.deepEqual(fresh.recent_private_conversations, []);
  t.deepEqual(fresh.starred_messages, []);
  const d1 = await dm(s, other, [member.id], 'hi');
  const g1 = await dm(s, other, [member.id, admin.id], `group @**${member.fullName}**`);
  const c1 = await post(s, other, name, 'topic a', 'chan');
  const mine = await dm(s, member, [member.id], 'self note');
  await flags(member, [c1], 'add', 'starred');
  const snap = await register(s, member, { fetch_event_types: '["message","update_message_flags","recent_private_conversations","starred_messages"]' });
  t.is(snap.max_message_id, mine);
  t.deepEqual(snap.unread_msgs, {
    pms: [
      { other_user_id: other.id, sender_id: other.id, unread_message_ids: [d1] },
      { other_user_id: member.id, sender_id: member.id, unread_message_ids: [mine] },
    ],
    streams: [{ stream_id: channelId, topic: 'topic a', unread_message_ids: [c1] }],
    huddles: [{ user_ids_string: [member.id, other.id, admin.id].sort((a, b) => a - b).join(','), unread_message_ids: [g1] }],
    mentions: [g1],
    count: 4,
    old_unreads_missing: false,
  });
  t.deepEqual(snap.recent_private_conversations, [
    { max_message_id: mine, user_ids: [] },
    { max_message_id: g1, user_ids: [other.id, admin.id].sort((a, b) => a - b) },
    { max_message_id: d1, user_ids: [other.id] },
  ]);
  t.deepEqual(snap.starred_messages, [c1]);
  await s.client.as(member).post('/mark_all_as_read');
  const after = await register(s, member, { fetch_event_types: '["message","update_message_flags"]' });
  t.is(after.unread_msgs.count, 0);
  t.deepEqual(after.unread_msgs.pms, []);
  const noMessage = await register(s, member, { fetch_event_types: '["update_message_flags"]' });
  t.false('unread_msgs' in noMessage, 'unread_msgs needs both message and update_message_flags');
});

/** A client's handling of message and update_message_flags events on unread_msgs and starred_messages. */
function applyEvents(userId: number, snap: { unread_msgs: any; starred_messages: number[] }, evs: any[]) {
  const u = snap.unread_msgs;
  const add = (list: { unread_message_ids: number[] }[], match: (e: any) => boolean, make: () => any, id: number) => {
    let entry = list.find(match);
    if (!entry) list.push((entry = make()));
    entry!.unread_message_ids.push(id);
  };
  const addUnread = (id: number, d: any) => {
    if (d.type === 'private') {
      const others = d.user_ids as number[];
      if (others.length <= 1) {
        const other = others[0] ?? userId;
        add(u.pms, (p) => p.other_user_id === other, () => ({ other_user_id: other, sender_id: other, unread_message_ids: [] }), id);
      } else {
        const key = [...others, userId].sort((a, b) => a - b).join(',');
        add(u.huddles, (h) => h.user_ids_string === key, () => ({ user_ids_string: key, unread_message_ids: [] }), id);
      }
    } else {
      add(u.streams, (x) => x.stream_id === d.stream_id && x.topic === d.topic, () => ({ stream_id: d.stream_id, topic: d.topic, unread_message_ids: [] }), id);
    }
    if (d.mentioned) u.mentions.push(id);
  };
  for (const e of evs) {
    if (e.type === 'message' && !e.flags.includes('read')) {
      const m = e.message;
      const d = m.type === 'private'
        ? { type: 'private', user_ids: m.display_recipient.map((r: { id: number }) => r.id).filter((x: number) => x !== userId) }
        : { type: 'stream', stream_id: m.stream_id, topic: m.subject };
      addUnread(m.id, { ...d, mentioned: e.flags.includes('mentioned') });
    } else if (e.type === 'update_message_flags' && e.flag === 'read') {
      if (e.op === 'add') {
        for (const list of [u.pms, u.huddles, u.streams]) for (const x of list) x.unread_message_ids = x.unread_message_ids.filter((id: number) => !e.messages.includes(id));
        u.mentions = u.mentions.filter((id: number) => !e.messages.includes(id));
      } else for (const id of e.messages) addUnread(id, e.message_details[id]);
    } else if (e.type === 'update_message_flags' && e.flag === 'starred') {
      snap.starred_messages = e.op === 'add' ? [...snap.starred_messages, ...e.messages] : snap.starred_messages.filter((id) => !e.messages.includes(id));
    }
  }
  const norm = (list: any[], key: (x: any) => string) =>
    Object.fromEntries(list.filter((x) => x.unread_message_ids.length > 0).map((x) => [key(x), [...x.unread_message_ids].sort((a, b) => a - b)]));
  const all = [...u.pms, ...u.huddles, ...u.streams].flatMap((x: any) => x.unread_message_ids);
  return {
    pms: norm(u.pms, (x) => String(x.other_user_id)),
    huddles: norm(u.huddles, (x) => x.user_ids_string),
    streams: norm(u.streams, (x) => `${x.stream_id}:${x.topic}`),
    mentions: [...u.mentions].sort((a, b) => a - b),
    count: all.length,
    starred: [...snap.starred_messages].sort((a, b) => a - b),
  };
}

test('a snapshot plus the events of the operations equals a fresh snapshot (unread_msgs, starred_messages)', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  const form = { event_types: '["message","update_message_flags","starred_messages"]', client_capabilities: '{"empty_topic_name":true}' };
  const first = await register(s, member, form);
  const d1 = await dm(s, other, [member.id], 'one');
  const g1 = await dm(s, admin, [member.id, other.id], `hey @**${member.fullName}**`);
  const c1 = await post(s, other, name, 'plans', 'channel one');
  const c2 = await post(s, other, name, '', 'channel two');
  const reply = await dm(s, member, [other.id], 'my own reply, unread for an API client');
  await flags(member, [d1, c1], 'add', 'read');
  await flags(member, [c2, g1], 'add', 'starred');
  await flags(member, [d1], 'remove', 'read');
  const evs = await events(s, member, first.queue_id);
  const applied = applyEvents(member.id, first, evs);
  const fresh = await register(s, member, form);
  const expected = applyEvents(member.id, fresh, []);
  t.deepEqual(applied, expected);
  t.is(expected.count, fresh.unread_msgs.count);
  t.deepEqual(expected.starred, [g1, c2].sort((a, b) => a - b));
  t.deepEqual(Object.values(expected.pms), [[d1, reply]]);
});
