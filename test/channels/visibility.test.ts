// Who may see and do what, role by role: owner, administrator, moderator, member (a subscriber), another
// member (not subscribed to the private channel), guest, and spectator; for a public, a private and a
// web-public channel.
import test from 'ava';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createChannel, insertMessages, makeCast, setRealmSettings, uniqueName, type Cast } from './helpers.js';

let s: TestServer;
let cast: Cast;
let pub: number;
let priv: number;
let web: number;

type Who = 'owner' | 'admin' | 'moderator' | 'member' | 'nonSubscriber' | 'guest' | 'spectator';
const ALL: Who[] = ['owner', 'admin', 'moderator', 'member', 'nonSubscriber', 'guest', 'spectator'];

test.before(async () => {
  s = await startTestServer();
  cast = await makeCast(s);
  await setRealmSettings(s, { enable_spectator_access: true });
  pub = await createChannel(s, cast.member, 'public square', [cast.member.id]);
  priv = await createChannel(s, cast.member, 'back room', [cast.member.id], { invite_only: 'true' });
  web = await createChannel(s, cast.owner, 'town hall', [cast.owner.id], { is_web_public: 'true' });
  for (const id of [pub, priv, web]) await insertMessages(s, id, 'news', 1, { senderId: cast.member.id, recipients: [cast.member.id, cast.owner.id] });
});
test.after.always(() => s?.close());

function as(who: Who): Credentials | null {
  const map: Record<Exclude<Who, 'spectator'>, Credentials> = {
    owner: cast.owner,
    admin: cast.admin,
    moderator: cast.moderator,
    member: cast.member,
    nonSubscriber: cast.other,
    guest: cast.guest,
  };
  return who === 'spectator' ? null : map[who];
}

function client(who: Who) {
  const creds = as(who);
  return creds ? s.client.as(creds) : s.client;
}

/** 'ok' for success, else the error's msg. */
async function outcome(r: Promise<{ status: number; json: any }>): Promise<string> {
  const res = await r;
  return res.status === 200 ? 'ok' : res.json.msg;
}

const INVALID = 'Invalid channel ID';
const NOT_LOGGED_IN = 'Not logged in: API authentication or user session required';

test('GET /streams/{id}: the public channel', async (t) => {
  const expected: Record<Who, string> = {
    owner: 'ok', admin: 'ok', moderator: 'ok', member: 'ok', nonSubscriber: 'ok', guest: INVALID, spectator: INVALID,
  };
  for (const who of ALL) t.is(await outcome(client(who).get(`/streams/${pub}`)), expected[who], who);
});

test('GET /streams/{id}: the private channel is known to its subscribers and administrators only', async (t) => {
  const expected: Record<Who, string> = {
    owner: 'ok', admin: 'ok', moderator: INVALID, member: 'ok', nonSubscriber: INVALID, guest: INVALID, spectator: INVALID,
  };
  for (const who of ALL) t.is(await outcome(client(who).get(`/streams/${priv}`)), expected[who], who);
});

test('GET /streams/{id}: the web-public channel is visible to everyone, spectators included', async (t) => {
  for (const who of ALL) t.is(await outcome(client(who).get(`/streams/${web}`)), 'ok', who);
});

test('GET /streams: what each one lists by default', async (t) => {
  const expected: Record<Who, number[]> = {
    owner: [pub, web],
    admin: [pub, web],
    moderator: [pub, web],
    member: [pub, priv, web],
    nonSubscriber: [pub, web],
    guest: [],
    spectator: [web],
  };
  for (const who of ALL) {
    const r = await client(who).get('/streams');
    const listed = r.json.streams.map((c: any) => c.stream_id).filter((id: number) => [pub, priv, web].includes(id));
    t.deepEqual(listed.sort(), expected[who].sort(), who);
  }
});

test('subscribers of the private channel: those who know it exists', async (t) => {
  const expected: Record<Who, string> = {
    owner: 'ok', admin: 'ok', moderator: INVALID, member: 'ok', nonSubscriber: INVALID, guest: INVALID, spectator: NOT_LOGGED_IN,
  };
  for (const who of ALL) t.is(await outcome(client(who).get(`/streams/${priv}/members`)), expected[who], who);
});

test('topics: content access (administrators do not read private channels they are not in)', async (t) => {
  const cases: [number, Record<Who, string>][] = [
    [pub, { owner: 'ok', admin: 'ok', moderator: 'ok', member: 'ok', nonSubscriber: 'ok', guest: INVALID, spectator: INVALID }],
    [priv, { owner: INVALID, admin: INVALID, moderator: INVALID, member: 'ok', nonSubscriber: INVALID, guest: INVALID, spectator: INVALID }],
    [web, { owner: 'ok', admin: 'ok', moderator: 'ok', member: 'ok', nonSubscriber: 'ok', guest: 'ok', spectator: 'ok' }],
  ];
  for (const [id, expected] of cases) {
    for (const who of ALL) t.is(await outcome(client(who).get(`/users/me/${id}/topics`)), expected[who], `${who} ${id}`);
  }
  t.deepEqual((await client('spectator').get(`/users/me/${web}/topics`)).json.topics.map((x: any) => x.name), ['news']);
});

test('subscribing oneself: any non-guest to a public channel; nobody uninvited to a private one', async (t) => {
  const open = uniqueName('open door');
  await createChannel(s, cast.member, open, [cast.member.id]);
  const form = (name: string) => ({ form: { subscriptions: JSON.stringify([{ name }]) } });
  const openExpected: Record<Who, string> = {
    owner: 'ok', admin: 'ok', moderator: 'ok', member: 'ok', nonSubscriber: 'ok', guest: `Unable to access channel (${open}).`, spectator: NOT_LOGGED_IN,
  };
  for (const who of ALL) t.is(await outcome(client(who).post('/users/me/subscriptions', form(open))), openExpected[who], who);
  const closed = 'back room';
  const closedExpected: Record<Who, string> = {
    owner: `Unable to access channel (${closed}).`,
    admin: `Unable to access channel (${closed}).`,
    moderator: `Unable to access channel (${closed}).`,
    member: 'ok',
    nonSubscriber: `Unable to access channel (${closed}).`,
    guest: `Unable to access channel (${closed}).`,
    spectator: NOT_LOGGED_IN,
  };
  for (const who of ALL) t.is(await outcome(client(who).post('/users/me/subscriptions', form(closed))), closedExpected[who], who);
});

test('changing a channel: organization administrators and the channel’s administrators', async (t) => {
  const NO = 'You do not have permission to administer this channel.';
  const cases: [number, Record<Who, string>][] = [
    [pub, { owner: 'ok', admin: 'ok', moderator: NO, member: 'ok', nonSubscriber: NO, guest: INVALID, spectator: NOT_LOGGED_IN }],
    [priv, { owner: 'ok', admin: 'ok', moderator: INVALID, member: 'ok', nonSubscriber: INVALID, guest: INVALID, spectator: NOT_LOGGED_IN }],
  ];
  for (const [id, expected] of cases) {
    for (const who of ALL) {
      t.is(await outcome(client(who).patch(`/streams/${id}`, { form: { description: `by ${who}` } })), expected[who], `${who} ${id}`);
    }
  }
});

test('deleting a topic: organization administrators only', async (t) => {
  const id = await createChannel(s, cast.owner, uniqueName('deletable'), [cast.owner.id, cast.guest.id]);
  const MUST = 'Must be an organization administrator';
  const expected: Record<Who, string> = {
    owner: 'ok', admin: 'ok', moderator: MUST, member: MUST, nonSubscriber: MUST, guest: MUST, spectator: NOT_LOGGED_IN,
  };
  for (const who of ALL) {
    const r = await client(who).post(`/streams/${id}/delete_topic`, { form: { topic_name: 'anything' } });
    t.is(r.status === 200 ? 'ok' : r.json.msg, expected[who], who);
    if (r.status === 200) t.true(r.json.complete);
    else if (who !== 'spectator') t.is(r.json.code, 'UNAUTHORIZED_PRINCIPAL');
  }
});
