// Writes of several kinds written together (group commit): sends, message flags, mark-as-read, reactions and
// presence announcements from several users reach the realm actor while it is writing and share one
// transaction. Each must get its own answer, effects and events exactly as if written alone; a refused one must
// not fail the others; one user's commands keep their order.
import test from 'ava';
import type { FlagsResult } from '../../src/realm/messages/flags.js';
import type { ReactionResult } from '../../src/realm/messages/reactions.js';
import type { SendResult } from '../../src/realm/messages/send.js';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { verifyAction } from '../helpers/verify-action.js';
import { batchesOf, type AnyCommand, events, makeCast, makeChannel, post, prepared, realmOf, register, uniqueName } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());


type Command = AnyCommand;

/**
 * Dispatches prepared commands to the realm actor in one burst: the first is taken as a batch at once, and the others
 * join it while it opens its transaction (joinWaitingBatch in realm.machine.ts). Asserts that they did: one
 * transaction in all, or `transactions` when a command that cannot say what it touches starts the next batch.
 */
async function burst(t: { is(a: unknown, b: unknown, m?: string): void }, commands: Command[], transactions = 1) {
  const realm = await realmOf(s);
  const before = batchesOf(realm);
  const inputs = await Promise.all(commands.map(([kind, input]) => prepared(realm, kind, input)));
  const settled = await Promise.allSettled(commands.map(([kind], i) => realm.dispatch(kind, inputs[i])));
  t.is(batchesOf(realm) - before, transactions, transactions === 1 ? 'all in one transaction' : `${transactions} transactions`);
  return settled;
}

function value<R>(r: PromiseSettledResult<unknown> | undefined): R {
  if (r?.status !== 'fulfilled') throw new Error(`command failed: ${r?.status === 'rejected' ? String(r.reason) : 'missing'}`);
  return r.value as R;
}

const sendCmd = (senderId: number, to: string, content: string): Command => [
  'messages.send',
  { senderId, client: 'test', realmUrl: `http://127.0.0.1:${s.port}`, type: 'stream', to, topic: 'batch', content },
];
const flagCmd = (userId: number, op: 'add' | 'remove', flag: string, messages: number[]): Command => ['flags.update', { userId, op, flag, messages }];
const reactCmd = (userId: number, messageId: number, op: 'add' | 'remove', emojiName: string): Command => ['reactions.change', { userId, messageId, op, emojiName }];

async function messageOf(as: Credentials, id: number): Promise<{ flags: string[]; reactions: { user_id: number; emoji_name: string }[] }> {
  const r = await s.client.as(as).get(`/messages/${id}`);
  if (r.status !== 200) throw new Error(`GET /messages/${id}: ${r.text}`);
  return r.json.message;
}

const reactionsOf = async (as: Credentials, id: number) =>
  (await messageOf(as, id)).reactions.map((r) => `${r.user_id}:${r.emoji_name}`).sort();

test.serial('sends, flags, mark-as-read, reactions and a presence announcement from several users: one transaction, each answered as if alone', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id, admin.id]);
  const m1 = await post(s, other, name, 'batch', 'first');
  const m2 = await post(s, admin, name, 'batch', 'second');
  let settled: PromiseSettledResult<unknown>[] = [];
  // The other user's snapshot plus the burst's events must equal a fresh snapshot.
  const otherEvents = await verifyAction(
    t,
    s,
    other,
    async () => {
      settled = await burst(t, [
        sendCmd(member.id, name, 'warm-up: written alone'),
        sendCmd(member.id, name, 'hello from the batch'),
        flagCmd(member.id, 'add', 'read', [m1, m2]),
        reactCmd(other.id, m2, 'add', 'thumbs_up'),
        ['presence.announce', { userId: admin.id, lastConnected: 1_700_000_000, lastActive: 1_700_000_000, lastUpdateId: 1, serverTimestamp: 1_700_000_000 }],
        flagCmd(admin.id, 'add', 'starred', [m1]),
        reactCmd(member.id, m1, 'add', 'heart'),
        ['flags.markAllRead', { userId: admin.id }],
        sendCmd(other.id, name, 'another send after the others'),
        flagCmd(other.id, 'add', 'read', [m2]),
        // Marking all read cannot say which rows it touches: it does not join the first batch; it and the two
        // after it are the second (the announcement is answered as it arrives, in no batch).
      ], 2);
    },
    { eventTypes: ['message', 'reaction', 'update_message_flags', 'presence'] },
  );
  t.deepEqual(settled.map((r) => r.status), Array(10).fill('fulfilled'));
  const sends = [0, 1, 8].map((i) => value<SendResult>(settled[i]).message.id);
  t.deepEqual([...sends].sort((a, b) => a - b), sends, 'message IDs follow the mailbox order');
  t.deepEqual(value<FlagsResult>(settled[2]).changed, [m1, m2]);
  t.is(value<ReactionResult>(settled[3]).reaction.emojiName, 'thumbs_up');
  t.like(value(settled[4]), { userId: admin.id });
  t.deepEqual(value<FlagsResult>(settled[5]).changed, [m1]);
  t.is(value<ReactionResult>(settled[6]).reaction.emojiName, 'heart');
  // Mark-as-read came after the send before it in the mailbox, so the admin's copy of that send is read too.
  t.true(value<FlagsResult>(settled[7]).changed.includes(sends[1]!));
  t.false(value<FlagsResult>(settled[7]).changed.includes(sends[2]!), 'the send after it is still unread');
  t.deepEqual(value<FlagsResult>(settled[9]).changed, [m2]);

  // Every effect is in the database.
  t.true((await messageOf(member, m1)).flags.includes('read'));
  t.true((await messageOf(member, m2)).flags.includes('read'));
  t.deepEqual(
    (await messageOf(admin, m1)).flags.filter((f) => f === 'read' || f === 'starred').sort(),
    ['read', 'starred'],
  );
  t.false((await messageOf(admin, sends[2]!)).flags.includes('read'));
  t.deepEqual(await reactionsOf(member, m2), [`${other.id}:thumbs_up`]);
  t.deepEqual(await reactionsOf(member, m1), [`${member.id}:heart`]);

  // The other user's events, in mailbox order.
  const kinds = otherEvents.map((e) => (e.type === 'message' ? `message:${e.message.id}` : e.type === 'reaction' ? `reaction:${e.emoji_name}` : e.type));
  t.deepEqual(
    kinds.filter((k) => k !== 'presence'),
    [`message:${sends[0]}`, `message:${sends[1]}`, 'reaction:thumbs_up', 'reaction:heart', `message:${sends[2]}`, 'update_message_flags'],
  );
  t.true(kinds.includes('presence'));
});

test.serial('refused writes in a batch of several kinds fail alone: the others are committed and answered', async (t) => {
  const { member, other, guest } = await makeCast(s);
  const name = uniqueName();
  const hidden = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  await makeChannel(s, hidden, [other.id], { inviteOnly: true });
  const m = await post(s, other, name, 'batch', 'react to me');
  const secret = await post(s, other, hidden, 'batch', 'not for the member');
  const r = await s.client.as(member).post(`/messages/${m}/reactions`, { form: { emoji_name: 'tada' } });
  t.is(r.status, 200);
  const settled = await burst(t, [
    sendCmd(other.id, name, 'warm-up'),
    reactCmd(other.id, m, 'add', 'tada'),
    reactCmd(member.id, m, 'add', 'tada'), // already there: refused in its write
    flagCmd(member.id, 'add', 'starred', [secret]), // a message the member may not see: refused in its write
    sendCmd(member.id, name, 'still sent'),
    reactCmd(guest.id, m, 'add', 'heart'), // the guest is not subscribed: refused
    flagCmd(member.id, 'add', 'starred', [m]),
  ]);
  t.deepEqual(settled.map((x) => x.status), ['fulfilled', 'fulfilled', 'rejected', 'rejected', 'fulfilled', 'rejected', 'fulfilled']);
  t.like((settled[2] as PromiseRejectedResult).reason, { message: 'Reaction already exists.', status: 400 });
  t.like((settled[3] as PromiseRejectedResult).reason, { message: 'Invalid message(s)', status: 400 });
  t.like((settled[5] as PromiseRejectedResult).reason, { message: 'Invalid message(s)', status: 400 });
  t.deepEqual(await reactionsOf(member, m), [`${member.id}:tada`, `${other.id}:tada`].sort());
  t.true((await messageOf(member, m)).flags.includes('starred'));
  t.false((await messageOf(other, secret)).flags.includes('starred'));
  const sent = value<SendResult>(settled[4]).message.id;
  t.is((await s.client.as(other).get(`/messages/${sent}`)).status, 200, 'the send is stored');
});

test.serial('one user’s commands in one batch keep their order', async (t) => {
  const { member, other } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id]);
  const m = await post(s, other, name, 'batch', 'order');
  const q = await register(s, member, { event_types: '["reaction","update_message_flags"]' });
  const settled = await burst(t, [
    sendCmd(other.id, name, 'warm-up'),
    reactCmd(member.id, m, 'add', 'eyes'),
    flagCmd(member.id, 'add', 'starred', [m]),
    reactCmd(member.id, m, 'remove', 'eyes'),
    flagCmd(member.id, 'remove', 'starred', [m]),
    reactCmd(member.id, m, 'add', 'eyes'),
    flagCmd(member.id, 'add', 'starred', [m]),
  ]);
  t.deepEqual(settled.map((x) => x.status), Array(7).fill('fulfilled'), 'each found the state the one before it left');
  t.deepEqual(await reactionsOf(member, m), [`${member.id}:eyes`]);
  t.true((await messageOf(member, m)).flags.includes('starred'));
  const seen = (await events(s, member, q.queue_id)).map((e) => `${e.type}:${e.op}`);
  t.deepEqual(seen, [
    'reaction:add',
    'update_message_flags:add',
    'reaction:remove',
    'update_message_flags:remove',
    'reaction:add',
    'update_message_flags:add',
  ]);
});

test('concurrent requests of every mixed-load kind over HTTP: each answered 200 with its own effect', async (t) => {
  const { member, other, admin } = await makeCast(s);
  const name = uniqueName();
  await makeChannel(s, name, [member.id, other.id, admin.id]);
  const ids = [await post(s, other, name, 'http', 'one'), await post(s, admin, name, 'http', 'two')];
  const users = [member, other, admin];
  const replies = await Promise.all(
    users.flatMap((u, i) => [
      s.client.as(u).post('/messages', { form: { type: 'stream', to: name, topic: 'http', content: `concurrent ${i}` } }),
      s.client.as(u).post('/users/me/presence', { form: { status: 'active', ping_only: 'true', new_user_input: 'true' } }),
      s.client.as(u).post('/messages/flags', { form: { messages: JSON.stringify(ids), op: 'add', flag: 'starred' } }),
      s.client.as(u).post(`/messages/${ids[i % 2]}/reactions`, { form: { emoji_name: 'rocket' } }),
    ]),
  );
  t.deepEqual(replies.map((r) => r.status), Array(12).fill(200), replies.map((r) => r.text).join('\n'));
  for (const u of users) for (const id of ids) t.true((await messageOf(u, id)).flags.includes('starred'));
  t.deepEqual(await reactionsOf(member, ids[0]!), [`${member.id}:rocket`, `${admin.id}:rocket`].sort());
  t.deepEqual(await reactionsOf(member, ids[1]!), [`${other.id}:rocket`]);
});
