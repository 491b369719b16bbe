// Custom emoji: adding one (name rules, permissions, image checks), listing, deactivating, realm_emoji events
// that keep a register snapshot current, the served image, and the lookup statuses and reactions use.
import test from 'ava';
import { checkEmoji, customEmojiById } from '../../src/realm/files/index.js';
import { ROLE } from '../../src/model/realm.js';
import type { Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { verifyAction } from '../helpers/verify-action.js';
import { realmOf } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR and the rest of a tiny image')]);
const GIF = Buffer.from('GIF89a tiny animation');

function addEmoji(who: Credentials, name: string, data: Buffer = PNG, filename = 'emoji.png') {
  return s.client.as(who).post(`/realm/emoji/${encodeURIComponent(name)}`, { multipart: { file: new File([new Uint8Array(data)], filename) } });
}

async function emojiNamed(name: string) {
  const all = (await s.client.as(s.owner).get('/realm/emoji')).json.emoji as Record<string, Record<string, any>>;
  return Object.values(all).find((e) => e.name === name && !e.deactivated);
}

test.serial('adding an emoji: realm_emoji keeps the snapshot current; listed with its image URL; the image is served', async (t) => {
  const member = await addUser(s);
  const events = await verifyAction(t, s, s.owner, async () => {
    const r = await addEmoji(member, 'green_tick');
    t.is(r.status, 200, r.text);
  }, { eventTypes: ['realm_emoji'] });
  t.is(events.length, 1);
  t.like(events[0], { type: 'realm_emoji', op: 'update' });
  const e = await emojiNamed('green_tick');
  t.truthy(e);
  t.deepEqual(Object.keys(e!).sort(), ['author_id', 'deactivated', 'id', 'name', 'source_url', 'still_url']);
  t.like(e, { name: 'green_tick', deactivated: false, author_id: member.id, still_url: null });
  t.deepEqual(events[0]!.realm_emoji[e!.id], e);
  t.regex(e!.source_url, new RegExp(`^/user_avatars/${(await realmOf(s)).state.realm.id}/emoji/images/[A-Za-z0-9_-]+\\.png$`));
  const image = await fetch(`http://127.0.0.1:${s.port}${e!.source_url}`);
  t.is(image.status, 200);
  t.is(image.headers.get('content-type'), 'image/png');
  t.deepEqual(Buffer.from(await image.arrayBuffer()), PNG);
});

test('names: normalized, checked, and unique among active emoji', async (t) => {
  const cases: [string, string][] = [
    ['party!', 'Emoji names must contain only lowercase alphanumeric characters, dashes, underscores and periods.'],
    ['ends_', 'Emoji names must end with either a letter or digit.'],
    ['   ', 'Emoji name is missing'],
  ];
  for (const [name, msg] of cases) {
    const r = await addEmoji(s.owner, name);
    t.is(r.status, 400, name);
    t.is(r.json.msg, msg);
  }
  t.is((await addEmoji(s.owner, 'Big Wave')).status, 200);
  t.truthy(await emojiNamed('big_wave'), 'spaces become underscores and letters lower case');
  const again = await addEmoji(s.owner, 'big_wave', GIF, 'wave.gif');
  t.is(again.status, 400);
  t.is(again.json.msg, 'A custom emoji with this name already exists.');
});

test('images only, within the size limit', async (t) => {
  const text = await addEmoji(s.owner, 'not_an_image', Buffer.from('just text'), 'x.png');
  t.is(text.status, 400);
  t.is(text.json.msg, 'Invalid image format');
  const huge = await addEmoji(s.owner, 'huge', Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)])).catch(() => null);
  if (huge) {
    t.is(huge.status, 413);
    t.is(huge.json.msg, 'Uploaded file is larger than the allowed limit of 5 MiB');
  }
  t.falsy(await emojiNamed('not_an_image'));
  t.falsy(await emojiNamed('huge'));
  const none = await s.client.as(s.owner).post('/realm/emoji/nofile', { multipart: { x: 'y' } });
  t.is(none.json.msg, 'You must specify a file to upload');
});

test('permissions: guests may not add; only administrators override a standard emoji', async (t) => {
  const guest = await addUser(s, { role: ROLE.GUEST });
  const member = await addUser(s);
  const admin = await addUser(s, { role: ROLE.ADMINISTRATOR });
  const byGuest = await addEmoji(guest, 'guest_made');
  t.is(byGuest.status, 400);
  t.is(byGuest.json.msg, 'Insufficient permission');
  const override = await addEmoji(member, 'smile');
  t.is(override.json.msg, 'Only administrators can override default emoji.');
  t.is((await addEmoji(admin, 'smile')).status, 200);
});

test.serial('deactivating: the author or an administrator; kept in the list as deactivated; the name is free again', async (t) => {
  const author = await addUser(s);
  const other = await addUser(s);
  t.is((await addEmoji(author, 'short_lived')).status, 200);
  const e = (await emojiNamed('short_lived'))!;
  const notYours = await s.client.as(other).delete('/realm/emoji/short_lived');
  t.is(notYours.status, 400);
  t.is(notYours.json.msg, 'Must be an organization administrator or emoji author');
  const events = await verifyAction(t, s, s.owner, async () => {
    t.is((await s.client.as(author).delete('/realm/emoji/short_lived')).status, 200);
  }, { eventTypes: ['realm_emoji'] });
  t.is(events[0]!.realm_emoji[e.id].deactivated, true);
  const listed = (await s.client.as(s.owner).get('/realm/emoji')).json.emoji;
  t.is(listed[e.id].deactivated, true);
  const missing = await s.client.as(s.owner).delete('/realm/emoji/short_lived');
  t.is(missing.status, 404);
  t.is(missing.json.msg, "Emoji 'short_lived' does not exist");
  t.is((await addEmoji(author, 'short_lived')).status, 200, 'a deactivated name can be used again');
  t.is((await fetch(`http://127.0.0.1:${s.port}${e.source_url}`)).status, 200, 'old messages still show the image');
});

test('the lookup for statuses and reactions: by ID, refusing unknown and deactivated emoji', async (t) => {
  t.is((await addEmoji(s.owner, 'lookup_me')).status, 200);
  const e = (await emojiNamed('lookup_me'))!;
  const state = (await realmOf(s)).state;
  t.is(customEmojiById(state, e.id)?.name, 'lookup_me');
  t.notThrows(() => checkEmoji(state, 'lookup_me', String(e.id), 'realm_emoji'));
  t.is(customEmojiById(state, '999999'), undefined);
  t.is(customEmojiById(state, 'abc'), undefined);
  t.throws(() => checkEmoji(state, 'lookup_me', '999999', 'realm_emoji'), { message: 'Invalid custom emoji.' });
  await s.client.as(s.owner).delete('/realm/emoji/lookup_me');
  t.true(customEmojiById(state, e.id)!.deactivated);
  t.throws(() => checkEmoji(state, 'lookup_me', String(e.id), 'realm_emoji'), { message: 'This custom emoji has been deactivated.' });
});
