// The server as a process: SIGHUP reloads the log level from LOG_LEVEL_FILE (actor lifecycle appears at debug);
// SIGTERM drains — a parked poll is answered, the queue is saved — and the process exits 0.
import test from 'ava';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase } from '../helpers/database.js';
import { Client } from '../helpers/http.js';
import { bearer, eventually, OPERATOR_TOKEN } from './helpers.js';

function startProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['dist/src/main.js'], {
    env: { ...process.env, LOG_LEVEL: 'info', LOG_FORMAT: 'json', PASSWORD_HASH_COST: '12', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (c) => (out += c));
  child.stderr.on('data', (c) => (out += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  // Never left running by a failed test.
  const kill = () => child.exitCode === null && child.kill('SIGKILL');
  process.once('exit', kill);
  exited.then(() => process.off('exit', kill));
  const listening = (async () => {
    await eventually(() => /"msg":"listening"/.test(out), 'listening', 2400);
    return Number(/"port":(\d+),"msg":"listening"/.exec(out)![1]);
  })();
  const lines = () => out.split('\n').filter((l) => l.startsWith('{') && l.endsWith('}')).map((l) => JSON.parse(l));
  return { child, exited, listening, kill, output: () => out, lines };
}

test('SIGHUP reloads the log level; SIGTERM answers parked polls, saves queues and exits 0', async (t) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'palaver-ops-proc-'));
  const db = await createTestDatabase();
  const levelFile = path.join(dataDir, 'level');
  const env = {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL_FILE: levelFile,
    OPERATOR_TOKEN,
    SHUTDOWN_TIMEOUT_MS: '3000',
    PALAVER_OWNER_EMAIL: 'ops@test.example',
    PALAVER_OWNER_PASSWORD: 'ops-pass-123',
    DATABASE_URL: db?.url ?? '',
  };
  try {
    const p = startProcess(env);
    t.teardown(p.kill);
    const client = new Client(await p.listening);
    const key = (await client.post('/fetch_api_key', { form: { username: 'ops@test.example', password: 'ops-pass-123' } })).json.api_key;
    const owner = client.as({ email: 'ops@test.example', apiKey: key });
    t.false(p.output().includes('"msg":"actor started"'), 'no lifecycle lines at info');

    writeFileSync(levelFile, 'debug\n');
    p.child.kill('SIGHUP');
    await eventually(() => p.lines().some((l) => l.msg === 'log level reloaded'), 'the reload is logged', 400);
    t.like(p.lines().find((l) => l.msg === 'log level reloaded'), { logLevel: 'debug', file: levelFile });
    const reg = (await owner.post('/register')).json;
    await eventually(() => p.lines().some((l) => l.msg === 'actor started' && l.actor === `queue:${reg.queue_id}`), 'lifecycle at debug', 400);

    // A parked poll at the signal is answered (no events); the queue survives the restart.
    const poll = owner.get('/events', { query: { queue_id: reg.queue_id, last_event_id: String(reg.last_event_id) } });
    await eventually(async () => {
      const m = await client.get('/metrics', { root: true, headers: bearer() });
      return /^palaver_long_polls_parked 1$/m.test(m.text);
    }, 'the poll parks', 400);
    p.child.kill('SIGTERM');
    const answered = await poll;
    t.is(answered.status, 200, answered.text);
    t.deepEqual(answered.json.events, []);
    t.is(await p.exited, 0);
    t.true(p.lines().some((l) => l.msg === 'stopped'));

    const again = startProcess(env);
    t.teardown(again.kill);
    const client2 = new Client(await again.listening);
    const r = await client2.as({ email: 'ops@test.example', apiKey: key }).get('/events', {
      query: { queue_id: reg.queue_id, last_event_id: String(reg.last_event_id), dont_block: 'true' },
    });
    t.is(r.status, 200, 'the queue was saved at shutdown and restored');
    again.child.kill('SIGTERM');
    t.is(await again.exited, 0);
  } finally {
    await db?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  }
});
