// An all_public_streams queue follows its user's role at delivery: once the user is demoted to guest (who may
// not follow every public channel, Zulip's can_access_public_streams), the queue gets only what the user
// receives as a recipient; promoted back, it follows every public channel again.
import test from 'ava';
import { ROLE } from '../../src/model/realm.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

async function createChannel(name: string, subscribers: number[]): Promise<number> {
  const r = await s.client.as(s.owner).post('/channels/create', { form: { name, subscribers: JSON.stringify(subscribers) } });
  if (r.status !== 200) throw new Error(r.text);
  return r.json.id;
}

async function send(from: TestUser, form: Record<string, string>): Promise<void> {
  const r = await s.client.as(from).post('/messages', { form });
  if (r.status !== 200) throw new Error(r.text);
}

async function setRole(user: TestUser, role: number): Promise<void> {
  const r = await s.client.as(s.owner).patch(`/users/${user.id}`, { form: { role: String(role) } });
  if (r.status !== 200) throw new Error(r.text);
}

/** Message contents the queue holds once `marker` (a direct message to its user, sent last) has arrived. */
async function contentsUntil(user: TestUser, queueId: string, marker: string): Promise<string[]> {
  const seen: string[] = [];
  let last = -1;
  for (let i = 0; i < 200; i++) {
    const r = await s.client.as(user).get('/events', { query: { queue_id: queueId, last_event_id: String(last), dont_block: 'true' } });
    if (r.status !== 200) throw new Error(r.text);
    for (const e of r.json.events) {
      last = Math.max(last, e.id);
      if (e.type === 'message') seen.push(String(e.message.content));
    }
    if (seen.includes(marker)) return seen;
    await new Promise((res) => setTimeout(res, 25));
  }
  throw new Error(`${marker} never arrived; got ${JSON.stringify(seen)}`);
}

test('a queue with all_public_streams stops getting unsubscribed public channels once its user is a guest', async (t) => {
  const follower = await addUser(s, { role: ROLE.MEMBER, fullName: 'Fay Follower' });
  const poster = await addUser(s, { role: ROLE.MEMBER, fullName: 'Pat Poster' });
  const lobby = await createChannel('lobby', [poster.id]);
  const club = await createChannel('club', [poster.id, follower.id]);
  const q = await s.client.as(follower).post('/register', { form: { event_types: JSON.stringify(['message']), all_public_streams: 'true' } });
  t.is(q.status, 200, q.text);
  const queueId = q.json.queue_id as string;
  const dmMarker = (text: string) => send(poster, { type: 'direct', to: JSON.stringify([follower.id]), content: text });
  const toLobby = (text: string) => send(poster, { type: 'stream', to: String(lobby), topic: 'news', content: text });
  const toClub = (text: string) => send(poster, { type: 'stream', to: String(club), topic: 'news', content: text });

  // The control: as a member, the queue follows the public channel it is not subscribed to.
  await toLobby('lobby while member');
  await dmMarker('marker 1');
  t.true((await contentsUntil(follower, queueId, 'marker 1')).includes('lobby while member'));

  await setRole(follower, ROLE.GUEST);
  await toLobby('lobby after demotion');
  await toClub('club after demotion');
  await dmMarker('marker 2');
  const afterDemotion = await contentsUntil(follower, queueId, 'marker 2');
  t.false(afterDemotion.includes('lobby after demotion'), 'a guest queue still follows every public channel');
  t.true(afterDemotion.includes('club after demotion'), 'channels the guest is subscribed to still arrive');

  await setRole(follower, ROLE.MEMBER);
  await toLobby('lobby after promotion');
  await dmMarker('marker 3');
  t.true((await contentsUntil(follower, queueId, 'marker 3')).includes('lobby after promotion'));
});
