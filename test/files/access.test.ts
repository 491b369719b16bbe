// Who may download an upload: only its uploader until a message links it; then whoever can read that message
// (its recipients, or anyone who can read the channel's history); never outsiders or users of another realm.
import test from 'ava';
import { createRealm, createUser } from '../../src/realm/provision.js';
import { ROLE } from '../../src/model/realm.js';
import { createChannel, uniqueName } from '../channels/helpers.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { download, insertMessage, realmOf, upload } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

const status = async (url: string, who: TestUser) => (await download(s, url, who)).status;

test('only the uploader until a direct message links it; then its recipients, and nobody else', async (t) => {
  const [alice, bob, carol, eve] = [await addUser(s), await addUser(s), await addUser(s), await addUser(s)];
  const r = await upload(s, alice, 'secret.txt', 'for bob and carol');
  t.is(await status(r.url, alice), 200);
  t.is(await status(r.url, bob), 404);
  t.is((await download(s, r.url, null)).status, 401, 'no credentials: not logged in');

  await insertMessage(s, { senderId: alice.id, content: `see [secret.txt](${r.url})`, recipients: [bob.id, carol.id] });
  t.is(await status(r.url, bob), 200);
  t.is(await status(r.url, carol), 200);
  t.is((await download(s, r.url, carol)).text, 'for bob and carol');
  t.is(await status(r.url, eve), 404, 'not a recipient');
  const admin = await addUser(s, { role: ROLE.ADMINISTRATOR });
  t.is(await status(r.url, admin), 404, 'not even an administrator who did not receive it');
});

test('a link in someone else\'s message grants nothing the sender could not download', async (t) => {
  const [alice, mallory, bob] = [await addUser(s), await addUser(s), await addUser(s)];
  const r = await upload(s, alice, 'private.txt', 'alice only');
  // Mallory learned the URL somehow and sends it to Bob: Mallory could not download it, so the link counts for nothing.
  await insertMessage(s, { senderId: mallory.id, content: `look ${r.url}`, recipients: [bob.id] });
  t.is(await status(r.url, bob), 404);
  t.is(await status(r.url, mallory), 404);
  const listed = (await s.client.as(alice).get('/attachments')).json.attachments;
  t.deepEqual(listed[0].messages, []);
});

test('a recipient can share it on: access follows every message that links it', async (t) => {
  const [alice, bob, dave] = [await addUser(s), await addUser(s), await addUser(s)];
  const r = await upload(s, alice, 'chain.txt', 'pass it on');
  const first = await insertMessage(s, { senderId: alice.id, content: `[chain.txt](${r.url})`, recipients: [bob.id] });
  const second = await insertMessage(s, { senderId: bob.id, content: `fwd: http://127.0.0.1${r.url}`, recipients: [dave.id] });
  t.is(await status(r.url, dave), 200);
  const messages = (await s.client.as(alice).get('/attachments')).json.attachments[0].messages;
  t.deepEqual(messages.map((m: { id: number }) => m.id), [first, second]);
  t.true(messages.every((m: { date_sent: number }) => Math.abs(m.date_sent - Date.now()) < 60_000));
});

test('a public channel: every member may read its history, guests only when subscribed', async (t) => {
  const [alice, member, guest, subscribedGuest] = [
    await addUser(s),
    await addUser(s),
    await addUser(s, { role: ROLE.GUEST }),
    await addUser(s, { role: ROLE.GUEST }),
  ];
  const channel = await createChannel(s, s.owner, uniqueName('files'), [alice.id, subscribedGuest.id]);
  const r = await upload(s, alice, 'minutes.txt', 'public minutes');
  await insertMessage(s, { senderId: alice.id, content: `[minutes](${r.url})`, channelId: channel, topic: 'notes', recipients: [subscribedGuest.id] });
  t.is(await status(r.url, member), 200, 'not subscribed, but public history');
  t.is(await status(r.url, subscribedGuest), 200);
  t.is(await status(r.url, guest), 404);
});

test('a private channel with protected history: only those who received the message', async (t) => {
  const [alice, early, late, outsider] = [await addUser(s), await addUser(s), await addUser(s), await addUser(s)];
  const channel = await createChannel(s, s.owner, uniqueName('protected'), [alice.id, early.id], {
    invite_only: 'true',
    history_public_to_subscribers: 'false',
  });
  const r = await upload(s, alice, 'plan.txt', 'the plan');
  await insertMessage(s, { senderId: alice.id, content: `[plan](${r.url})`, channelId: channel, topic: 't', recipients: [early.id] });
  // `late` subscribes after the message was sent: no user_messages row, and the history is not theirs.
  const sub = await s.client.as(alice).post('/users/me/subscriptions', {
    form: { subscriptions: JSON.stringify([{ name: (await realmOf(s)).state.channels.byId.get(channel)!.name }]), principals: JSON.stringify([late.id]) },
  });
  t.is(sub.status, 200, sub.text);
  t.is(await status(r.url, early), 200);
  t.is(await status(r.url, late), 404);
  t.is(await status(r.url, outsider), 404);
});

test('a private channel with shared history: subscribers, including later ones', async (t) => {
  const [alice, later, outsider] = [await addUser(s), await addUser(s), await addUser(s)];
  const name = uniqueName('shared');
  const channel = await createChannel(s, s.owner, name, [alice.id], { invite_only: 'true', history_public_to_subscribers: 'true' });
  const r = await upload(s, alice, 'shared.txt', 'shared history');
  await insertMessage(s, { senderId: alice.id, content: `[shared](${r.url})`, channelId: channel, topic: 't', recipients: [] });
  t.is(await status(r.url, later), 404);
  const sub = await s.client.as(alice).post('/users/me/subscriptions', {
    form: { subscriptions: JSON.stringify([{ name }]), principals: JSON.stringify([later.id]) },
  });
  t.is(sub.status, 200, sub.text);
  t.is(await status(r.url, later), 200);
  t.is(await status(r.url, outsider), 404);
});

test('another realm: its users cannot download ours, even by URL, and ours cannot download theirs', async (t) => {
  const { db } = s.server.services;
  const otherUser = await db.tx(async (tx) => {
    const realm = await createRealm(tx, { stringId: 'elsewhere', name: 'Elsewhere' });
    const u = await createUser(tx, realm.id, { email: 'zed@elsewhere.test', fullName: 'Zed', role: ROLE.MEMBER, passwordHash: null });
    await tx.changes.record(null);
    return u;
  });
  const zed = { email: 'zed@elsewhere.test', apiKey: otherUser.apiKey };
  const elsewhere = s.client.withHost(`elsewhere.127.0.0.1:${s.port}`);
  for (let i = 0; i < 50 && (await elsewhere.get('/server_settings')).json?.realm_name !== 'Elsewhere'; i++) await new Promise((r) => setTimeout(r, 50));

  const alice = await addUser(s);
  const ours = await upload(s, alice, 'ours.txt', 'home realm');
  await insertMessage(s, { senderId: alice.id, content: `[ours](${ours.url})`, channelId: undefined, recipients: [alice.id] });
  const theirsRes = await elsewhere.as(zed).post('/user_uploads', { multipart: { file: new File(['away'], 'theirs.txt') } });
  t.is(theirsRes.status, 200, theirsRes.text);
  const theirs = theirsRes.json.url as string;
  t.regex(theirs, new RegExp(`^/user_uploads/${otherUser.realmId}/`));

  t.is((await elsewhere.as(zed).get(theirs, { root: true })).status, 200);
  t.is((await elsewhere.as(zed).get(ours.url, { root: true })).status, 404, 'our file through their host');
  t.is((await s.client.as(zed).get(ours.url, { root: true })).status, 401, 'their credentials on our host');
  t.is(await status(theirs, alice), 404, 'their file through our host');
});

test('a file linked in a message sent through POST /messages becomes readable by its recipients', async (t) => {
  const { startTestServer } = await import('../helpers/server.js');
  const { addUser } = await import('../helpers/users.js');
  const srv = await startTestServer();
  try {
    const sender = await addUser(srv, { fullName: 'Sender' });
    const recipient = await addUser(srv, { fullName: 'Recipient' });
    const outsider = await addUser(srv, { fullName: 'Outsider' });
    const up = await srv.client.as(sender).post('/user_uploads', { multipart: { file: new File([Buffer.from('hello attachment')], 'note.txt') } });
    t.is(up.status, 200);
    const url = up.json.url as string;
    t.is((await srv.client.as(recipient).get(url, { root: true })).status, 404, 'not readable before a message links it');
    const sent = await srv.client.as(sender).post('/messages', {
      form: { type: 'direct', to: JSON.stringify([recipient.id]), content: `[note.txt](${url})` },
    });
    t.is(sent.status, 200);
    const got = await srv.client.as(recipient).get(url, { root: true });
    t.is(got.status, 200);
    t.is(got.text, 'hello attachment');
    t.is((await srv.client.as(outsider).get(url, { root: true })).status, 404, 'never for outsiders');
  } finally {
    await srv.close();
  }
});
