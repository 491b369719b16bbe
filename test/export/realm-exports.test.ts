// The data-export endpoints over real HTTP: an administrator's public and standard (consent) exports built in the
// background, the realm_export event, the admin-only download, deletion, consents, validation, permissions and
// the reference's five-a-week limit.
import test from 'ava';
import { Readable } from 'node:stream';
import { readArchive, type ArchiveHeader, type Row } from '../../src/export/archive.js';
import { importRealm } from '../../src/export/import.js';
import { EXPORTS_PER_WEEK } from '../../src/export/realm-exports.js';
import type { Client, Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';

let s: TestServer;
let admin: Client;
let alice: TestUser;
let bob: TestUser;
let mod: TestUser;

test.before(async () => {
  s = await startTestServer();
  admin = s.client.as(s.owner);
  alice = await addUser(s, { email: 'alice@test.example', fullName: 'Alice' });
  bob = await addUser(s, { email: 'bob@test.example', fullName: 'Bob' });
  mod = await addUser(s, { email: 'mod@test.example', fullName: 'Mod', role: 300 });
  const ok = async (c: Client, path: string, form: Record<string, string>) => {
    const r = await c.post(path, { form });
    if (r.status !== 200) throw new Error(r.text);
  };
  await ok(admin, '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'open' }]), principals: JSON.stringify([alice.id, bob.id]) });
  await ok(admin, '/users/me/subscriptions', { subscriptions: JSON.stringify([{ name: 'closed' }]), invite_only: 'true', principals: JSON.stringify([alice.id, bob.id]) });
  await ok(s.client.as(alice), '/messages', { type: 'stream', to: 'open', topic: 't', content: 'public words' });
  await ok(s.client.as(alice), '/messages', { type: 'stream', to: 'closed', topic: 't', content: 'closed words' });
  await ok(s.client.as(alice), '/messages', { type: 'direct', to: JSON.stringify([bob.id]), content: 'alice to bob' });
  await ok(s.client.as(bob), '/messages', { type: 'direct', to: JSON.stringify([mod.id]), content: 'bob to mod' });
});
test.after.always(async () => s?.close());

const as = (u: Credentials) => s.client.as(u);

async function waitDone(id: number): Promise<Record<string, any>> {
  for (let i = 0; i < 200; i++) {
    const list = (await admin.get('/export/realm')).json.exports as Record<string, any>[];
    const row = list.find((e) => e.id === id)!;
    if (!row.pending) return row;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error('export did not finish');
}

async function download(c: Client, url: string) {
  const path = new URL(url).pathname;
  return c.get(path, { root: true });
}

async function archiveOf(body: Buffer): Promise<{ header: ArchiveHeader; rows: Record<string, Row[]> }> {
  const lines = readArchive(Readable.from([body]));
  const header = (await lines.next()).value as ArchiveHeader;
  const rows: Record<string, Row[]> = {};
  for await (const line of lines) if ('table' in line) rows[line.table] = [...(rows[line.table] ?? []), ...line.rows];
  return { header, rows };
}

async function fetchBytes(c: Client, url: string): Promise<Buffer> {
  const r = await fetch(`http://127.0.0.1:${s.port}${new URL(url).pathname}`, {
    headers: { Authorization: 'Basic ' + Buffer.from(`${(c.defaults.auth as Credentials).email}:${(c.defaults.auth as Credentials).apiKey}`).toString('base64') },
  });
  if (r.status !== 200) throw new Error(`${r.status}`);
  return Buffer.from(await r.arrayBuffer());
}

test.serial('a public export: pending at first, then a realm_export event, an admin-only archive without private data', async (t) => {
  const reg = (await admin.post('/register', { form: { event_types: JSON.stringify(['realm_export']) } })).json;
  const made = await admin.post('/export/realm');
  t.is(made.status, 200, made.text);
  t.is(typeof made.json.id, 'number');
  const done = await waitDone(made.json.id);
  t.like(done, { acting_user_id: done.acting_user_id, export_type: 1, failed_timestamp: null, deleted_timestamp: null, pending: false });
  t.regex(done.export_url, /\/user_avatars\/exports\/\d+\/[A-Za-z0-9_-]+\/palaver-export-[A-Za-z0-9_-]+\.jsonl\.gz$/);
  t.is(typeof done.export_time, 'number');

  const events = (await admin.get('/events', { query: { queue_id: reg.queue_id, last_event_id: '-1', dont_block: 'true' } })).json.events as Record<string, any>[];
  const exportEvents = events.filter((e) => e.type === 'realm_export');
  t.true(exportEvents.length >= 2, 'one when requested (pending), one when done');
  t.true(exportEvents[0].exports.find((e: { id: number }) => e.id === made.json.id).pending);
  t.deepEqual(exportEvents.at(-1)!.exports.find((e: { id: number }) => e.id === made.json.id), done);

  const body = await fetchBytes(admin, done.export_url);
  const { header, rows } = await archiveOf(body);
  t.is(header.export_type, 'public');
  const contents = rows.messages.map((m) => m.content);
  t.deepEqual(contents, ['public words'], 'no private channel or direct messages');
  t.false(rows.users.some((u) => 'api_key' in u || 'password_hash' in u));
  t.false('drafts' in rows);

  // A public archive loads as an organization of its own (here beside the original, under a new subdomain), its
  // users with fresh API keys.
  const loaded = await importRealm(s.server.services.db, s.server.services.files.storage, Readable.from([body]), { subdomain: 'copy' });
  t.is(loaded.subdomain, 'copy');
  t.is(loaded.rows.messages, 1);
  const copied = await s.server.services.db.users.byEmail(loaded.realm_id, alice.email);
  t.regex(copied!.apiKey, /^[A-Za-z0-9]{32}$/);
  t.not(copied!.apiKey, alice.apiKey);
  t.is(copied!.passwordHash, null);

  const member = await download(as(alice), done.export_url);
  t.is(member.status, 400);
  t.is(member.json.msg, 'Must be an organization administrator');
  t.is((await download(as(mod), done.export_url)).status, 400);
});

test.serial('a standard export carries the private data of consenting users only; consents list them', async (t) => {
  const reg = (await admin.post('/register', { form: { event_types: JSON.stringify(['realm_export_consent']) } })).json;
  const patch = await as(alice).patch('/settings', { form: { allow_private_data_export: 'true' } });
  t.is(patch.status, 200, patch.text);
  const events = (await admin.get('/events', { query: { queue_id: reg.queue_id, last_event_id: '-1', dont_block: 'true' } })).json.events as Record<string, any>[];
  t.like(events.find((e) => e.type === 'realm_export_consent'), { user_id: alice.id, consented: true });
  const consents = (await admin.get('/export/realm/consents')).json.export_consents as { user_id: number; consented: boolean }[];
  t.deepEqual(consents.find((c) => c.user_id === alice.id), { user_id: alice.id, consented: true });
  t.deepEqual(consents.find((c) => c.user_id === bob.id), { user_id: bob.id, consented: false });
  const made = await admin.post('/export/realm', { form: { export_type: '2' } });
  t.is(made.status, 200, made.text);
  const done = await waitDone(made.json.id);
  t.is(done.export_type, 2);
  const { header, rows } = await archiveOf(await fetchBytes(admin, done.export_url));
  t.is(header.export_type, 'full_with_consent');
  t.deepEqual(rows.messages.map((m) => m.content).sort(), ['alice to bob', 'closed words', 'public words']);
});

test.serial('delete: the archive goes, the row stays marked; errors for unknown and deleted exports', async (t) => {
  const list = (await admin.get('/export/realm')).json.exports as Record<string, any>[];
  const target = list[0];
  const del = await admin.delete(`/export/realm/${target.id}`);
  t.is(del.status, 200, del.text);
  const after = ((await admin.get('/export/realm')).json.exports as Record<string, any>[]).find((e) => e.id === target.id)!;
  t.is(typeof after.deleted_timestamp, 'number');
  t.is(after.export_url, null);
  t.is((await download(admin, target.export_url)).status, 404);
  const again = await admin.delete(`/export/realm/${target.id}`);
  t.is(again.status, 400);
  t.is(again.json.msg, 'Export already deleted');
  const unknown = await admin.delete('/export/realm/999999');
  t.is(unknown.json.msg, 'Invalid data export ID');
  t.is((await admin.delete('/export/realm/abc')).status, 400);
});

test.serial('validation and permission refusals', async (t) => {
  const bad = await admin.post('/export/realm', { form: { export_type: '3' } });
  t.is(bad.status, 400);
  t.is(bad.json.msg, 'Invalid export_type');
  for (const u of [alice, mod]) {
    for (const r of [
      await as(u).post('/export/realm'),
      await as(u).get('/export/realm'),
      await as(u).delete('/export/realm/1'),
      await as(u).get('/export/realm/consents'),
    ]) {
      t.is(r.status, 400);
      t.is(r.json.code, 'UNAUTHORIZED_PRINCIPAL');
      t.is(r.json.msg, 'Must be an organization administrator');
    }
  }
  t.is((await s.client.get('/export/realm')).status, 401);
});

test.serial('at most five exports a week', async (t) => {
  const count = ((await admin.get('/export/realm')).json.exports as unknown[]).length;
  for (let i = count; i < EXPORTS_PER_WEEK; i++) await waitDone((await admin.post('/export/realm')).json.id);
  const over = await admin.post('/export/realm');
  t.is(over.status, 400);
  t.is(over.json.msg, 'Exceeded rate limit.');
});
