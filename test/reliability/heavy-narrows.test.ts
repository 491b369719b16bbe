// Narrows without limits against a child server with a large history: oversized narrows are refused (400), a
// worst-case narrow does not hold up unrelated requests, and a SIGTERM while many run still saves every event queue
// in time; at the next start a saved queue that no longer resolves is dropped on its own and the rest are restored.
import test from 'ava';
import type { Credentials } from '../helpers/http.js';
import { addUsers, login, makeChannel, openSite, until, type ChildServer, type Site, type SiteUser } from './child-server.js';

/** Channel messages the owner received: enough that a narrow matching none of them scans for seconds. */
const HISTORY = 30_000;
/** The topic of every message of that history. */
const TOPIC = 'the one long-running discussion of this history';
let site: Site;
let server: ChildServer;
let owner: Credentials;
let users: SiteUser[];

test.before(async () => {
  site = await openSite({ env: { SHUTDOWN_TIMEOUT_MS: '2000', LARGE_FETCH_PER_USER: '100' } });
  // One core per query (no parallel workers): the heavy narrows take long without taking the whole machine from the
  // test files running beside this one.
  const admin = await site.connect();
  try {
    await admin.db.none('ALTER DATABASE $1:name SET max_parallel_workers_per_gather = 0', [(await admin.db.one('SELECT current_database() AS d')).d]);
  } finally {
    await admin.close();
  }
  server = await site.start();
  owner = await login(server.client);
  users = await addUsers(site, server, 2);
  const channelId = await makeChannel(server, owner, 'history', []);
  const { db, close } = await site.connect();
  try {
    const me = await db.one('SELECT id, realm_id FROM users WHERE email = $1', [owner.email]);
    await db.none(
      `WITH m AS (
         INSERT INTO messages (realm_id, sender_id, recipient_kind, stream_id, topic, content, rendered_content)
         SELECT $1, $2, 'stream', $4, $5, 'note ' || g, '<p>note ' || g || '</p>'
           FROM generate_series(1, $3) g
         RETURNING id)
       INSERT INTO user_messages (user_id, message_id, flags) SELECT $2, id, 1 FROM m`,
      [me.realm_id, me.id, HISTORY, channelId, TOPIC],
    );
    await db.none('ANALYZE messages; ANALYZE user_messages');
  } finally {
    await close();
  }
});
test.after.always(async () => {
  await server?.kill('SIGKILL');
  await site?.close();
});

/** A worst narrow within the limits: as many long negated topics as allowed, the last one the history's topic, so
 *  that no message matches and every message is compared with every term before it is rejected. */
function worstNarrow(seed: number): string {
  const terms: unknown[] = Array.from({ length: 99 }, (_, i) => ({ operator: 'topic', operand: `t${seed}-${i}-${'x'.repeat(900)}`, negated: true }));
  terms.push({ operator: 'topic', operand: TOPIC, negated: true });
  return JSON.stringify(terms);
}

function heavyFetch(seed: number) {
  return server.client.as(owner).request('GET', '/messages', {
    form: { anchor: 'newest', num_before: '50', num_after: '0', narrow: worstNarrow(seed) },
  });
}

test.serial('narrows past the limits are 400 envelopes, not 500s', async (t) => {
  const negated = JSON.stringify(Array.from({ length: 100_001 }, (_, i) => ({ operator: 'sender', operand: i + 1, negated: true })));
  const many = await server.client.as(owner).request('GET', '/messages', { form: { anchor: 'newest', num_before: '1', num_after: '0', narrow: negated } });
  t.is(many.status, 400);
  t.is(many.json.result, 'error');
  t.is(many.json.msg, 'Invalid narrow operator: too many terms (limit: 100)');
  const long = JSON.stringify([{ operator: 'search', operand: 'w'.repeat(1001) }]);
  const r = await server.client.as(owner).request('GET', '/messages', { form: { anchor: 'newest', num_before: '1', num_after: '0', narrow: long } });
  t.is(r.status, 400);
  t.regex(r.json.msg, /operand is too long \(limit: 1000 characters\)/);
  const dm = JSON.stringify([{ operator: 'dm', operand: Array.from({ length: 1001 }, (_, i) => i + 1) }]);
  const d = await server.client.as(owner).request('GET', '/messages', { form: { anchor: 'newest', num_before: '1', num_after: '0', narrow: dm } });
  t.is(d.status, 400);
  t.regex(d.json.msg, /too many users/);
});

test.serial('an unrelated request is answered while ten worst-case narrows run', async (t) => {
  const order: string[] = [];
  const heavy = Array.from({ length: 10 }, (_, i) =>
    heavyFetch(i).then((r) => {
      order.push('heavy');
      return r;
    }),
  );
  // The unrelated request reads the database too (the newest messages, no narrow).
  await new Promise((r) => setTimeout(r, 200));
  const light = await server.client.as(users[0]!).get('/messages', { query: { anchor: 'newest', num_before: '5', num_after: '0' } });
  order.push('light');
  t.is(light.status, 200);
  const answers = await Promise.all(heavy);
  // Each heavy narrow got an answer: its messages, or a 503 the client may retry (statement timeout, slots full).
  for (const a of answers) t.true(a.status === 200 || (a.status === 503 && a.json.code === 'SERVICE_UNAVAILABLE'), a.text.slice(0, 200));
  // Heavy narrows run a few at a time, so the pool keeps connections for everyone else: the light request is not
  // queued behind them.
  t.is(order[0], 'light', `answers in order ${order.join(', ')}`);
});

test.serial('SIGTERM during heavy narrows saves every queue; at the next start a queue that no longer resolves is dropped alone', async (t) => {
  const [alice, bob] = users as [SiteUser, SiteUser];
  const register = async (who: Credentials, form: Record<string, string> = {}) => {
    const r = await server.client.as(who).post('/register', { form: { event_types: '["message"]', ...form } });
    t.is(r.status, 200, r.text);
    return r.json.queue_id as string;
  };
  const good = [await register(owner), await register(alice), await register(bob, { narrow: JSON.stringify([['is', 'dm']]) })];
  const bad = await register(alice, { narrow: JSON.stringify([['sender', bob.email]]) });

  const heavy = Array.from({ length: 10 }, (_, i) => heavyFetch(100 + i).catch(() => null));
  const { db, close } = await site.connect();
  try {
    // Wait until the heavy narrows are running in the database, then stop the server.
    await until(async () => (await db.one("SELECT count(*)::int AS n FROM pg_stat_activity WHERE state = 'active' AND query LIKE '%statement_timeout%'")).n >= 2, 'heavy narrows running');
    await server.kill('SIGTERM');
    t.is(await server.exited, 0, `a clean exit within the shutdown deadline:\n${server.output().slice(-2000)}`);
    await Promise.all(heavy);
    const saved = await db.map('SELECT queue_id FROM event_queue_dumps ORDER BY queue_id', [], (r) => r.queue_id as string);
    t.deepEqual(saved, [...good, bad].sort());
    // Bob's address changes while the server is down: the queue narrowed to his old address no longer resolves.
    await db.none("UPDATE users SET email = 'renamed-' || email WHERE id = $1", [bob.id]);
  } finally {
    await close();
  }

  server = await site.start();
  const renamedBob = { email: `renamed-${bob.email}`, apiKey: bob.apiKey };
  for (const [who, queueId] of [[owner, good[0]], [alice, good[1]], [renamedBob, good[2]]] as const) {
    const r = await server.client.as(who).get('/events', { query: { queue_id: queueId!, last_event_id: '-1', dont_block: 'true' } });
    t.is(r.status, 200, `queue ${queueId} restored: ${r.text}`);
  }
  const dropped = await server.client.as(alice).get('/events', { query: { queue_id: bad, last_event_id: '-1', dont_block: 'true' } });
  t.is(dropped.status, 400);
  t.is(dropped.json.code, 'BAD_EVENT_QUEUE_ID');
  t.regex(server.output(), new RegExp(`"queueId":"${bad}".*saved event queue not restored`));
  const again = await site.connect();
  try {
    t.is((await again.db.one('SELECT count(*)::int AS n FROM event_queue_dumps')).n, 0, 'restored and dropped dumps are removed');
  } finally {
    await again.close();
  }
});
