// Realm selection by the Host header's subdomain under ROOT_DOMAIN, and deactivated realms.
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);
let s: TestServer;
const ROOT = 'chat.example.test';

test.before(async () => {
  s = await startTestServer({ env: { ROOT_DOMAIN: ROOT } });
});
test.after.always(async () => s?.close());

async function cli(...args: string[]) {
  const env = { ...process.env, DATA_DIR: s.dataDir, PASSWORD_HASH_COST: '12', ROOT_DOMAIN: ROOT, PORT: String(s.port) } as NodeJS.ProcessEnv;
  if (s.databaseUrl) env.DATABASE_URL = s.databaseUrl;
  else delete env.DATABASE_URL;
  const { stdout } = await run('bin/palaver', args, { env });
  return JSON.parse(stdout);
}

async function waitFor(check: () => Promise<boolean>) {
  for (let i = 0; i < 50; i++) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

test.serial('a new realm is served at its subdomain, with its own users', async (t) => {
  const made = await cli('create-realm', '--subdomain', 'acme', '--name', 'Acme Corp',
    '--owner-email', 'boss@acme.test', '--owner-password', 'acme-pass-1', '--owner-name', 'Boss');
  t.is(made.url, `http://acme.${ROOT}:${s.port}`);
  const acme = s.client.withHost(`acme.${ROOT}:${s.port}`);
  t.true(await waitFor(async () => (await acme.get('/server_settings')).status === 200));

  const settings = await acme.get('/server_settings');
  t.is(settings.json.realm_name, 'Acme Corp');
  t.is(settings.json.realm_url, `http://acme.${ROOT}:${s.port}`);
  const root = await s.client.withHost(`${ROOT}:${s.port}`).get('/server_settings');
  t.is(root.json.realm_name, 'Palaver');
  t.is(root.json.realm_url, `http://${ROOT}:${s.port}`);

  const login = await acme.post('/fetch_api_key', { form: { username: 'boss@acme.test', password: 'acme-pass-1' } });
  t.is(login.status, 200);
  const boss = { email: 'boss@acme.test', apiKey: login.json.api_key };
  t.is((await acme.get('/users/me', { auth: boss })).json.full_name, 'Boss');

  // Credentials of one realm do not work in another.
  const elsewhere = await s.client.withHost(ROOT).get('/users/me', { auth: boss });
  t.is(elsewhere.status, 401);
  t.is(elsewhere.json.code, 'INVALID_API_KEY');
  const ownerAtAcme = await acme.get('/users/me', { auth: s.owner });
  t.is(ownerAtAcme.status, 401);
  const loginElsewhere = await s.client.withHost(ROOT).post('/fetch_api_key', { form: { username: 'boss@acme.test', password: 'acme-pass-1' } });
  t.is(loginElsewhere.status, 401);
});

test.serial('the Host header is case-insensitive and may omit the port', async (t) => {
  const r = await s.client.withHost(`ACME.${ROOT.toUpperCase()}`).get('/server_settings');
  t.is(r.json.realm_name, 'Acme Corp');
});

test('an unknown subdomain is a 404 INVALID_SUBDOMAIN envelope', async (t) => {
  const r = await s.client.withHost(`nope.${ROOT}`).get('/server_settings');
  t.is(r.status, 404);
  t.deepEqual(r.json, { result: 'error', msg: 'Invalid subdomain', code: 'INVALID_SUBDOMAIN' });
  const deeper = await s.client.withHost(`a.b.${ROOT}`).post('/fetch_api_key', { form: { username: 'x', password: 'y' } });
  t.is(deeper.status, 404);
});

test('hosts outside the root domain get the default realm', async (t) => {
  t.is((await s.client.withHost('localhost').get('/server_settings')).json.realm_name, 'Palaver');
  t.is((await s.client.withHost('127.0.0.1').get('/server_settings')).json.realm_name, 'Palaver');
});

test.serial('a deactivated realm refuses its users with REALM_DEACTIVATED', async (t) => {
  await cli('create-realm', '--subdomain', 'gone', '--name', 'Gone', '--owner-email', 'o@gone.test', '--owner-password', 'gone-pass-1');
  const gone = s.client.withHost(`gone.${ROOT}`);
  t.true(await waitFor(async () => (await gone.get('/server_settings')).status === 200));
  const key = (await gone.post('/fetch_api_key', { form: { username: 'o@gone.test', password: 'gone-pass-1' } })).json.api_key;
  const creds = { email: 'o@gone.test', apiKey: key };
  t.is((await gone.get('/users/me', { auth: creds })).status, 200);
  await cli('deactivate-realm', '--realm', 'gone');
  t.true(await waitFor(async () => (await gone.get('/users/me', { auth: creds })).status === 401));
  const r = await gone.get('/users/me', { auth: creds });
  t.deepEqual(r.json, { result: 'error', msg: 'This organization has been deactivated', code: 'REALM_DEACTIVATED' });
  const login = await gone.post('/fetch_api_key', { form: { username: 'o@gone.test', password: 'gone-pass-1' } });
  t.is(login.json.code, 'REALM_DEACTIVATED');
});
