// /health/live and /health/ready: no credentials; ready only with the database reachable, every migration applied,
// the actors running and the server not draining.
import test from 'ava';
import type { TestServer } from '../helpers/server.js';
import { startDbProxy, type DbProxy } from './db-proxy.js';
import { eventually, startOperatorServer } from './helpers.js';

let proxy: DbProxy;
let s: TestServer;
test.before(async () => {
  proxy = await startDbProxy();
  // The database is reached through the proxy, so the test can take it away. Warnings while it is gone are expected.
  s = await startOperatorServer({ env: { DATABASE_URL: proxy.url, LOG_LEVEL: 'fatal' } });
});
test.after.always(async () => {
  proxy?.up();
  await s?.close();
  await proxy?.close();
});

const live = () => s.client.get('/health/live', { root: true });
const ready = () => s.client.get('/health/ready', { root: true });

test.serial('live and ready with the database up, without any credentials', async (t) => {
  const l = await live();
  t.is(l.status, 200);
  t.deepEqual(l.json, { status: 'live' });
  const r = await ready();
  t.is(r.status, 200, r.text);
  t.is(r.json.status, 'ready');
  t.like(r.json.checks, { database: { ok: true }, migrations: { ok: true }, actors: { ok: true }, accepting: { ok: true } });
  t.is(r.headers['cache-control'], 'no-store');
});

test.serial('not ready while the database is unreachable, ready again when it is back; live throughout', async (t) => {
  proxy.down();
  const r = await ready();
  t.is(r.status, 503);
  t.is(r.json.status, 'unavailable');
  t.false(r.json.checks.database.ok);
  t.regex(r.json.checks.database.detail, /database unreachable/);
  t.false(r.json.checks.migrations.ok);
  t.true(r.json.checks.actors.ok);
  t.is((await live()).status, 200);
  proxy.up();
  await eventually(async () => (await ready()).status === 200, 'ready once the database is back');
  t.is((await ready()).json.checks.database.ok, true);
});

test.serial('not ready while a migration is missing', async (t) => {
  const { db } = s.server.services;
  const last = await db.one('SELECT version, name FROM schema_migrations ORDER BY version DESC LIMIT 1');
  await db.none('DELETE FROM schema_migrations WHERE version = $1', [last.version]);
  try {
    const r = await ready();
    t.is(r.status, 503);
    t.like(r.json.checks.migrations, { ok: false, detail: '1 migrations not applied' });
  } finally {
    await db.none('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [last.version, last.name]);
  }
  t.is((await ready()).status, 200);
});

test.serial('not ready once shutdown has begun (draining)', async (t) => {
  s.server.services.operators.health.drain();
  const r = await ready();
  t.is(r.status, 503);
  t.like(r.json.checks.accepting, { ok: false, detail: 'shutting down' });
  t.is((await live()).status, 200);
});
