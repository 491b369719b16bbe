// Muted users over HTTP: muting and unmuting, their errors, muted_users events and register section, messages of
// a muted user marked read (existing ones at once, new ones on arrival), and read receipts, which leave out the
// mutes in both directions.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { expectError } from '../helpers/errors.js';
import { verifyAction } from '../helpers/verify-action.js';
import { dm, makeChannel, post, register, setRealm, uniqueName } from '../messages/helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(() => s?.close());

const mute = (as: any, id: number) => s.client.as(as).post(`/users/me/muted_users/${id}`);
const unmute = (as: any, id: number) => s.client.as(as).delete(`/users/me/muted_users/${id}`);
const receipts = (as: any, id: number) => s.client.as(as).get(`/messages/${id}/read_receipts`);
const markRead = (as: any, ids: number[]) =>
  s.client.as(as).post('/messages/flags', { form: { op: 'add', flag: 'read', messages: JSON.stringify(ids) } });

test('muting marks the muted user\'s messages read, announces the list; unmuting announces it again', async (t) => {
  const me = await addUser(s);
  const noisy = await addUser(s);
  const a = await dm(s, noisy, [me.id], 'one');
  const b = await dm(s, noisy, [me.id], 'two');
  const eventTypes = ['muted_users', 'message', 'update_message_flags'];
  const events = await verifyAction(t, s, me, () => mute(me, noisy.id), { eventTypes });
  const flags = events.find((e) => e.type === 'update_message_flags');
  t.like(flags, { op: 'add', flag: 'read', all: false });
  t.deepEqual(flags!.messages, [a, b]);
  const muted = events.find((e) => e.type === 'muted_users')!;
  t.deepEqual(muted.muted_users.map((m: any) => m.id), [noisy.id]);
  t.true(Math.abs(muted.muted_users[0].timestamp - Date.now() / 1000) < 60);
  const snap = await register(s, me, { fetch_event_types: JSON.stringify(['muted_users']) });
  t.deepEqual(snap.muted_users, muted.muted_users);

  const again = await verifyAction(t, s, me, () => unmute(me, noisy.id), { eventTypes });
  t.deepEqual(again.find((e) => e.type === 'muted_users')!.muted_users, []);
});

test('a muted user\'s new messages arrive read: no unread count for the muter', async (t) => {
  const me = await addUser(s);
  const noisy = await addUser(s);
  const friend = await addUser(s);
  const name = uniqueName('mute');
  await makeChannel(s, name, [me.id, noisy.id, friend.id]);
  t.is((await mute(me, noisy.id)).status, 200);
  let fromNoisy = 0;
  const events = await verifyAction(t, s, me, async () => {
    fromNoisy = await post(s, noisy, name, 'topic', 'from the muted user');
    await dm(s, noisy, [me.id], 'direct from the muted user');
    await post(s, friend, name, 'topic', 'from a friend');
  }, { eventTypes: ['message', 'update_message_flags'] });
  const flags = events.filter((e) => e.type === 'message').map((e) => e.flags.includes('read'));
  t.deepEqual(flags, [true, true, false]);
  const snap = await register(s, me, { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) });
  t.is(snap.unread_msgs.count, 1, JSON.stringify(snap.unread_msgs));
  // Others who did not mute still get it unread.
  const theirs = await register(s, friend, { fetch_event_types: JSON.stringify(['message', 'update_message_flags']) });
  t.true(theirs.unread_msgs.streams.some((e: any) => e.unread_message_ids.includes(fromNoisy)));
});

test('mute errors: self, unknown user, twice; unmute of a user not muted; bots and deactivated users may be muted', async (t) => {
  const me = await addUser(s);
  const other = await addUser(s);
  const bot = await addUser(s, { isBot: true });
  const err = (r: any, msg: string) => expectError(t, r, msg);
  err(await mute(me, me.id), 'Cannot mute self');
  err(await mute(me, 999_999), 'No such user');
  err(await unmute(me, 999_999), 'No such user');
  err(await unmute(me, other.id), 'User is not muted');
  t.is((await mute(me, other.id)).status, 200);
  err(await mute(me, other.id), 'User already muted');
  t.is((await mute(me, bot.id)).status, 200);
  const gone = await addUser(s);
  await s.client.as(s.owner).delete(`/users/${gone.id}`);
  t.is((await mute(me, gone.id)).status, 200);
});

test('read receipts: readers who share them, never the sender, nor users muted by or muting the caller', async (t) => {
  const sender = await addUser(s);
  const [reader, shy, muter, mutedByMe, unread, me] = await Promise.all([1, 2, 3, 4, 5, 6].map(() => addUser(s)));
  const name = uniqueName('receipts');
  const everyone = [sender, reader!, shy!, muter!, mutedByMe!, unread!, me!];
  await makeChannel(s, name, everyone.map((u) => u.id));
  const id = await post(s, sender, name, 'topic', 'read me');
  t.is((await s.client.as(shy!).patch('/settings', { form: { send_read_receipts: 'false' } })).status, 200);
  for (const u of [reader!, shy!, muter!, mutedByMe!, me!]) t.is((await markRead(u, [id])).status, 200);
  await mute(muter!, me!.id);
  await mute(me!, mutedByMe!.id);
  const r = await receipts(me!, id);
  t.is(r.status, 200, r.text);
  t.deepEqual(r.json.user_ids, [reader!.id, me!.id].sort((a, b) => a - b));
  // The sender's view has everyone who shares receipts.
  t.deepEqual((await receipts(sender, id)).json.user_ids, [reader!.id, muter!.id, mutedByMe!.id, me!.id].sort((a, b) => a - b));
});

test.serial('read receipts: a message the caller cannot see is "Invalid message(s)"; the realm setting turns them off', async (t) => {
  const sender = await addUser(s);
  const partner = await addUser(s);
  const outsider = await addUser(s);
  const id = await dm(s, sender, [partner.id], 'private');
  expectError(t, await receipts(outsider, id), 'Invalid message(s)');
  t.is((await receipts(partner, 999_999_999)).json.msg, 'Invalid message(s)');
  await setRealm(s, { enable_read_receipts: false });
  try {
    expectError(t, await receipts(partner, id), 'Read receipts are disabled in this organization.');
  } finally {
    await setRealm(s, { enable_read_receipts: true });
  }
});
