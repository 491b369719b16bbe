// The organization's email domains (/realm/domains) and its icon and logos (/realm/icon, /realm/logo) over HTTP:
// success with events that keep register consistent, validation errors and permission refusals.
import test from 'ava';
import sharp from 'sharp';
import { ROLE } from '../../src/model/realm.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';

let s: TestServer;
let admin: TestUser;
let member: TestUser;

test.before(async () => {
  s = await startTestServer();
  admin = await addUser(s, { role: ROLE.ADMINISTRATOR });
  member = await addUser(s, { role: ROLE.MEMBER });
});
test.after.always(() => s?.close());

let PNG: Buffer;
test.before(async () => {
  PNG = await sharp({ create: { width: 1600, height: 400, channels: 3, background: 'teal' } }).png().toBuffer();
});
const png = () => new File([new Uint8Array(PNG)], 'icon.png', { type: 'image/png' });
/** The served image's format and size. */
async function served(url: string) {
  const r = await fetch(`http://127.0.0.1:${s.port}${url}`);
  const { format, width, height } = await sharp(Buffer.from(await r.arrayBuffer())).metadata();
  return { format, width, height };
}
const domains = async () => (await s.client.as(member).get('/realm/domains')).json.domains;

test.serial('an owner adds, changes and removes a domain; register stays consistent', async (t) => {
  let added: any;
  const addEvents = await verifyAction(t, s, s.owner, async () => {
    added = await s.client.as(s.owner).post('/realm/domains', { form: { domain: '  Example.COM ', allow_subdomains: 'false' } });
  });
  t.is(added.status, 200, added.text);
  t.deepEqual(added.json.new_domain, [1, 'example.com']);
  t.like(addEvents[0], { type: 'realm_domains', op: 'add', realm_domain: { domain: 'example.com', allow_subdomains: false } });
  t.deepEqual(await domains(), [{ domain: 'example.com', allow_subdomains: false }]);

  const changeEvents = await verifyAction(t, s, s.owner, async () => {
    const r = await s.client.as(s.owner).patch('/realm/domains/example.com', { form: { allow_subdomains: 'true' } });
    t.is(r.status, 200, r.text);
  });
  t.like(changeEvents[0], { type: 'realm_domains', op: 'change', realm_domain: { domain: 'example.com', allow_subdomains: true } });

  t.is((await s.client.as(s.owner).patch('/realm', { form: { emails_restricted_to_domains: 'true' } })).status, 200);
  const removeEvents = await verifyAction(t, s, s.owner, async () => {
    const r = await s.client.as(s.owner).delete('/realm/domains/example.com');
    t.is(r.status, 200, r.text);
  });
  // The last domain gone, the restriction is lifted, as in the reference.
  t.deepEqual(
    removeEvents.map(({ id: _id, ...e }) => e),
    [
      { type: 'realm', op: 'update', property: 'emails_restricted_to_domains', value: false },
      { type: 'realm_domains', op: 'remove', domain: 'example.com' },
    ],
  );
  t.deepEqual(await domains(), []);
});

const invalid: [string, string][] = [
  ['', "Invalid domain: Domain can't be empty."],
  ['localhost', 'Invalid domain: Domain must have at least one dot (.)'],
  ['.example.com', 'Invalid domain: Domain cannot start or end with a dot (.)'],
  ['a..example.com', "Invalid domain: Consecutive '.' are not allowed."],
  ['-a.example.com', "Invalid domain: Subdomains cannot start or end with a '-'."],
  ['ex_ample.com', "Invalid domain: Domain can only have letters, numbers, '.' and '-'s."],
  [`${'a'.repeat(260)}.com`, 'Invalid domain: Domain is too long'],
];
for (const [domain, msg] of invalid) {
  test(`an invalid domain is refused: ${JSON.stringify(domain.slice(0, 20))}`, async (t) => {
    const r = await s.client.as(s.owner).post('/realm/domains', { form: { domain, allow_subdomains: 'false' } });
    t.is(r.status, 400);
    t.like(r.json, { result: 'error', code: 'BAD_REQUEST', msg });
  });
}

test.serial('a domain already there, an unknown domain and a missing flag are refused', async (t) => {
  t.is((await s.client.as(s.owner).post('/realm/domains', { form: { domain: 'dup.example', allow_subdomains: 'false' } })).status, 200);
  const dup = await s.client.as(s.owner).post('/realm/domains', { form: { domain: 'DUP.example', allow_subdomains: 'true' } });
  t.like(dup.json, { code: 'BAD_REQUEST', msg: 'The domain dup.example is already a part of your organization.' });
  const unknown = await s.client.as(s.owner).patch('/realm/domains/nowhere.example', { form: { allow_subdomains: 'true' } });
  t.like(unknown.json, { code: 'BAD_REQUEST', msg: 'No entry found for domain nowhere.example.' });
  t.like((await s.client.as(s.owner).delete('/realm/domains/nowhere.example')).json, { msg: 'No entry found for domain nowhere.example.' });
  const missing = await s.client.as(s.owner).post('/realm/domains', { form: { domain: 'other.example' } });
  t.like(missing.json, { code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'allow_subdomains' argument" });
  t.is((await s.client.as(s.owner).delete('/realm/domains/dup.example')).status, 200);
});

test('only owners change domains; everyone may list them', async (t) => {
  for (const who of [admin, member]) {
    const add = await s.client.as(who).post('/realm/domains', { form: { domain: 'nope.example', allow_subdomains: 'false' } });
    t.like(add.json, { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization owner' });
    t.like((await s.client.as(who).delete('/realm/domains/nope.example')).json, { msg: 'Must be an organization owner' });
  }
  t.is((await s.client.as(member).get('/realm/domains')).status, 200);
});

test.serial('an administrator uploads and removes the icon; the URL serves the image and register follows', async (t) => {
  let reply: any;
  const events = await verifyAction(t, s, s.owner, async () => {
    reply = await s.client.as(admin).post('/realm/icon', { multipart: { file: png() } });
  });
  t.is(reply.status, 200, reply.text);
  t.regex(reply.json.icon_url, /^\/user_avatars\/\d+\/realm\/icon-[0-9a-f]{16}\.png\?version=2$/);
  t.deepEqual(events.map(({ id: _id, ...e }) => e), [{ type: 'realm', op: 'update_dict', property: 'icon', data: { icon_url: reply.json.icon_url, icon_source: 'U' } }]);
  const got = await s.client.get(reply.json.icon_url.split('?')[0], { root: true });
  t.is(got.status, 200);
  t.is(got.headers['content-type'], 'image/png');
  // The reference's icon: 100×100 PNG, whatever was uploaded.
  t.deepEqual(await served(reply.json.icon_url), { format: 'png', width: 100, height: 100 });
  // A new upload replaces the file: the old URL is gone, the new one serves.
  const again = await s.client.as(admin).post('/realm/icon', { multipart: { file: png() } });
  t.regex(again.json.icon_url, /version=3$/);
  t.is((await s.client.get(reply.json.icon_url.split('?')[0], { root: true })).status, 404);
  t.is((await s.client.get(again.json.icon_url.split('?')[0], { root: true })).status, 200);

  const removed = await verifyAction(t, s, s.owner, async () => {
    const r = await s.client.as(admin).delete('/realm/icon');
    t.is(r.status, 200, r.text);
    t.regex(r.json.icon_url, /palaver-icon\.png$/);
  });
  t.like(removed[0], { property: 'icon', data: { icon_source: 'G' } });
});

test.serial('day and night logos are uploaded and removed separately', async (t) => {
  const events = await verifyAction(t, s, s.owner, async () => {
    // night as a field of the multipart body (as the reference's clients send it), or in the query string.
    t.is((await s.client.as(s.owner).post('/realm/logo', { multipart: { night: 'true', file: png() } })).status, 200);
    t.is((await s.client.as(s.owner).post('/realm/logo', { query: { night: 'false' }, multipart: { file: png() } })).status, 200);
    t.is((await s.client.as(s.owner).delete('/realm/logo', { form: { night: 'false' } })).status, 200);
  });
  t.deepEqual(events.map((e) => [e.property, Object.values(e.data).at(-1)]), [['night_logo', 'U'], ['logo', 'U'], ['logo', 'D']]);
  const reg = (await s.client.as(member).post('/register', { form: { event_types: '["realm"]' } })).json;
  t.is(reg.realm_night_logo_source, 'U');
  t.is(reg.realm_logo_source, 'D');
  // The reference's logo: within 800×100, proportions kept.
  t.deepEqual(await served(reg.realm_night_logo_url), { format: 'png', width: 400, height: 100 });
});

test('icon and logo: members are refused, bad uploads are refused', async (t) => {
  for (const path of ['/realm/icon', '/realm/logo']) {
    const r = await s.client.as(member).post(path, { query: { night: 'false' }, multipart: { file: png() } });
    t.like(r.json, { code: 'UNAUTHORIZED_PRINCIPAL', msg: 'Must be an organization administrator' });
    t.like((await s.client.as(member).delete(path, { query: { night: 'false' } })).json, { msg: 'Must be an organization administrator' });
  }
  const none = await s.client.as(admin).post('/realm/icon', { multipart: { note: 'no file here' } });
  t.like(none.json, { code: 'BAD_REQUEST', msg: 'You must upload exactly one icon.' });
  const two = await s.client.as(admin).post('/realm/logo', { multipart: { night: 'false', a: png(), b: png() } });
  const noNight = await s.client.as(admin).post('/realm/logo', { multipart: { file: png() } });
  t.like(noNight.json, { code: 'REQUEST_VARIABLE_MISSING', msg: "Missing 'night' argument" });
  const badNight = await s.client.as(admin).post('/realm/logo', { multipart: { night: 'dark', file: png() } });
  t.like(badNight.json, { code: 'BAD_REQUEST', msg: 'night is not a boolean' });
  t.like(two.json, { code: 'BAD_REQUEST', msg: 'You must upload exactly one logo.' });
  const text = await s.client.as(admin).post('/realm/icon', { multipart: { file: new File(['not an image'], 'x.png') } });
  t.like(text.json, { code: 'BAD_REQUEST', msg: 'Could not decode image; did you upload an image file?' });
  const big = await s.client.as(admin).post('/realm/icon', { multipart: { file: new File([new Uint8Array(PNG), new Uint8Array(5 * 1024 * 1024)], 'big.png') } });
  t.is(big.status, 413);
  t.like(big.json, { msg: 'Uploaded file is larger than the allowed limit of 5 MiB' });
  t.is((await s.client.get('/user_avatars/1/realm/logo.gif', { root: true })).status, 404);
  t.is((await s.client.get('/user_avatars/1/realm/..%2F..%2Fetc%2Fpasswd', { root: true })).status, 404);
});
