// Authentication: HTTP Basic with email and API key, fetch_api_key, and the unauthenticated server_settings.
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { basicAuth } from '../helpers/http.js';
import { OWNER_EMAIL, OWNER_PASSWORD, startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

async function cli(...args: string[]) {
  const env = { ...process.env, DATA_DIR: s.dataDir, PASSWORD_HASH_COST: '12' } as NodeJS.ProcessEnv;
  if (s.databaseUrl) env.DATABASE_URL = s.databaseUrl;
  else delete env.DATABASE_URL;
  const { stdout } = await run('bin/palaver', args, { env });
  return JSON.parse(stdout);
}

/** Waits until the running server sees a change the CLI made (it polls the change log). */
async function eventually(t: any, check: () => Promise<boolean>) {
  for (let i = 0; i < 50; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  t.fail('the server did not pick up the change');
}

test('GET /server_settings needs no credentials and has every field', async (t) => {
  const r = await s.client.get('/server_settings');
  t.is(r.status, 200);
  const b = r.json;
  t.is(b.result, 'success');
  t.is(b.service_feature_level, 419);
  t.regex(b.service_version, /^\d+\.\d+-palaver-\d+\.\d+\.\d+/);
  t.is(b.service_merge_base, b.service_version);
  t.is(b.realm_url, `http://127.0.0.1:${s.port}`);
  t.is(b.realm_uri, b.realm_url);
  t.is(b.realm_name, 'Palaver');
  t.is(typeof b.realm_icon, 'string');
  t.is(b.realm_description, '');
  t.false(b.realm_web_public_access_enabled);
  t.false(b.push_notifications_enabled);
  t.false(b.is_incompatible);
  t.true(b.email_auth_enabled);
  t.true(b.require_email_format_usernames);
  t.deepEqual(b.external_authentication_methods, []);
  t.true(b.authentication_methods.password);
  for (const m of ['password', 'dev', 'email', 'ldap', 'remoteuser', 'saml', 'openid connect']) {
    t.is(typeof b.authentication_methods[m], 'boolean', m);
  }
});

test('fetch_api_key with the right password returns key, email and user_id', async (t) => {
  const r = await s.client.post('/fetch_api_key', { form: { username: OWNER_EMAIL, password: OWNER_PASSWORD } });
  t.is(r.status, 200);
  t.is(r.json.api_key, s.owner.apiKey);
  t.is(r.json.email, OWNER_EMAIL);
  t.is(typeof r.json.user_id, 'number');
  t.regex(r.json.api_key, /^[A-Za-z0-9]{32}$/);
});

test('fetch_api_key: the email is case-insensitive', async (t) => {
  const r = await s.client.post('/fetch_api_key', { form: { username: OWNER_EMAIL.toUpperCase(), password: OWNER_PASSWORD } });
  t.is(r.status, 200);
});

test('fetch_api_key: wrong password and unknown user get the same 401', async (t) => {
  const wrong = await s.client.post('/fetch_api_key', { form: { username: OWNER_EMAIL, password: 'nope' } });
  const unknown = await s.client.post('/fetch_api_key', { form: { username: 'ghost@test.example', password: 'nope' } });
  t.is(wrong.status, 401);
  t.deepEqual(wrong.json, { result: 'error', msg: 'Your username or password is incorrect', code: 'AUTHENTICATION_FAILED' });
  t.is(unknown.status, wrong.status);
  t.deepEqual(unknown.json, wrong.json);
});

test('fetch_api_key: missing parameters', async (t) => {
  const r = await s.client.post('/fetch_api_key', { form: { username: OWNER_EMAIL } });
  t.is(r.status, 400);
  t.is(r.json.code, 'REQUEST_VARIABLE_MISSING');
  t.is(r.json.var_name, 'password');
});

test('a user without a password cannot fetch a key', async (t) => {
  const made = await cli('create-user', '--email', 'nopass@test.example', '--full-name', 'No Pass');
  await eventually(t, async () => (await s.client.get('/users/me', { auth: { email: made.email, apiKey: made.api_key } })).status === 200);
  const r = await s.client.post('/fetch_api_key', { form: { username: 'nopass@test.example', password: '' } });
  t.is(r.status, 401);
  t.is(r.json.code, 'AUTHENTICATION_FAILED');
});

test('the key from fetch_api_key authenticates API calls', async (t) => {
  const r = await s.client.get('/users/me', { auth: s.owner });
  t.is(r.status, 200);
  t.is(r.json.email, OWNER_EMAIL);
  t.is(r.json.role, 100);
  t.true(r.json.is_owner);
  t.true(r.json.is_admin);
  t.false(r.json.is_guest);
  t.is(r.json.delivery_email, OWNER_EMAIL);
});

const CHALLENGE = 'Basic realm="palaver"';

test('no credentials: 401 UNAUTHORIZED with WWW-Authenticate', async (t) => {
  const r = await s.client.get('/users/me');
  t.is(r.status, 401);
  t.is(r.headers['www-authenticate'], CHALLENGE);
  t.deepEqual(r.json, { result: 'error', msg: 'Not logged in: API authentication or user session required', code: 'UNAUTHORIZED' });
});

test('malformed Authorization headers: 401 envelopes', async (t) => {
  const cases: [string, string][] = [
    ['Bearer abc', 'This endpoint requires HTTP basic authentication.'],
    ['Basic', 'Invalid authorization header for basic auth'],
    ['Basic !!!not-base64!!!', 'Invalid authorization header for basic auth'],
    ['Basic ' + Buffer.from('no-colon-here').toString('base64'), 'Invalid authorization header for basic auth'],
    ['Basic ' + Buffer.from(':keyonly').toString('base64'), 'Invalid authorization header for basic auth'],
    ['Basic abc', 'Invalid authorization header for basic auth'],
  ];
  for (const [header, msg] of cases) {
    const r = await s.client.get('/users/me', { headers: { authorization: header } });
    t.is(r.status, 401, header);
    t.is(r.json.msg, msg, header);
    t.is(r.json.code, 'UNAUTHORIZED', header);
    t.is(r.headers['www-authenticate'], CHALLENGE);
  }
});

test('wrong API key or unknown email: 401 INVALID_API_KEY', async (t) => {
  for (const header of [basicAuth(OWNER_EMAIL, 'x'.repeat(32)), basicAuth('ghost@test.example', s.owner.apiKey), basicAuth(OWNER_EMAIL, '')]) {
    const r = await s.client.get('/users/me', { headers: { authorization: header } });
    t.is(r.status, 401);
    t.deepEqual(r.json, { result: 'error', msg: 'Invalid API key', code: 'INVALID_API_KEY' });
    t.is(r.headers['www-authenticate'], CHALLENGE);
  }
});

test('another user’s key does not work with my email', async (t) => {
  const other = await cli('create-user', '--email', 'mallory@test.example', '--full-name', 'Mallory');
  await eventually(t, async () => (await s.client.get('/users/me', { auth: { email: other.email, apiKey: other.api_key } })).status === 200);
  const r = await s.client.get('/users/me', { auth: { email: OWNER_EMAIL, apiKey: other.api_key } });
  t.is(r.status, 401);
  t.is(r.json.code, 'INVALID_API_KEY');
});

test('a deactivated user is refused at once, and again accepted when reactivated', async (t) => {
  const u = await cli('create-user', '--email', 'leaving@test.example', '--full-name', 'Leaving', '--password', 'leaving-pw-1');
  const creds = { email: u.email, apiKey: u.api_key };
  await eventually(t, async () => (await s.client.get('/users/me', { auth: creds })).status === 200);
  await cli('deactivate-user', '--email', u.email);
  await eventually(t, async () => (await s.client.get('/users/me', { auth: creds })).status === 401);
  const r = await s.client.get('/users/me', { auth: creds });
  t.deepEqual(r.json, { result: 'error', msg: 'Account is deactivated', code: 'USER_DEACTIVATED' });
  const login = await s.client.post('/fetch_api_key', { form: { username: u.email, password: 'leaving-pw-1' } });
  t.is(login.status, 401);
  t.is(login.json.code, 'USER_DEACTIVATED');
  const wrongPw = await s.client.post('/fetch_api_key', { form: { username: u.email, password: 'wrong' } });
  t.is(wrongPw.json.code, 'AUTHENTICATION_FAILED', 'a wrong password does not reveal deactivation');
  await cli('reactivate-user', '--email', u.email);
  await eventually(t, async () => (await s.client.get('/users/me', { auth: creds })).status === 200);
});
