// Failed credentials of every kind are rate limited like password attempts (RATE_LIMIT_PASSWORD): wrong API keys
// (per account and address), wrong operator tokens, and wrong old_password in PATCH /settings. Once the budget is
// spent even the right credential gets the 429 (so guesses stay bounded); other accounts are not affected.
import test from 'ava';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { bearer, OPERATOR_TOKEN } from '../operators/helpers.js';

const LIMITS = { RATE_LIMIT_USER: '100000/60', RATE_LIMIT_IP: '100000/60', RATE_LIMIT_PASSWORD: '4/600' };
let s: TestServer;
test.before(async () => {
  s = await startTestServer({ env: { ...LIMITS, OPERATOR_TOKEN } });
});
test.after.always(async () => s?.close());

function assertRateLimited(t: import('ava').ExecutionContext, r: { status: number; json: any; headers: Record<string, unknown> }) {
  t.is(r.status, 429);
  t.is(r.json.result, 'error');
  t.is(r.json.code, 'RATE_LIMIT_HIT');
  t.is(r.json.msg, 'API usage exceeded rate limit');
  t.true(r.json['retry-after'] > 0);
  t.is(r.headers['retry-after'], String(Math.ceil(r.json['retry-after'])));
}

test.serial('wrong API keys: 401s, then a 429 for that account from this address, right key included', async (t) => {
  const victim = await addUser(s);
  const bystander = await addUser(s);
  const wrong = { email: victim.email, apiKey: 'x'.repeat(32) };
  const statuses = [];
  for (let i = 0; i < 4; i++) statuses.push((await s.client.as(wrong).get('/users/me')).status);
  t.deepEqual(statuses, [401, 401, 401, 401]);
  assertRateLimited(t, await s.client.as(wrong).get('/users/me'));
  assertRateLimited(t, await s.client.as(victim).get('/users/me'));
  // Another account from the same address is not locked out.
  t.is((await s.client.as(bystander).get('/users/me')).status, 200);
});

test.serial('wrong old_password in PATCH /settings counts as a password attempt', async (t) => {
  const u = await addUser(s, { password: 'old-password-1' });
  // The test server's owner login already spent one of this address's 4 attempts.
  const statuses = [];
  for (let i = 0; i < 3; i++) {
    const r = await s.client.as(u).patch('/settings', { form: { old_password: `guess-${i}`, new_password: 'Brand-new-pass-42' } });
    statuses.push(r.json.msg);
  }
  t.deepEqual(statuses, ['Wrong password!', 'Wrong password!', 'Wrong password!']);
  assertRateLimited(t, await s.client.as(u).patch('/settings', { form: { old_password: 'old-password-1', new_password: 'Brand-new-pass-42' } }));
  // The same budget as fetch_api_key's: logging in from this address is refused too.
  assertRateLimited(t, await s.client.post('/fetch_api_key', { form: { username: u.email, password: 'old-password-1' } }));
});

test('wrong operator tokens: 401s, then a 429 even for the right token', async (t) => {
  const ops = await startTestServer({ env: { ...LIMITS, OPERATOR_TOKEN } });
  try {
    // The server's owner login already spent one of this address's 4 attempts.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await ops.client.get('/metrics', { root: true, headers: bearer('wrong-token') })).status);
    t.deepEqual(statuses, [401, 401, 401]);
    assertRateLimited(t, await ops.client.get('/metrics', { root: true, headers: bearer('wrong-token') }));
    assertRateLimited(t, await ops.client.get('/metrics', { root: true, headers: bearer() }));
  } finally {
    await ops.close();
  }
});
