// Structured logs: one line per request (id, user, realm, route, status, duration), unexpected errors with their
// stack only in the log, actor lifecycle at debug level, readable lines for a terminal, and SIGHUP's level reload.
import test from 'ava';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { endpoint } from '../../src/http/endpoint.js';
import { createLogger, reloadLogLevel } from '../../src/log.js';
import type { TestServer } from '../helpers/server.js';
import { eventually, startOperatorServer } from './helpers.js';

const lines: Record<string, any>[] = [];
let s: TestServer;

const boom = endpoint({
  method: 'GET',
  path: '/test/boom',
  auth: 'none',
  params: {},
  handle() {
    throw new Error('kaboom: internal detail');
  },
});

test.before(async () => {
  const log = createLogger('debug', 'json', { write: (line) => lines.push(JSON.parse(line)) });
  s = await startOperatorServer({ log, endpoints: [boom] });
});
test.after.always(async () => {
  await s?.close();
});

test.serial('one line per request with its id, user, realm, route, status and duration', async (t) => {
  const r = await s.client.get('/users/me', { auth: s.owner, headers: { 'x-request-id': 'trace-abc.123' } });
  t.is(r.status, 200);
  t.is(r.headers['x-request-id'], 'trace-abc.123');
  const line = lines.find((l) => l.msg === 'request' && l.reqId === 'trace-abc.123');
  t.truthy(line);
  t.like(line, { level: 30, method: 'GET', path: '/api/v1/users/me', route: '/api/v1/users/me', status: 200, userId: r.json.user_id, service: 'palaver' });
  t.is(typeof line!.realmId, 'number');
  t.is(typeof line!.ms, 'number');
  t.false(JSON.stringify(lines).includes(s.owner.apiKey), 'no credentials in the logs');

  const missing = await s.client.get('/users/999999', { auth: s.owner });
  const id = missing.headers['x-request-id'] as string;
  t.regex(id, /^[0-9a-f]{6}-[0-9a-z]+$/, 'generated when the client sent none');
  t.like(lines.find((l) => l.reqId === id), { msg: 'request', status: missing.status, route: '/api/v1/users/{user_id}' });
});

test.serial('no secrets in the log: invitation and confirmation keys show as their routes, API keys and passwords never', async (t) => {
  const link = (await s.client.as(s.owner).post('/invites/multiuse')).json.invite_link as string;
  const key = /\/join\/([a-z0-9]+)\/$/.exec(link)![1]!;
  const base = `http://127.0.0.1:${s.port}`;
  const page = await fetch(`${base}/join/${key}/`, { headers: { 'x-request-id': 'join-page' } });
  t.is(page.status, 200);
  const sent = await fetch(`${base}/join/${key}/`, { method: 'POST', body: new URLSearchParams({ email: 'logged@test.example' }), headers: { 'x-request-id': 'join-post' } });
  t.is(sent.status, 200);
  const mail = (await s.server.services.db.outbox.all()).find((m) => m.to === 'logged@test.example')!;
  const confirmKey = /\/accounts\/do_confirm\/([a-z0-9]+)\//.exec(mail.body)![1]!;
  const made = await fetch(`${base}/accounts/do_confirm/${confirmKey}/`, {
    method: 'POST',
    body: new URLSearchParams({ full_name: 'Logged Person', password: 'secret-Passw0rd-xyz' }),
    headers: { 'x-request-id': 'confirm-post' },
  });
  t.is(made.status, 200);
  await s.client.post('/fetch_api_key', { form: { username: 'logged@test.example', password: 'secret-Passw0rd-xyz' } });
  t.like(lines.find((l) => l.reqId === 'join-page'), { msg: 'request', path: '/join/{key}', route: '/join/{key}', status: 200 });
  t.like(lines.find((l) => l.reqId === 'confirm-post'), { path: '/accounts/do_confirm/{key}', status: 200 });
  const all = JSON.stringify(lines);
  for (const secret of [key, confirmKey, 'secret-Passw0rd-xyz', s.owner.apiKey]) t.false(all.includes(secret), `${secret.slice(0, 6)}… is not logged`);
});

test.serial('an unexpected error: a 500 envelope for the client, the stack only in the log', async (t) => {
  const r = await s.client.get('/test/boom');
  t.is(r.status, 500);
  t.deepEqual(r.json, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
  t.false(r.text.includes('kaboom'));
  const line = lines.find((l) => l.reqId === r.headers['x-request-id']);
  t.like(line, { level: 50, msg: 'request failed', status: 500, route: '/api/v1/test/boom' });
  t.regex(line!.err.stack, /kaboom: internal detail\n\s+at /);
});

test.serial('actor lifecycle at debug level: a queue is reported started and ended', async (t) => {
  const reg = (await s.client.as(s.owner).post('/register')).json;
  const actor = `queue:${reg.queue_id}`;
  await eventually(() => lines.some((l) => l.msg === 'actor started' && l.actor === actor), 'the start is logged');
  t.like(lines.find((l) => l.msg === 'actor started' && l.actor === actor), { level: 20, kind: 'eventQueue', state: 'waiting' });
  await s.client.as(s.owner).delete('/events', { form: { queue_id: reg.queue_id } });
  await eventually(() => lines.some((l) => l.msg === 'actor ended' && l.actor === actor), 'the end is logged');
  t.like(lines.find((l) => l.msg === 'actor ended' && l.actor === actor), { level: 20, kind: 'eventQueue', state: 'expired' });
});

test('secret fields are redacted wherever a line carries them', (t) => {
  const out: Record<string, any>[] = [];
  const log = createLogger('info', 'json', { write: (line) => out.push(JSON.parse(line)) });
  log.info({ user: { id: 1, passwordHash: 'scrypt$hash', apiKey: 'k3y', email: 'a@b.c' }, old_password: 'pw1', token: 't0k', authorization: 'Basic x' }, 'x');
  t.like(out[0], { user: { id: 1, passwordHash: '[redacted]', apiKey: '[redacted]', email: 'a@b.c' }, old_password: '[redacted]', token: '[redacted]', authorization: '[redacted]' });
});

test('readable lines for a terminal: time, level, message, fields, and the stack below', (t) => {
  let out = '';
  const log = createLogger('info', 'pretty', { write: (line) => (out += line) });
  log.info({ reqId: 'r-1', status: 200 }, 'request');
  log.error({ err: new Error('boom') }, 'request failed');
  t.regex(out.split('\n')[0]!, /^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: request$/);
  t.regex(out, /^\s+reqId: "r-1"$/m);
  t.regex(out, /^\[[\d:.]+\] ERROR: request failed$/m);
  t.regex(out, /Error: boom\n\s+at /);
  t.false(out.includes('{"level"'), 'no JSON in pretty mode');
});

test('SIGHUP reload: the level in the file, back to the starting level without it, an unknown level refused', (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-loglevel-'));
  try {
    const file = path.join(dir, 'log-level');
    const log = createLogger('info', 'json', { write: () => undefined });
    writeFileSync(file, 'debug\n');
    t.deepEqual(reloadLogLevel(log, file, 'info'), { level: 'debug', changed: true });
    t.is(log.level, 'debug');
    rmSync(file);
    t.deepEqual(reloadLogLevel(log, file, 'info'), { level: 'info', changed: true });
    writeFileSync(file, 'loud');
    t.throws(() => reloadLogLevel(log, file, 'info'), { message: /unknown log level "loud"/ });
    t.is(log.level, 'info');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
