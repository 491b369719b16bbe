// `palaver check` against a running server: a direct message sent and received through an event queue, with timings;
// with its own check users (created through the CLI's database access) or with given credentials; failures name the step.
import test from 'ava';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

const run = promisify(execFile);
let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

function env(): NodeJS.ProcessEnv {
  const e = { ...process.env, DATA_DIR: s.dataDir, LOG_LEVEL: 'warn' } as NodeJS.ProcessEnv;
  if (s.databaseUrl) e.DATABASE_URL = s.databaseUrl;
  else delete e.DATABASE_URL;
  return e;
}

async function check(...args: string[]): Promise<{ code: number; out: any }> {
  try {
    const { stdout } = await run('bin/palaver', ['check', '--url', `http://127.0.0.1:${s.port}`, ...args], { env: env() });
    return { code: 0, out: JSON.parse(stdout) };
  } catch (e) {
    const err = e as { code: number; stderr: string };
    return { code: err.code, out: JSON.parse(err.stderr.split('\n')[0]!) };
  }
}

test.serial('creates its two check users once and times a message from send to delivery', async (t) => {
  const first = await check();
  t.is(first.code, 0, JSON.stringify(first.out));
  t.like(first.out, { result: 'success', sender: 'check-sender@palaver-check.example', recipient: 'check-recipient@palaver-check.example' });
  t.is(typeof first.out.message_id, 'number');
  for (const k of ['register', 'send', 'delivery', 'total']) t.true(first.out.timings_ms[k] >= 0, k);
  t.true(first.out.timings_ms.delivery >= first.out.timings_ms.send, 'delivery is timed from the send');
  const changesBefore = await s.server.services.db.changes.latestId();
  const again = await check();
  t.is(again.code, 0);
  t.true(again.out.message_id > first.out.message_id, 'the same users, a new message');
  t.is(await s.server.services.db.changes.latestId(), changesBefore, 'existing check users: the realm is not reloaded');
  // The queue it registered is deleted afterwards.
  const queues = s.server.services.queues;
  t.is(queues.get(first.out.queue_id), undefined);
  t.is(queues.get(again.out.queue_id), undefined);
});

test.serial('with given credentials', async (t) => {
  const a = await addUser(s);
  const b = await addUser(s);
  const r = await check('--sender', `${a.email}:${a.apiKey}`, '--recipient', `${b.email}:${b.apiKey}`);
  t.is(r.code, 0, JSON.stringify(r.out));
  t.like(r.out, { sender: a.email, recipient: b.email });
});

test.serial('a failure names its step and exits 1', async (t) => {
  const a = await addUser(s);
  const wrong = await check('--sender', `${a.email}:${a.apiKey}`, '--recipient', `${a.email}:not-the-key`, '--timeout-ms', '10000');
  t.is(wrong.code, 1);
  t.like(wrong.out, { result: 'error', step: 'authenticate' });
  t.regex(wrong.out.msg, /HTTP 401/);
  const half = await check('--sender', `${a.email}:${a.apiKey}`);
  t.is(half.code, 2);
});
