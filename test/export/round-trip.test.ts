// `bin/palaver export` then `import` into an EMPTY database (its sequences moved on, so every ID changes): the
// API's view of the organization — users, channels, every message with reactions and edit history, uploads'
// bytes — is the same before and after, once IDs are replaced by natural keys (emails, names, message order).
import test from 'ava';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pgPromise from 'pg-promise';
import sharp from 'sharp';
import { createTestDatabase } from '../helpers/database.js';
import { Client, type Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { NOT_EXPORTED, TABLES } from '../../src/export/tables.js';

const run = promisify(execFile);
const pgp = pgPromise();

function cliEnv(dataDir: string, databaseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, DATA_DIR: dataDir, DATABASE_URL: databaseUrl, PASSWORD_HASH_COST: '12' };
}

async function cli(env: NodeJS.ProcessEnv, ...args: string[]) {
  const { stdout } = await run('bin/palaver', args, { env, maxBuffer: 16 * 1024 * 1024 });
  return JSON.parse(stdout);
}

interface Names {
  users: Map<number, string>;
  channels: Map<number, string>;
  groups: Map<number, string>;
  messages: Map<number, string>;
  fields: Map<number, string>;
}

/** The view with every ID replaced by a natural key, so two servers' views compare equal. */
function canon(v: unknown, n: Names, key = ''): unknown {
  const name = (map: Map<number, string>, id: unknown, kind: string) => (typeof id === 'number' ? (map.get(id) ?? `${kind}?${id}`) : id);
  if (Array.isArray(v)) return v.map((x) => canon(x, n, key));
  if (typeof v === 'string') {
    return v
      .replace(/\/user_uploads\/\d+\//g, '/user_uploads/R/')
      .replace(/data-user-id="(\d+)"/g, (_a, id) => `data-user-id="${name(n.users, Number(id), 'u')}"`)
      .replace(/data-stream-id="(\d+)"/g, (_a, id) => `data-stream-id="${name(n.channels, Number(id), 'c')}"`)
      .replace(/data-user-group-id="(\d+)"/g, (_a, id) => `data-user-group-id="${name(n.groups, Number(id), 'g')}"`)
      .replace(/#narrow\/channel\/(\d+)-/g, (_a, id) => `#narrow/channel/${name(n.channels, Number(id), 'c')}-`);
  }
  if (v === null || typeof v !== 'object') {
    if (['user_id', 'sender_id', 'bot_owner_id', 'creator_id'].includes(key)) return name(n.users, v, 'u');
    if (['stream_id', 'stream', 'prev_stream'].includes(key)) return name(n.channels, v, 'c');
    if (key === 'first_message_id') return name(n.messages, v, 'm');
    if (key.startsWith('can_')) return name(n.groups, v, 'g');
    return v;
  }
  const o = v as Record<string, unknown>;
  if (key === 'profile_data') {
    // Keyed by field ID; a users field's value is a JSON list of user IDs.
    return Object.fromEntries(
      Object.entries(o).map(([id, x]) => {
        const field = name(n.fields, Number(id), 'f') as string;
        const value = (x as { value: string }).value;
        const shown = field === 'Mentor' ? (JSON.parse(value) as number[]).map((u) => name(n.users, u, 'u')) : value;
        return [field, { ...(x as object), value: shown }];
      }),
    );
  }
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(o)) {
    if (k === 'recipient_id') continue;
    if (k === 'id' && 'sender_id' in o) out[k] = name(n.messages, x, 'm');
    else if ((k === 'id' && 'email' in o) || (k === 'direct_members' && Array.isArray(x))) out[k] = Array.isArray(x) ? x.map((id) => name(n.users, id, 'u')) : name(n.users, x, 'u');
    else if (k === 'direct_subgroups' && Array.isArray(x)) out[k] = x.map((id) => name(n.groups, id, 'g'));
    else out[k] = canon(x, n, k);
  }
  return out;
}

async function allMessages(c: Client): Promise<Record<string, unknown>[]> {
  const out: Record<string, unknown>[] = [];
  let anchor = 'oldest';
  for (;;) {
    const r = await c.get('/messages', { query: { anchor, num_before: '0', num_after: '3', narrow: '[]', include_anchor: String(anchor === 'oldest'), apply_markdown: 'true' } });
    if (r.status !== 200) throw new Error(r.text);
    out.push(...r.json.messages);
    if (r.json.found_newest || r.json.messages.length === 0) return out;
    anchor = String(r.json.messages.at(-1).id);
  }
}

interface View {
  users: unknown;
  streams: unknown;
  messages: Record<string, unknown[]>;
  uploads: Record<string, string>;
  /** Custom emoji by name, and the organization icon: the served bytes. */
  images: Record<string, string>;
  names: Names;
}

/** What each viewer sees through the API, and the bytes of every upload the messages link. */
async function view(s: TestServer, viewers: Record<string, Credentials>): Promise<View> {
  const owner = s.client.as(viewers.owner);
  const users = (await owner.get('/users', { query: { include_custom_profile_fields: 'true' } })).json.members as { user_id: number; email: string }[];
  const streams = (await owner.get('/streams', { query: { include_all: 'true' } })).json.streams as { stream_id: number; name: string }[];
  const groups = (await owner.get('/user_groups')).json.user_groups as { id: number; name: string }[];
  const names: Names = {
    users: new Map(users.map((u) => [u.user_id, u.email])),
    channels: new Map(streams.map((c) => [c.stream_id, c.name])),
    groups: new Map(groups.map((g) => [g.id, g.name])),
    messages: new Map(),
    fields: new Map(((await owner.get('/realm/profile_fields')).json.custom_fields as { id: number; name: string }[]).map((f) => [f.id, f.name])),
  };
  const raw: Record<string, Record<string, unknown>[]> = {};
  for (const [who, cred] of Object.entries(viewers)) raw[who] = await allMessages(s.client.as(cred));
  // Messages are named by their position among all the viewers' messages in ID order.
  const ids = [...new Set(Object.values(raw).flatMap((list) => list.map((m) => m.id as number)))].sort((a, b) => a - b);
  ids.forEach((id, i) => names.messages.set(id, `m${i}`));
  const uploads: Record<string, string> = {};
  for (const m of raw.owner) {
    for (const [, url] of String(m.content).matchAll(/href="(\/user_uploads\/[^"]+)"/g)) {
      const r = await owner.get(url, { root: true });
      if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
      uploads[canon(url, names) as string] = Buffer.from(r.text, 'latin1').toString('base64');
    }
  }
  const bytes = async (url: string) => {
    const r = await fetch(`http://127.0.0.1:${s.port}${new URL(url, 'http://x').pathname}`);
    if (r.status !== 200) throw new Error(`${url}: ${r.status}`);
    return Buffer.from(await r.arrayBuffer()).toString('base64');
  };
  const images: Record<string, string> = {};
  for (const e of Object.values((await owner.get('/realm/emoji')).json.emoji as Record<string, { name: string; source_url: string }>)) {
    images[`emoji:${e.name}`] = await bytes(e.source_url);
  }
  images.icon = await bytes((await owner.post('/register', { form: { fetch_event_types: JSON.stringify(['realm']) } })).json.realm_icon_url);
  const by = <T,>(key: keyof T) => (a: T, b: T) => String(a[key]).localeCompare(String(b[key]));
  return {
    // Sorted by natural key: the listing's order is not part of the API's promise.
    users: canon([...users].sort(by('email')), names),
    streams: canon([...streams].sort(by('name')), names),
    messages: Object.fromEntries(Object.entries(raw).map(([k, v]) => [k, canon(v, names) as unknown[]])),
    uploads,
    images,
    names,
  };
}

let source: TestServer;
let target: TestServer | undefined;
test.after.always(async () => {
  await source?.close();
  await target?.close();
});

test('export then import into an empty database reproduces users, channels, messages and uploads', async (t) => {
  source = await startTestServer();
  const s = source;
  const alice = await addUser(s, { email: 'alice@test.example', fullName: 'Alice', password: 'alice-password-1' });
  const bob = await addUser(s, { email: 'bob@test.example', fullName: 'Bob', role: 600 });
  const owner = s.client.as(s.owner);
  const ok = async (p: Promise<{ status: number; text: string; json: any }>) => {
    const r = await p;
    if (r.status !== 200) throw new Error(r.text);
    return r.json;
  };
  await ok(owner.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: 'lobby', description: 'Chat **here**' }]), principals: JSON.stringify([alice.id, bob.id]) } }));
  await ok(owner.post('/users/me/subscriptions', { form: { subscriptions: JSON.stringify([{ name: 'secret' }]), invite_only: 'true', principals: JSON.stringify([alice.id]) } }));
  const file = await ok(owner.post('/user_uploads', { multipart: { file: new Blob([Buffer.from([0, 1, 2, 255, 254, 10, 13])], { type: 'application/octet-stream' }) } }));
  const send = (c: Client, form: Record<string, string>) => ok(c.post('/messages', { form }));
  const first = await send(owner, { type: 'stream', to: 'lobby', topic: 'hello', content: `Hi @**Alice** see #**lobby** and [the file](${file.url})` });
  await send(s.client.as(alice), { type: 'stream', to: 'secret', topic: 'shh', content: 'private channel message' });
  const dm = await send(owner, { type: 'direct', to: JSON.stringify([alice.id]), content: 'a direct message' });
  await send(s.client.as(bob), { type: 'direct', to: JSON.stringify([s.owner.email, alice.email]), content: 'a group direct message' });
  for (let i = 0; i < 4; i++) await send(s.client.as(alice), { type: 'stream', to: 'lobby', topic: `t${i % 2}`, content: `message ${i}` });
  await ok(owner.patch(`/messages/${first.id}`, { form: { content: `Hi again @**Alice** and [the file](${file.url})` } }));
  await ok(owner.patch(`/messages/${dm.id}`, { form: { content: 'an edited direct message' } }));
  await ok(s.client.as(alice).post(`/messages/${first.id}/reactions`, { form: { emoji_name: 'smile' } }));
  await ok(s.client.as(bob).post(`/messages/${first.id}/reactions`, { form: { emoji_name: 'octopus' } }));
  await ok(s.client.as(alice).post('/messages/flags', { form: { messages: JSON.stringify([first.id]), op: 'add', flag: 'starred' } }));
  const icon = await sharp({ create: { width: 64, height: 64, channels: 3, background: 'teal' } }).png().toBuffer();
  const png = (name: string) => new File([new Uint8Array(icon)], name, { type: 'image/png' });
  const emoji = await owner.post('/realm/emoji/party_parrot', { multipart: { file: png('parrot.png') } });
  t.is(emoji.status, 200, emoji.text);
  t.is((await owner.post('/realm/icon', { multipart: { file: png('icon.png') } })).status, 200);
  const field = await ok(owner.post('/realm/profile_fields', { form: { name: 'Mentor', hint: '', field_type: '6' } }));
  await ok(s.client.as(alice).patch('/users/me/profile_data', { form: { data: JSON.stringify([{ id: field.id, value: [bob.id] }]) } }));
  await ok(s.client.as(alice).post(`/users/me/muted_users/${bob.id}`));
  await ok(owner.post('/bots', { form: { full_name: 'Hook', short_name: 'hook', bot_type: '3', payload_url: JSON.stringify('http://127.0.0.1:9/hook'), default_sending_stream: 'lobby' } }));
  const viewers = { owner: s.owner, alice: { email: alice.email, apiKey: alice.apiKey }, bob: { email: bob.email, apiKey: bob.apiKey } };
  const before = await view(s, viewers);
  t.is(Object.keys(before.uploads).length, 1);

  const dir = mkdtempSync(path.join(tmpdir(), 'palaver-export-'));
  try {
    const archive = path.join(dir, 'realm.jsonl.gz');
    const exported = await cli(cliEnv(s.dataDir, s.databaseUrl!), 'export', '--realm', '', '--out', archive);
    t.is(exported.files, 3, 'the upload, the emoji and the icon');
    t.deepEqual(exported.missingFiles, []);

    // An empty database whose sequences are past the source's, so no imported row can keep its ID.
    const empty = (await createTestDatabase())!;
    const targetDir = mkdtempSync(path.join(tmpdir(), 'palaver-import-'));
    const env = cliEnv(targetDir, empty.url);
    await cli(env, 'list-realms');
    const tdb = pgp({ connectionString: empty.url, max: 1 });
    for (const table of ['realms', 'users', 'user_groups', 'channels', 'messages', 'reactions', 'attachments', 'direct_conversations']) {
      await tdb.one(`SELECT setval(pg_get_serial_sequence($1, 'id'), 1000 + (SELECT count(*) FROM ${table}))`, [table]);
    }
    await tdb.$pool.end();
    const imported = await cli(env, 'import', '--file', archive);
    t.is(imported.subdomain, '');
    t.true(imported.realm_id > 1000);
    t.is(imported.files, 3);
    const again = await run('bin/palaver', ['import', '--file', archive], { env }).catch((e) => e);
    t.is(again.code, 1, 'a taken subdomain is refused');

    target = await startTestServer({ reuse: { dataDir: targetDir, databaseUrl: empty.url, testDatabase: empty } });
    const after = await view(target, viewers);
    t.not([...after.names.users.keys()].join(), [...before.names.users.keys()].join(), 'IDs changed');
    t.deepEqual(after.users, before.users);
    t.true(JSON.stringify(before.users).includes('"Mentor":{"value":["bob@test.example"]'), 'the users field is compared');
    const muted = async (srv: TestServer) => {
      const reg = (await srv.client.as(viewers.alice).post('/register', { form: { fetch_event_types: JSON.stringify(['muted_users']) } })).json;
      const ids = new Map(((await srv.client.as(viewers.owner).get('/users')).json.members as { user_id: number; email: string }[]).map((u) => [u.user_id, u.email]));
      return (reg.muted_users as { id: number }[]).map((x) => ids.get(x.id));
    };
    t.deepEqual(await muted(target), ['bob@test.example']);
    const bots = async (srv: TestServer) => {
      const reg = (await srv.client.as(viewers.owner).post('/register', { form: { fetch_event_types: JSON.stringify(['realm_bot']) } })).json;
      return (reg.realm_bots as Record<string, any>[]).map((b) => [b.email, b.default_sending_stream, b.services[0]?.base_url]);
    };
    const botsAfter = await bots(target);
    t.deepEqual(botsAfter, await bots(s));
    t.is(botsAfter.length, 1);
    t.deepEqual(botsAfter[0]!.slice(1), ['lobby', 'http://127.0.0.1:9/hook']);
    t.deepEqual(after.streams, before.streams);
    t.deepEqual(after.messages, before.messages);
    t.deepEqual(after.uploads, before.uploads);
    t.deepEqual(after.images, before.images);
    t.deepEqual(Object.keys(after.images).sort(), ['emoji:party_parrot', 'icon']);
    t.is(before.names.messages.size, 8);
    t.is(before.messages.alice.length, 8);
    t.is(before.messages.owner.length, 3, 'what the owner sent or received');
    t.is(before.messages.bob.length, 6, 'the guest sees lobby and the group DM');
    // A table added later must be exported or deliberately left out.
    const tables = await s.server.services.db.map(`SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()`, [], (r) => r.table_name as string);
    const known = new Set([...TABLES.map((x) => x.name), ...NOT_EXPORTED]);
    t.deepEqual(tables.filter((x) => !known.has(x)), []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
