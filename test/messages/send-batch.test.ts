// Sends written together (group commit's bulk write): a burst of sends reaches the realm actor while it is
// writing, so all but the first share one transaction and one insert statement. Each send must still get its
// own answer, flags, events and history, exactly as if it had been written alone, and a refused or failing
// send must not fail the others.
import { setTimeout as sleep } from 'node:timers/promises';
import test from 'ava';
import type { RealmRef } from '../../src/actors/root.machine.js';
import type { SendResult } from '../../src/realm/messages/send.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { untilSnapshot } from '../helpers/snapshot.js';
import { verifyAction } from '../helpers/verify-action.js';
import { batchesOf, dm, events, getMessages, makeCast, makeChannel, post, prepared, realmOf, register, send, setRealm, systemGroupId, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());


type SendForm = { type: 'stream' | 'direct'; to: string | number[]; topic?: string; content: string };

/**
 * Dispatches prepared sends to the realm actor in one burst: the first is taken as a batch at once, and the others
 * join it while it opens its transaction (before its writes start). Asserts that they did: one transaction in all,
 * or `transactions` when a send that cannot say what it touches (CommandDef.touches) starts the next batch.
 */
async function burst(t: { is(a: unknown, b: unknown, m?: string): void }, sends: [number, SendForm][], transactions = 1) {
  const realm = await realmOf(s);
  const before = batchesOf(realm);
  const inputs = await Promise.all(
    sends.map(([senderId, form]) => prepared(realm, 'messages.send', { senderId, client: 'test', realmUrl: `http://127.0.0.1:${s.port}`, ...form })),
  );
  const settled = await Promise.allSettled(inputs.map((input) => realm.dispatch('messages.send', input)));
  t.is(batchesOf(realm) - before, transactions, transactions === 1 ? 'all in one transaction' : `${transactions} transactions`);
  return settled;
}

function value(r: PromiseSettledResult<SendResult> | undefined): SendResult {
  if (r?.status !== 'fulfilled') throw new Error(`send failed: ${r?.status === 'rejected' ? String(r.reason) : 'missing'}`);
  return r.value;
}

const narrowTo = (channelId: number) => JSON.stringify([{ operator: 'channel', operand: channelId }]);

async function flagsOf(as: { email: string; apiKey: string }, id: number): Promise<string[]> {
  const r = await s.client.as(as).get(`/messages/${id}`);
  if (r.status !== 200) throw new Error(`GET /messages/${id}: ${r.text}`);
  return r.json.message.flags;
}

/** A text with what parameter formatting and array literals must not touch. */
const REPLY = 'a reply costs $1, not ${x} or $(y): "quoted", \\back\\slashes\\, {braces,} NULL \'single\'';

test.serial('a burst of mixed sends: each its own answer, IDs in mailbox order, flags, topics and events as if written alone', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  await post(s, other, name, 'old', 'already here');
  const otherQueue = await register(s, other, { event_types: '["message","user_topic"]' });
  let settled: PromiseSettledResult<SendResult>[] = [];
  // The member's snapshot plus the burst's events must equal a fresh snapshot.
  const memberEvents = await verifyAction(
    t,
    s,
    member,
    async () => {
      settled = await burst(t, [
        [member.id, { type: 'stream', to: name, topic: 'old', content: 'warm-up: written alone' }],
        [member.id, { type: 'stream', to: name, topic: 'old', content: `hi @**${other.fullName}**` }],
        [member.id, { type: 'direct', to: [admin.id], content: 'a new conversation' }],
        [member.id, { type: 'stream', to: 'no such channel here', topic: 't', content: 'refused' }],
        [member.id, { type: 'stream', to: name, topic: 'fresh', content: 'starts a topic' }],
        [member.id, { type: 'stream', to: name, topic: 'FRESH', content: 'the same topic in other case' }],
        [other.id, { type: 'stream', to: name, topic: 'fresh', content: 'joining a topic this batch started' }],
        [other.id, { type: 'stream', to: name, topic: 'fresh', content: 'hey @**topic**' }],
        [admin.id, { type: 'direct', to: [member.id], content: REPLY }],
        // The @topic send reads the topic's participants, which the batch may change: it cannot say what it touches,
        // so it does not join the first batch; it and the send after it are the second.
      ], 2);
    },
    { eventTypes: ['message', 'user_topic'] },
  );

  const refused = settled[3]!;
  t.is(refused.status, 'rejected');
  t.like((refused as PromiseRejectedResult).reason, { code: 'STREAM_DOES_NOT_EXIST' });
  const sent = settled.filter((r) => r !== refused).map(value);
  const ids = sent.map((r) => r.message.id);
  t.deepEqual([...ids].sort((a, b) => a - b), ids, 'IDs ascend in mailbox order');
  t.is(new Set(ids).size, ids.length);
  const [, mention, direct, starts, sameTopic, joins, topicWildcard, reply] = sent;

  // Each recipient's flags.
  t.deepEqual(await flagsOf(other, mention!.message.id), ['mentioned']);
  t.deepEqual(await flagsOf(member, mention!.message.id), []);
  t.deepEqual(await flagsOf(admin, direct!.message.id), []);
  // @topic reaches the topic's participants, including the member whose sends earlier in this batch started it.
  t.true((await flagsOf(member, topicWildcard!.message.id)).includes('topic_wildcard_mentioned'));

  // Only the first send to the new topic (whatever the case) starts it, and follows it for its sender.
  t.is(starts!.visibility?.policy, 3);
  t.is(sameTopic!.visibility, null);
  t.is(joins!.visibility, null, 'the other user joined a topic that already existed (in the same statement)');
  t.is(topicWildcard!.visibility, null);

  // The conversation created in this batch is the reply's conversation too.
  t.is(reply!.message.recipientId, direct!.message.recipientId);
  const raw = await s.client.as(admin).get(`/messages/${reply!.message.id}`, { query: { apply_markdown: 'false' } });
  t.is(raw.json.message.content, REPLY, 'texts reach the database as they were sent');

  // History and events agree with the answers.
  const history = await getMessages(s, member, { anchor: 'newest', num_before: 10, num_after: 0, narrow: narrowTo(channelId) });
  const channelIds = [mention, starts, sameTopic, joins, topicWildcard].map((r) => r!.message.id);
  t.deepEqual(history.json.messages.map((m: { id: number }) => m.id).slice(-5), channelIds);
  const toMember = memberEvents.map((e) => (e.type === 'message' ? e.message.id : `${e.type}:${e.topic_name}`));
  t.deepEqual(toMember, [ids[0], ids[1], ids[2], 'user_topic:fresh', ids[3], ids[4], ids[5], ids[6], ids[7]]);
  const toOther = await events(s, other, otherQueue.queue_id);
  t.deepEqual(
    toOther.map((e) => (e.type === 'message' ? [e.message.id, e.flags] : e.type)),
    [
      [ids[0], []],
      [ids[1], ['mentioned']],
      [ids[3], []],
      [ids[4], []],
      [ids[5], []],
      [ids[6], ['topic_wildcard_mentioned', 'wildcard_mentioned']],
    ],
  );
});

test.serial('sends to existing topics and known conversations: the same answers, flags and events as if written alone', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  await post(s, other, name, 'old', 'the topic exists');
  await dm(s, other, [member.id], 'the conversation exists');
  const otherQueue = await register(s, other, { event_types: '["message","user_topic"]' });
  let settled: PromiseSettledResult<SendResult>[] = [];
  const memberEvents = await verifyAction(
    t,
    s,
    member,
    async () => {
      settled = await burst(t, [
        [member.id, { type: 'stream', to: name, topic: 'old', content: 'warm-up' }],
        [member.id, { type: 'stream', to: name, topic: 'OLD', content: `hi @**${other.fullName}**` }],
        [other.id, { type: 'stream', to: name, topic: 'old', content: `hello @**${member.fullName}**` }],
        [member.id, { type: 'direct', to: [other.id], content: REPLY }],
        [other.id, { type: 'direct', to: [member.id], content: 'and back' }],
      ]);
    },
    { eventTypes: ['message', 'user_topic'] },
  );
  const sent = settled.map(value);
  const ids = sent.map((r) => r.message.id);
  t.deepEqual([...ids].sort((a, b) => a - b), ids);
  t.true(sent.every((r) => r.visibility === null));
  t.is(sent[3]!.message.recipientId, sent[4]!.message.recipientId);
  t.deepEqual(await flagsOf(other, ids[1]!), ['mentioned']);
  t.deepEqual(await flagsOf(member, ids[2]!), ['mentioned']);
  t.deepEqual(await flagsOf(member, ids[4]!), []);
  const raw = await s.client.as(other).get(`/messages/${ids[3]}`, { query: { apply_markdown: 'false' } });
  t.is(raw.json.message.content, REPLY);
  t.deepEqual(memberEvents.map((e) => e.message.id), ids);
  t.deepEqual(
    (await events(s, other, otherQueue.queue_id)).map((e) => [e.message.id, e.flags]),
    [[ids[0], []], [ids[1], ['mentioned']], [ids[2], []], [ids[3], []], [ids[4], []]],
  );
  const history = await getMessages(s, other, { anchor: 'newest', num_before: 3, num_after: 0, narrow: narrowTo(channelId) });
  t.deepEqual(history.json.messages.map((m: { id: number }) => m.id), ids.slice(0, 3));
});

test.serial('a topic starting among sends to existing topics follows it for its sender, and only it', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  await post(s, other, name, 'old', 'the topic exists');
  const settled = await burst(t, [
    [member.id, { type: 'stream', to: name, topic: 'old', content: 'warm-up' }],
    [member.id, { type: 'stream', to: name, topic: 'old', content: 'to the old topic' }],
    [member.id, { type: 'stream', to: name, topic: 'new', content: 'starts a topic' }],
    [other.id, { type: 'stream', to: name, topic: 'old', content: 'to the old topic again' }],
  ]);
  const sent = settled.map(value);
  t.deepEqual(sent.map((r) => r.visibility?.policy ?? null), [null, null, 3, null]);
  const ids = sent.map((r) => r.message.id);
  t.deepEqual([...ids].sort((a, b) => a - b), ids);
  const followed = await getMessages(s, member, { anchor: 'newest', num_before: 5, num_after: 0, narrow: '[["is","followed"]]' });
  t.deepEqual(followed.json.messages.map((m: { id: number }) => m.id), [ids[2]]);
  const history = await getMessages(s, other, { anchor: 'newest', num_before: 4, num_after: 0, narrow: narrowTo(channelId) });
  t.deepEqual(history.json.messages.map((m: { id: number }) => m.id), ids);
});

test.serial('pipelined batches: a topic started by a batch still committing is not started again by the next one', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  const db = s.server.services.db;
  // The first send's COMMIT waits (a deferred trigger, run inside COMMIT) until this test lets it go.
  await db.none(`CREATE FUNCTION hold_commit() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN
      IF NEW.content LIKE ''hold:%'' THEN PERFORM pg_advisory_xact_lock_shared(9201); END IF; RETURN NULL; END'`);
  await db.none('CREATE CONSTRAINT TRIGGER hold_commit AFTER INSERT ON messages DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION hold_commit()');
  const session = await db.connect();
  await session.one('SELECT pg_advisory_lock(9201)');
  try {
    const realm = await realmOf(s);
    const ref = realm['ref'] as RealmRef;
    const input = (senderId: number, content: string) =>
      prepared(realm, 'messages.send', { senderId, client: 'test', realmUrl: `http://127.0.0.1:${s.port}`, type: 'stream', to: name, topic: 'brand new', content });
    const first = realm.dispatch('messages.send', await input(member.id, 'hold: starts the topic'));
    await untilSnapshot(ref, (snap) => snap.context.inFlight.length === 1 && snap.context.inFlight[0]!.written);
    // Taken while the first commits; its statement cannot see the first's message yet.
    const second = realm.dispatch('messages.send', await input(other.id, 'a reply in the new topic'));
    // Its writes are done, or (as they should) wait for the first's commit to know whether the topic is new.
    const waiting = () => db.one("SELECT count(*)::int AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted", [], (r) => r.n as number);
    for (let i = 0; i < 600 && !(ref.getSnapshot().context.inFlight[1]?.written || (await waiting()) > 0); i++) await sleep(50);
    await session.one('SELECT pg_advisory_unlock(9201)');
    const [a, b] = await Promise.all([first, second]);
    t.is(a.visibility?.policy, 3, 'the first sender started the topic and follows it');
    t.is(b.visibility, null, 'the second did not start it (its sender’s policy follows only topics it starts)');
    t.true(a.message.id < b.message.id);
  } finally {
    session.done();
    await db.none('DROP TRIGGER hold_commit ON messages; DROP FUNCTION hold_commit()');
  }
});

test.serial('direct_message_initiator_group in a batch: a conversation started earlier in the batch may be answered', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const { member: third } = await makeCast(s);
  await dm(s, third, [member.id], 'an existing conversation');
  const admins = await systemGroupId(s, 'role:administrators');
  // The reload also empties the working set's conversation IDs: existing ones are then found in the database.
  await setRealm(s, {}, { direct_message_initiator_group: admins });
  try {
    const settled = await burst(t, [
      [admin.id, { type: 'direct', to: [other.id], content: 'warm-up' }],
      [member.id, { type: 'direct', to: [other.id], content: 'may not start this' }],
      [admin.id, { type: 'direct', to: [member.id], content: 'an admin starts it' }],
      [member.id, { type: 'direct', to: [admin.id], content: 'and the member answers in the same batch' }],
      [member.id, { type: 'direct', to: [third.id], content: 'a reply in a conversation found in the database' }],
    ]);
    t.deepEqual(
      settled.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    t.like((settled[1] as PromiseRejectedResult).reason, { message: 'You do not have permission to initiate direct message conversations.' });
    t.is(value(settled[3]).message.recipientId, value(settled[2]).message.recipientId);
    const seen = await getMessages(s, member, { anchor: 'newest', num_before: 3, num_after: 0 });
    t.deepEqual(
      seen.json.messages.map((m: { id: number }) => m.id),
      [2, 3, 4].map((i) => value(settled[i]).message.id),
    );
  } finally {
    await setRealm(s, {}, { direct_message_initiator_group: await systemGroupId(s, 'role:everyone') });
  }
});

test.serial('a send that fails in the database does not fail the others in its batch', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id]);
  const queue = await register(s, other, { event_types: '["message"]' });
  const db = s.server.services.db;
  // A real database error for one row of the batch's insert statement (this test file's own database).
  await db.none(`CREATE FUNCTION refuse_boom() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN
      IF NEW.content = ''boom'' THEN RAISE EXCEPTION ''boom refused''; END IF; RETURN NEW; END'`);
  await db.none('CREATE TRIGGER refuse_boom BEFORE INSERT ON messages FOR EACH ROW EXECUTE FUNCTION refuse_boom()');
  let settled: PromiseSettledResult<SendResult>[];
  try {
    settled = await burst(t, [
      [member.id, { type: 'stream', to: name, topic: 't', content: 'warm-up' }],
      [member.id, { type: 'stream', to: name, topic: 't', content: 'before' }],
      [other.id, { type: 'stream', to: name, topic: 't', content: 'boom' }],
      [member.id, { type: 'stream', to: name, topic: 't', content: 'after' }],
    ]);
  } finally {
    await db.none('DROP TRIGGER refuse_boom ON messages');
    await db.none('DROP FUNCTION refuse_boom()');
  }
  t.deepEqual(
    settled.map((r) => r.status),
    ['fulfilled', 'fulfilled', 'rejected', 'fulfilled'],
  );
  t.regex(String((settled[2] as PromiseRejectedResult).reason), /boom refused/);
  const ids = [0, 1, 3].map((i) => value(settled[i]).message.id);
  t.true(ids[0]! < ids[1]! && ids[1]! < ids[2]!);
  const history = await getMessages(s, other, { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrowTo(channelId) });
  t.deepEqual(history.json.messages.map((m: { content: string }) => m.content), ['<p>warm-up</p>', '<p>before</p>', '<p>after</p>']);
  t.deepEqual((await events(s, other, queue.queue_id)).map((e) => e.message.id), ids);
  // The failed send is retried by nobody: sending it again works once the database accepts it.
  t.is((await send(s, other, { type: 'stream', to: name, topic: 't', content: 'boom' })).status, 200);
});

test('concurrent HTTP sends of every kind, with one invalid, all get their right answers', async (t) => {
  const { member, other, admin, guest } = await makeCast(s);
  const name = uniqueName();
  const channelId = await makeChannel(s, name, [member.id, other.id, admin.id]);
  const senders = [member, other, admin];
  const forms = Array.from({ length: 36 }, (_, i): { from: typeof member; form: Record<string, string> } => {
    const from = senders[i % 3]!;
    if (i === 17) return { from, form: { type: 'stream', to: name, topic: 't', content: ' ' } };
    if (i % 4 === 1) return { from, form: { type: 'direct', to: JSON.stringify([guest.id]), content: `direct ${i} $1` } };
    const content = `channel ${i} @**${guest.fullName}**`;
    return { from, form: { type: 'stream', to: name, topic: `t${i % 3}`, content, read_by_sender: 'true' } };
  });
  const answers = await Promise.all(forms.map(({ from, form }) => send(s, from, form)));
  t.deepEqual(answers[17]!.json, { result: 'error', msg: 'Message must not be empty', code: 'BAD_REQUEST' });
  const ok = answers.filter((_, i) => i !== 17);
  t.true(ok.every((r) => r.status === 200));
  t.is(new Set(ok.map((r) => r.json.id)).size, 35);
  // The guest has every direct message (one conversation per sender) and none of the channel's.
  const directIds = forms.flatMap(({ form }, i) => (form.type === 'direct' ? [answers[i]!.json.id as number] : []));
  const guestView = await getMessages(s, guest, { anchor: 'newest', num_before: 50, num_after: 0 });
  t.deepEqual(
    guestView.json.messages.map((m: { id: number }) => m.id),
    [...directIds].sort((a, b) => a - b),
  );
  t.true(guestView.json.messages.every((m: { content: string; flags: string[] }) => /^<p>direct \d+ \$1<\/p>$/.test(m.content)));
  // In the channel every subscriber has every message, the sender's own read, nobody mentioned (the guest is not there).
  const channelIds = forms.flatMap(({ form }, i) => (form.type === 'stream' && i !== 17 ? [answers[i]!.json.id as number] : []));
  for (const u of senders) {
    const view = await getMessages(s, u, { anchor: 'newest', num_before: 50, num_after: 0, narrow: narrowTo(channelId) });
    t.deepEqual(
      view.json.messages.map((m: { id: number }) => m.id),
      [...channelIds].sort((a, b) => a - b),
    );
    for (const m of view.json.messages as { sender_id: number; flags: string[] }[]) {
      t.deepEqual(m.flags, m.sender_id === u.id ? ['read'] : []);
    }
  }
});

test('the other message insert (channel notices) also keeps a $1 in its text', async (t) => {
  const { member } = await makeCast(s);
  const name = uniqueName('priced');
  const r = await s.client.as(member).post('/users/me/subscriptions', {
    form: { subscriptions: JSON.stringify([{ name, description: 'costs $1 a month' }]), announce: 'true' },
  });
  t.is(r.status, 200, r.text);
  const channelId = (await realmOf(s)).state.channels.channelByName(name)!.id;
  const history = await getMessages(s, member, { anchor: 'newest', num_before: 5, num_after: 0, narrow: narrowTo(channelId), apply_markdown: false });
  t.true(history.json.messages.some((m: { content: string }) => m.content.includes('costs $1 a month')));
});
