// The admin CLI: JSON output, each command, and a running server seeing its changes within a second.
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, statSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '../helpers/database.js';
import { Client } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const run = promisify(execFile);

function cliEnv(dataDir: string, databaseUrl: string | undefined): NodeJS.ProcessEnv {
  const env = { ...process.env, DATA_DIR: dataDir, PASSWORD_HASH_COST: '12' } as NodeJS.ProcessEnv;
  if (databaseUrl) env.DATABASE_URL = databaseUrl;
  else delete env.DATABASE_URL;
  return env;
}

async function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const { stdout } = await run('bin/palaver', args, { env });
  return JSON.parse(stdout);
}

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

test('create-user prints the new user with an api_key that works at once against the running server', async (t) => {
  const env = cliEnv(s.dataDir, s.databaseUrl);
  const out = await cli(env, 'create-user', '--email', 'Carol@Test.Example', '--full-name', 'Carol C', '--role', 'moderator', '--password', 'carol-pw-1');
  t.is(out.result, 'success');
  t.is(out.email, 'Carol@Test.Example');
  t.is(out.full_name, 'Carol C');
  t.is(out.role, 300);
  t.regex(out.api_key, /^[A-Za-z0-9]{32}$/);
  const started = Date.now();
  let status = 0;
  while (Date.now() - started < 1000) {
    status = (await s.client.get('/users/me', { auth: { email: out.email, apiKey: out.api_key } })).status;
    if (status === 200) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  t.is(status, 200, 'visible to the server within a second');
  const login = await s.client.post('/fetch_api_key', { form: { username: 'carol@test.example', password: 'carol-pw-1' } });
  t.is(login.json.api_key, out.api_key);
});

test('change-password takes effect on the running server', async (t) => {
  const env = cliEnv(s.dataDir, s.databaseUrl);
  await cli(env, 'create-user', '--email', 'dave@test.example', '--full-name', 'Dave', '--password', 'old-pass-1');
  await cli(env, 'change-password', '--email', 'dave@test.example', '--password', 'new-pass-2');
  let ok = false;
  for (let i = 0; i < 50 && !ok; i++) {
    ok = (await s.client.post('/fetch_api_key', { form: { username: 'dave@test.example', password: 'new-pass-2' } })).status === 200;
    if (!ok) await new Promise((r) => setTimeout(r, 20));
  }
  t.true(ok);
  t.is((await s.client.post('/fetch_api_key', { form: { username: 'dave@test.example', password: 'old-pass-1' } })).status, 401);
});

test('list-realms and create-realm', async (t) => {
  const env = cliEnv(s.dataDir, s.databaseUrl);
  const made = await cli(env, 'create-realm', '--subdomain', 'zeta', '--name', 'Zeta', '--owner-email', 'z@zeta.test');
  t.is(made.subdomain, 'zeta');
  t.is(made.owner.email, 'z@zeta.test');
  t.regex(made.owner.api_key, /^[A-Za-z0-9]{32}$/);
  const list = await cli(env, 'list-realms');
  t.deepEqual(list.realms.map((r: { subdomain: string }) => r.subdomain).sort(), ['', 'zeta']);
  t.false(list.realms[0].deactivated);
});

test('errors are JSON on stderr with a non-zero exit', async (t) => {
  const env = cliEnv(s.dataDir, s.databaseUrl);
  const dup = await run('bin/palaver', ['create-user', '--email', 'owner@test.example', '--full-name', 'X'], { env }).catch((e) => e);
  t.is(dup.code, 1);
  t.is(JSON.parse(dup.stderr.split('\n')[0]).msg, 'Email is already in use.');
  const usage = await run('bin/palaver', ['create-user', '--full-name', 'X'], { env }).catch((e) => e);
  t.is(usage.code, 2);
  t.regex(usage.stderr, /--email is required/);
  const unknown = await run('bin/palaver', ['frobnicate'], { env }).catch((e) => e);
  t.is(unknown.code, 2);
  const badRole = await run('bin/palaver', ['create-user', '--email', 'r@test.example', '--full-name', 'R', '--role', 'king'], { env }).catch((e) => e);
  t.is(badRole.code, 2);
});

test('without a running server the CLI opens the embedded database itself; the server then sees the rows', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-cli-'));
  try {
    const env = cliEnv(dataDir, undefined);
    const realm = await cli(env, 'create-realm', '--subdomain', '', '--name', 'Made Offline', '--owner-email', 'first@offline.test', '--owner-password', 'offline-pw-1');
    t.is(realm.name, 'Made Offline');
    const server = await startTestServer({ reuse: { dataDir, databaseUrl: undefined }, env: { PALAVER_OWNER_EMAIL: 'first@offline.test', PALAVER_OWNER_PASSWORD: 'offline-pw-1' } });
    try {
      t.is(server.server.bootstrapped, null, 'an existing realm means no bootstrap');
      t.is((await new Client(server.port).get('/server_settings')).json.realm_name, 'Made Offline');
    } finally {
      await server.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('first start without owner credentials generates a password and saves it readable only by the owner', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-boot-'));
  const db = await createTestDatabase();
  const { loadConfig } = await import('../../src/config.js');
  const { startServer } = await import('../../src/server.js');
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, PASSWORD_HASH_COST: '12', LOG_LEVEL: 'warn', PALAVER_CHECK_COMMANDS: '1', ...(db ? { DATABASE_URL: db.url } : {}) });
  const server = await startServer(config);
  try {
    const b = server.bootstrapped!;
    t.truthy(b.generatedPassword);
    const file = path.join(dataDir, 'owner-credentials.json');
    t.is(b.credentialsFile, file);
    t.is(statSync(file).mode & 0o777, 0o600);
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    t.is(creds.email, 'owner@palaver.local');
    t.is(creds.password, b.generatedPassword);
    const login = await new Client(server.port).post('/fetch_api_key', { form: { username: creds.email, password: creds.password } });
    t.is(login.status, 200);
    t.is(login.json.api_key, creds.api_key);
  } finally {
    await server.stop();
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('create-user and change-password refuse a weak password (the reference sets every password under its policy)', async (t) => {
  const env = cliEnv(s.dataDir, s.databaseUrl);
  const failed = await run('bin/palaver', ['create-user', '--email', 'weak@test.example', '--full-name', 'Weak', '--password', 'password'], { env }).catch((e) => e);
  t.not(failed.code, 0);
  t.regex(failed.stdout + failed.stderr, /The password is too weak\./);
  await cli(env, 'create-user', '--email', 'strong@test.example', '--full-name', 'Strong', '--password', 'strong-pass-41');
  const change = await run('bin/palaver', ['change-password', '--email', 'strong@test.example', '--password', '12345678'], { env }).catch((e) => e);
  t.not(change.code, 0);
  t.regex(change.stdout + change.stderr, /The password is too weak\./);
});
