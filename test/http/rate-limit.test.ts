// Rate limits over HTTP: per user, per IP, password attempts; 429 with retry-after and the headers; long-polls free.
import test from 'ava';
import { RateLimiter } from '../../src/http/rate-limit.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer({ env: { RATE_LIMIT_USER: '5/60', RATE_LIMIT_IP: '20/3600', RATE_LIMIT_PASSWORD: '4/600' } });
});
test.after.always(async () => s?.close());

test('an authenticated user gets the limit, then a 429 with retry-after and headers', async (t) => {
  const u = await addUser(s);
  const replies = [];
  for (let i = 0; i < 6; i++) replies.push(await s.client.get('/users/me', { auth: u }));
  t.deepEqual(replies.map((r) => r.status), [200, 200, 200, 200, 200, 429]);
  t.is(replies[0]!.headers['x-ratelimit-limit'], '5');
  t.is(replies[0]!.headers['x-ratelimit-remaining'], '4');
  t.is(replies[4]!.headers['x-ratelimit-remaining'], '0');
  const refused = replies[5]!;
  t.is(refused.json.code, 'RATE_LIMIT_HIT');
  t.is(refused.json.msg, 'API usage exceeded rate limit');
  t.true(refused.json['retry-after'] > 0 && refused.json['retry-after'] <= 12);
  t.is(refused.headers['retry-after'], String(Math.ceil(refused.json['retry-after'])));
  t.is(refused.headers['x-ratelimit-remaining'], '0');
  t.true(Number(refused.headers['x-ratelimit-reset']) > Date.now() / 1000);
  // Another user is not affected.
  t.is((await s.client.get('/users/me', { auth: await addUser(s) })).status, 200);
});

test('long-polls do not count against the user limit', async (t) => {
  const u = await addUser(s);
  const q = (await s.client.as(u).post('/register')).json.queue_id;
  for (let i = 0; i < 8; i++) {
    const r = await s.client.as(u).get('/events', { query: { queue_id: q, dont_block: 'true' } });
    t.is(r.status, 200);
  }
});

test('unauthenticated requests are limited per address; password attempts more strictly', async (t) => {
  // The test server's own owner login already spent one password attempt and one unauthenticated request.
  const attempts = [];
  for (let i = 0; i < 4; i++) attempts.push((await s.client.post('/fetch_api_key', { form: { username: 'x@y.z', password: 'wrong' } })).status);
  t.deepEqual(attempts, [401, 401, 401, 429], 'the fifth password attempt from this address is refused');
  // 1 + 4 of the 20 unauthenticated requests per hour are spent: 15 more, then 429. (An hour: a token comes back every
  // 3 minutes, so a slow run gets none back; at 20 a minute a loaded run got an extra 200.)
  const rest = [];
  for (let i = 0; i < 16; i++) rest.push((await s.client.get('/server_settings')).status);
  t.deepEqual(rest, [...Array(15).fill(200), 429]);
});

test('buckets refill with time and full buckets are forgotten', (t) => {
  let now = 0;
  const limiter = new RateLimiter({ enabled: true, user: { limit: 2, windowSeconds: 10 }, ip: { limit: 1, windowSeconds: 10 }, passwordAttempts: { limit: 1, windowSeconds: 10 } }, () => now);
  limiter.request(1, 'a');
  limiter.request(1, 'a');
  t.throws(() => limiter.request(1, 'a'));
  now += 5_000; // half the window: one token back
  t.notThrows(() => limiter.request(1, 'a'));
  t.throws(() => limiter.request(1, 'a'));
  now += 60_000;
  limiter.sweep();
  t.is(limiter.trackedKeys, 0);
  limiter.stop();
});

test('RATE_LIMITS=off turns limiting off', (t) => {
  const limiter = new RateLimiter({ enabled: false, user: { limit: 1, windowSeconds: 60 }, ip: { limit: 1, windowSeconds: 60 }, passwordAttempts: { limit: 1, windowSeconds: 60 } });
  for (let i = 0; i < 5; i++) t.is(limiter.request(1, 'a'), null);
  limiter.stop();
});

test('tokens spent on other processes count here; a negative count hands none back', (t) => {
  const now = 0;
  const limiter = new RateLimiter({ enabled: true, user: { limit: 3, windowSeconds: 60 }, ip: { limit: 1, windowSeconds: 60 }, passwordAttempts: { limit: 1, windowSeconds: 60 } }, () => now);
  limiter.request(1, 'a');
  limiter.spentElsewhere('user', '1', 2);
  t.throws(() => limiter.request(1, 'a'));
  limiter.spentElsewhere('user', '1', -10);
  t.throws(() => limiter.request(1, 'a'));
  limiter.stop();
});
