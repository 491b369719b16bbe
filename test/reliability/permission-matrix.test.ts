// The permission matrix: every endpoint of the route table × role (owner, administrator, moderator, member,
// guest, bot, deactivated user, user of another realm, spectator) × object visibility (public, private
// subscribed, private unsubscribed, web-public, archived channel), asserting "allowed" or the exact error; and
// nothing of a channel — message, topic, upload, name — in any reply to someone who may not read it.
import test from 'ava';
import { endpoints } from '../../src/http/routes/index.js';
import { ROLE } from '../../src/model/realm.js';
import type { Credentials, Response } from '../helpers/http.js';
import { addUser } from '../helpers/users.js';
import {
  DEACTIVATED, INVALID_API_KEY, NOT_LOGGED_IN, OK, contentAccess, describe, metadataAccess, observed, satisfies, type Outcome,
} from './matrix/outcomes.js';
import { rows, type Row } from './matrix/rows.js';
import { ACTIVE, ROLES, VISIBILITIES, buildWorld, type ActiveRole, type RoleName, type World } from './matrix/world.js';

/** Endpoints deliberately without a row, and why. */
const EXCLUDED: Record<string, string> = {};

let w: World;
test.before(async () => {
  w = await buildWorld();
});
test.after.always(async () => w?.s.close());

const key = (method: string, path: string) => `${method} ${path}`;
const endpointByKey = new Map(endpoints.map((e) => [key(e.method, e.path), e]));

test('every endpoint of the route table has a row in the matrix (or a justified exclusion)', (t) => {
  const covered = new Set([...rows.map((r) => key(r.method, r.path)), ...Object.keys(EXCLUDED)]);
  const missing = [...endpointByKey.keys()].filter((k) => !covered.has(k));
  t.deepEqual(missing, [], 'endpoints without a matrix row');
  const stale = [...covered].filter((k) => !endpointByKey.has(k));
  t.deepEqual(stale, [], 'rows for endpoints that no longer exist');
});

// A small pool: the matrix makes a few thousand requests on a shared machine.
let running = 0;
const waiting: (() => void)[] = [];
async function limited<T>(fn: () => Promise<T>): Promise<T> {
  if (running >= 6) await new Promise<void>((r) => waiting.push(r));
  running++;
  try {
    return await fn();
  } finally {
    running--;
    waiting.shift()?.();
  }
}

/** The outcome the auth layer decides before any row-specific rule: for roles that do not authenticate here. */
function authOutcome(auth: string, role: RoleName): Outcome | undefined {
  if (auth !== 'user' && auth !== 'optional') return undefined;
  if (role === 'deactivated') return DEACTIVATED;
  if (role === 'otherRealm') return INVALID_API_KEY;
  if (role === 'spectator' && auth === 'user') return NOT_LOGGED_IN;
  return undefined;
}

/** Strings of the channels the role may not read (and names of those it may not know) that no reply may carry. */
function forbidden(role: RoleName): string[] {
  if (!(ACTIVE as readonly string[]).includes(role) && role !== 'spectator') return [];
  const r = role as ActiveRole | 'spectator';
  const out: string[] = [];
  for (const v of VISIBILITIES) {
    const ch = w.channels[v];
    if (!contentAccess(r, v)) out.push(ch.secret, ch.topic, ch.uploadUrl);
    if (!metadataAccess(r, v)) out.push(ch.name);
  }
  return out;
}

async function actorFor(row: Row, role: RoleName): Promise<Credentials | null> {
  if (!row.disposableActor || !(ACTIVE as readonly string[]).includes(role)) return w.creds(role);
  const roleCode = { owner: ROLE.OWNER, admin: ROLE.ADMINISTRATOR, moderator: ROLE.MODERATOR, member: ROLE.MEMBER, guest: ROLE.GUEST, bot: ROLE.MEMBER }[role as ActiveRole];
  return addUser(w.s, { role: roleCode, isBot: role === 'bot', fullName: `Disposable ${role}` });
}

/** Rows that change one realm-wide list (linkifiers, channel folders) run one at a time, so an ordering request
 *  sees the list it was built from. */
const locks = new Map<string, Promise<void>>();
async function withLock<T>(name: string | undefined, fn: () => Promise<T>): Promise<T> {
  if (!name) return fn();
  const before = locks.get(name) ?? Promise.resolve();
  let release!: () => void;
  const mine = new Promise<void>((r) => (release = r));
  locks.set(name, before.then(() => mine));
  await before;
  try {
    return await fn();
  } finally {
    release();
  }
}

for (const row of rows) {
  const e = endpointByKey.get(key(row.method, row.path));
  test(`${row.method} ${row.path}${row.label ? ` (${row.label})` : ''}`, (t) => withLock(row.lock, async () => {
    if (!e) return t.fail('no such endpoint');
    const problems: string[] = [];
    const cases = row.cases ?? ['-'];
    const jobs: Promise<void>[] = [];
    for (const role of ROLES) {
      for (const c of cases) {
        jobs.push(
          limited(async () => {
            const fromAuth = authOutcome(e.auth, role);
            const expected = fromAuth ?? row.expect(role, c);
            // Requests the auth layer refuses need no real object: the route's own path will do.
            const call = fromAuth ? { path: row.path.replace(/\{\w+\}/g, '1'), root: e.root } : await row.request(w, role, c);
            const creds = fromAuth ? w.creds(role) : await actorFor(row, role);
            const client = creds ? w.s.client.as(creds) : w.s.client;
            const res: Response = await client.request(row.method, call.path, call);
            const actual = observed(res);
            const label = `${role}${c === '-' ? '' : ` × ${c}`}`;
            if (!satisfies(actual, expected, !e.root && row.method !== 'HEAD')) problems.push(`${label}: expected ${describe(expected)}, got ${describe(actual)}`);
            const sent = JSON.stringify(call);
            for (const secret of forbidden(role)) {
              if (!sent.includes(secret) && res.text.includes(secret)) problems.push(`${label}: reply leaks ${JSON.stringify(secret)}`);
            }
          }),
        );
      }
    }
    await Promise.all(jobs);
    t.deepEqual(problems, []);
  }));
}

// Leaks checked one by one: the ways a private channel's content could reach someone not entitled to it.

const narrowOf = (...terms: [string, unknown][]) => JSON.stringify(terms.map(([operator, operand]) => ({ operator, operand })));

test('narrows naming a private channel by ID or name, its topic, or a word of it return nothing to outsiders', async (t) => {
  const ch = w.channels.privUnsub;
  const narrows = [
    narrowOf(['channel', ch.id]),
    narrowOf(['channel', ch.name]),
    narrowOf(['channel', ch.id], ['topic', ch.topic]),
    narrowOf(['search', ch.secret]),
    narrowOf(['channel', ch.id], ['search', ch.secret]),
    narrowOf(['topic', ch.topic]),
    narrowOf(['channels', 'public']),
    narrowOf(),
  ];
  for (const role of ['owner', 'admin', 'moderator', 'member', 'guest', 'bot'] as const) {
    for (const narrow of narrows) {
      const r = await w.client(role).get('/messages', { query: { anchor: 'newest', num_before: '100', num_after: '0', narrow } });
      if (r.status === 200) t.false(r.json.messages.some((m: { id: number }) => m.id === ch.messageId), `${role} ${narrow}`);
      t.false(r.text.includes(ch.secret) || r.text.includes(`"${ch.topic}"`), `${role} ${narrow}: ${r.text.slice(0, 200)}`);
    }
    const byId = await w.client(role).get('/messages', { query: { message_ids: JSON.stringify([ch.messageId]) } });
    t.false(byId.text.includes(ch.secret), `${role}: message_ids`);
  }
});

test('matches_narrow with a search does not highlight, or even list, a message the user may not read', async (t) => {
  const ch = w.channels.privUnsub;
  for (const role of ['owner', 'admin', 'member', 'guest'] as const) {
    const r = await w.client(role).get('/messages/matches_narrow', { query: { msg_ids: JSON.stringify([ch.messageId]), narrow: narrowOf(['search', ch.secret]) } });
    t.is(r.status, 200);
    t.deepEqual(r.json.messages, {}, role);
  }
  // The positive control: a subscriber gets the highlighted match.
  const own = await w.client('member').get('/messages/matches_narrow', {
    query: { msg_ids: JSON.stringify([w.channels.privSub.messageId]), narrow: narrowOf(['search', w.channels.privSub.secret]) },
  });
  t.regex(own.json.messages[w.channels.privSub.messageId].match_content, /<span class="highlight">/);
});

test('register snapshots (everything, subscribers included) carry nothing of channels the user may not read', async (t) => {
  for (const role of ['owner', 'admin', 'moderator', 'member', 'guest', 'bot', 'spectator'] as const) {
    const form: Record<string, string> = role === 'spectator' ? {} : { include_subscribers: 'true' };
    const r = await w.client(role).post('/register', { form });
    t.is(r.status, 200, `${role}: ${r.text.slice(0, 200)}`);
    for (const secret of forbidden(role)) t.false(r.text.includes(secret), `${role}'s snapshot carries ${secret}`);
    if (r.json?.queue_id) await w.client(role).delete('/events', { form: { queue_id: r.json.queue_id } });
  }
});

async function drain(role: 'member' | 'admin', queueId: string, until: (events: any[]) => boolean): Promise<any[]> {
  const all: any[] = [];
  let last = -1;
  for (let i = 0; i < 100; i++) {
    const r = await w.client(role).get('/events', { query: { queue_id: queueId, last_event_id: String(last), dont_block: 'true' } });
    for (const e of r.json.events) {
      all.push(e);
      last = Math.max(last, e.id);
    }
    if (until(all)) return all;
    await new Promise((res) => setTimeout(res, 50));
  }
  return all;
}

const messageEvents = (events: any[]) => events.filter((e) => e.type === 'message');
const hasContent = (needle: string) => (events: any[]) => messageEvents(events).some((e) => String(e.message.content).includes(needle));

test('a queue registered before its user was removed from a private channel stops getting its messages', async (t) => {
  const owner = w.client('owner');
  const made = await owner.post('/channels/create', {
    form: { name: 'removal room', invite_only: 'true', subscribers: JSON.stringify([w.users.keeper.id, w.users.member.id]) },
  });
  const channelId = made.json.id as number;
  const q = await w.client('member').post('/register', { form: { event_types: JSON.stringify(['message']) } });
  const keeper = w.s.client.as(w.users.keeper);
  await keeper.post('/messages', { form: { type: 'channel', to: String(channelId), topic: 'before', content: 'while subscribed' } });
  t.true(hasContent('while subscribed')(await drain('member', q.json.queue_id, hasContent('while subscribed'))), 'the control: delivered while subscribed');

  const removed = await owner.delete('/users/me/subscriptions', {
    form: { subscriptions: JSON.stringify(['removal room']), principals: JSON.stringify([w.users.member.id]) },
  });
  t.is(removed.status, 200, removed.text);
  await keeper.post('/messages', { form: { type: 'channel', to: String(channelId), topic: 'after', content: 'rumour after removal' } });
  // A direct message sent after it marks the point by which the channel message would have arrived.
  await keeper.post('/messages', { form: { type: 'direct', to: JSON.stringify([w.users.member.id]), content: 'marker after removal' } });
  const events = await drain('member', q.json.queue_id, hasContent('marker after removal'));
  t.true(hasContent('marker after removal')(events));
  t.false(hasContent('rumour after removal')(events), 'the removed user heard the channel');
  t.false(JSON.stringify(events).includes('rumour after removal'));
});

test('all_public_streams queues get public channels only, never private ones; guests and spectators may not ask', async (t) => {
  const register = (role: RoleName) => w.client(role).post('/register', { form: { event_types: JSON.stringify(['message']), all_public_streams: 'true' } });
  const member = await register('member');
  const admin = await register('admin');
  for (const role of ['guest', 'spectator'] as const) {
    t.like((await register(role)).json, { result: 'error', code: 'BAD_REQUEST', msg: 'User not authorized for this query' }, role);
  }
  const keeper = w.s.client.as(w.users.keeper);
  await keeper.post('/messages', { form: { type: 'channel', to: String(w.channels.privUnsub.id), topic: 'x', content: 'aps private whisper' } });
  await keeper.post('/messages', { form: { type: 'channel', to: String(w.channels.public.id), topic: 'x', content: 'aps public news' } });
  for (const [role, q] of [['member', member], ['admin', admin]] as const) {
    const events = await drain(role, q.json.queue_id, hasContent('aps public news'));
    t.true(hasContent('aps public news')(events), `${role} gets the public channel`);
    t.false(hasContent('aps private whisper')(events), `${role} gets the private channel`);
  }
});

test('a user of another realm, at its own realm, cannot reach our channels, messages or uploads by ID', async (t) => {
  const other = w.other.client.as(w.other.creds);
  for (const v of VISIBILITIES) {
    const ch = w.channels[v];
    t.like((await other.get(`/streams/${ch.id}`)).json, { code: 'BAD_REQUEST', msg: 'Invalid channel ID' }, v);
    t.like((await other.get(`/streams/${ch.id}/members`)).json, { code: 'BAD_REQUEST', msg: 'Invalid channel ID' }, v);
    t.like((await other.get(`/users/me/${ch.id}/topics`)).json, { code: 'BAD_REQUEST', msg: 'Invalid channel ID' }, v);
    t.like((await other.get(`/messages/${ch.messageId}`)).json, { code: 'BAD_REQUEST', msg: 'Invalid message(s)' }, v);
    t.is((await other.get(ch.uploadUrl, { root: true })).status, 404, v);
    const narrowed = await other.get('/messages', { query: { anchor: 'newest', num_before: '10', num_after: '0', narrow: narrowOf(['search', ch.secret]) } });
    t.false(narrowed.text.includes(ch.secret), v);
  }
});

test('spectators: web-public channels only, and only while the realm allows spectators', async (t) => {
  const spectator = w.s.client;
  t.is((await spectator.get(`/users/me/${w.channels.webPublic.id}/topics`)).status, 200);
  for (const v of ['public', 'privSub', 'privUnsub', 'archived'] as const) {
    t.like((await spectator.get(`/users/me/${w.channels[v].id}/topics`)).json, { code: 'BAD_REQUEST', msg: 'Invalid channel ID' }, v);
  }
  t.is((await spectator.get(w.channels.webPublic.uploadUrl, { root: true })).status, 401, 'downloads need credentials');
});

test('spectator GET /messages: whatever the web-public narrow, only web-public channels’ messages come back', async (t) => {
  const spectator = w.s.client;
  const web = w.channels.webPublic;
  const others = (['public', 'privSub', 'privUnsub', 'archived'] as const).map((v) => w.channels[v]);
  const webPublic: [string, unknown] = ['channels', 'web-public'];
  const narrows = [
    narrowOf(webPublic),
    narrowOf(['channel', web.id]),
    narrowOf(['channel', web.name]),
    narrowOf(webPublic, ['channels', 'public']),
    narrowOf(webPublic, ['sender', w.users.keeper.id]),
    narrowOf(webPublic, ['sender', w.users.keeper.email]),
    narrowOf(webPublic, ['has', 'link']),
    narrowOf(webPublic, ['near', String(web.messageId)]),
    ...others.flatMap((ch) => [
      narrowOf(webPublic, ['topic', ch.topic]),
      narrowOf(webPublic, ['search', ch.secret]),
      narrowOf(webPublic, ['id', ch.messageId]),
      narrowOf(['channel', web.id], ['id', ch.messageId]),
      narrowOf(webPublic, ['with', ch.messageId]),
      narrowOf(['channel', web.id], ['topic', web.topic], ['with', ch.messageId]),
    ]),
    narrowOf(webPublic, ['id', w.directMessageId]),
    narrowOf(['channel', web.id], ['topic', web.topic], ['with', w.directMessageId]),
  ];
  const allIds = [web.messageId, w.directMessageId, ...others.map((ch) => ch.messageId)];
  let answered = 0;
  for (const narrow of narrows) {
    const queries: Record<string, string>[] = [
      { anchor: 'newest', num_before: '100', num_after: '0', narrow },
      { anchor: 'oldest', num_before: '0', num_after: '100', narrow },
      { message_ids: JSON.stringify(allIds), narrow },
    ];
    for (const query of queries) {
      const r = await spectator.get('/messages', { query });
      t.true(r.status === 200 || r.status === 400, `${narrow}: ${r.status} ${r.text.slice(0, 200)}`);
      if (r.status === 200) {
        answered++;
        for (const m of r.json.messages) {
          t.is(m.stream_id, web.id, `${narrow}: message ${m.id} of channel ${m.stream_id}`);
          t.deepEqual(m.flags, ['read']);
        }
      }
      for (const ch of others) {
        for (const secret of [ch.secret, ch.uploadUrl, `"${ch.topic}"`, ch.name]) {
          if (!narrow.includes(secret)) t.false(r.text.includes(secret), `${narrow} leaks ${secret}`);
        }
      }
      t.false(r.text.includes('just for you'), `${narrow} leaks the direct message`);
    }
  }
  // The positive control: the web-public channel's message is there.
  const all = await spectator.get('/messages', { query: { anchor: 'newest', num_before: '100', num_after: '0', narrow: narrowOf(webPublic) } });
  t.true(all.json.messages.some((m: { id: number; content: string }) => m.id === web.messageId && m.content.includes(web.secret)));
  t.true(answered > narrows.length);
  // By ID: only the web-public channel's message; the rest is the missing-login error, existing or not.
  t.is((await spectator.get(`/messages/${web.messageId}`)).json.message.flags.join(), 'read');
  for (const id of [...others.map((ch) => ch.messageId), w.directMessageId, 999_999_999]) {
    const r = await spectator.get(`/messages/${id}`);
    t.like(r.json, { result: 'error', code: 'UNAUTHORIZED', msg: 'Not logged in: API authentication or user session required' }, String(id));
    t.is(r.status, 401);
  }
});
