// The server as a process: refuses the slow uWebSockets.js fallback, and shuts down gracefully on a signal.
import test from 'ava';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from './helpers/database.js';
import { Client } from './helpers/http.js';

function startProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, LOG_LEVEL: 'info', PASSWORD_HASH_COST: '12', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const listening = new Promise<number>((resolve, reject) => {
    const check = () => {
      const m = /"port":(\d+),"msg":"listening"/.exec(out);
      if (m) resolve(Number(m[1]));
    };
    child.stdout.on('data', check);
    exited.then(() => reject(new Error('exited before listening:\n' + out)));
  });
  listening.catch(() => undefined); // a test that expects an early exit does not wait for it
  return { child, exited, listening, output: () => out };
}

test('refuses to start on the pure-JS uWebSockets.js fallback unless allowed', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-proc-'));
  try {
    const p = startProcess({ UWS_USE_FALLBACK: '1', DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '' });
    const code = await p.exited;
    t.is(code, 1);
    t.regex(p.output(), /native build/);
    t.regex(p.output(), /PALAVER_ALLOW_UWS_FALLBACK/);
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('SIGTERM: finishes, closes the database and exits 0 within a few seconds; data survives', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-proc-'));
  const db = await createTestDatabase();
  const env = { DATA_DIR: dataDir, PORT: '0', PALAVER_OWNER_EMAIL: 'sig@test.example', PALAVER_OWNER_PASSWORD: 'sig-pass-123', DATABASE_URL: db?.url ?? '' };
  try {
    const p = startProcess(env);
    const port = await p.listening;
    const client = new Client(port);
    const key = (await client.post('/fetch_api_key', { form: { username: 'sig@test.example', password: 'sig-pass-123' } })).json.api_key;
    t.truthy(key);
    if (!db) t.true(existsSync(path.join(dataDir, 'embedded-db.json')));
    const pending = client.post('/fetch_api_key', { form: { username: 'sig@test.example', password: 'sig-pass-123' } });
    p.child.kill('SIGTERM');
    const inFlight = await pending.catch(() => null);
    if (inFlight) t.is(inFlight.status, 200, `a request in flight at the signal is answered: ${inFlight.text}`);
    const started = Date.now();
    t.is(await p.exited, 0);
    t.true(Date.now() - started < 15_000);
    t.regex(p.output(), /"msg":"stopped"/);
    t.false(existsSync(path.join(dataDir, 'embedded-db.json')), 'the embedded database was closed');

    const again = startProcess(env);
    const port2 = await again.listening;
    const r = await new Client(port2).get('/users/me', { auth: { email: 'sig@test.example', apiKey: key } });
    t.is(r.status, 200);
    again.child.kill('SIGINT');
    t.is(await again.exited, 0);
  } finally {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});

test('first start refuses a given owner password that fails the password policy, and creates nothing', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-proc-'));
  const db = await createTestDatabase();
  const env = { DATA_DIR: dataDir, PORT: '0', PALAVER_OWNER_EMAIL: 'weak@test.example', DATABASE_URL: db?.url ?? '' };
  try {
    const weak = startProcess({ ...env, PALAVER_OWNER_PASSWORD: 'password1' });
    t.is(await weak.exited, 1);
    t.regex(weak.output(), /PALAVER_OWNER_PASSWORD does not meet the password policy/);
    t.regex(weak.output(), /The password is too weak\./);

    // Nothing was made: a second start with a strong password bootstraps the owner, who can log in with it.
    const strong = startProcess({ ...env, PALAVER_OWNER_PASSWORD: 'violet-harbour-lantern-82' });
    const port = await strong.listening;
    const r = await new Client(port).post('/fetch_api_key', { form: { username: 'weak@test.example', password: 'violet-harbour-lantern-82' } });
    t.is(r.status, 200, r.text);
    strong.child.kill('SIGTERM');
    t.is(await strong.exited, 0);
  } finally {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
