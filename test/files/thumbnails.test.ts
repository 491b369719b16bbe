// Thumbnails of uploaded images over real HTTP: the reference's preview markup in rendered_content (the thumbnail,
// or the placeholder then a rendering-only update_message), the thumbnail served at the reference's URL with the
// upload's own permissions, and images that get no preview (bombs, bad bytes, non-images).
import test from 'ava';
import sharp from 'sharp';
import { crc32 } from 'node:zlib';
import { basicAuth, type Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dm, makeCast, register } from '../messages/helpers.js';
import { upload } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer();
});
test.after.always(async () => s?.close());

const pathIdOf = (url: string) => url.replace(/^\/user_uploads\//, '');
const thumbnailer = () => s.server.services.files.thumbnailer;

async function png(width: number, height: number): Promise<Buffer> {
  return sharp({ create: { width, height, channels: 3, background: { r: 200, g: 30, b: 30 } } }).png().toBuffer();
}

/** A GET whose body stays bytes (images), optionally authenticated. */
async function fetchBytes(url: string, as: Credentials | null) {
  const res = await fetch(`http://127.0.0.1:${s.port}${url}`, { headers: as ? { authorization: basicAuth(as.email, as.apiKey) } : {} });
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
}

async function rendered(as: Credentials, id: number): Promise<string> {
  const r = await s.client.as(as).get(`/messages/${id}`);
  return r.json.message.content as string;
}

test('a message linking a thumbnailed upload carries the reference thumbnail markup', async (t) => {
  const { member, other } = await makeCast(s);
  const up = await upload(s, member, 'cat.png', await png(1920, 1080), 'image/png');
  await thumbnailer().settled(pathIdOf(up.url));
  const id = await dm(s, member, [other.id], `[cat.png](${up.url})`);
  const thumb = `/user_uploads/thumbnail/${pathIdOf(up.url)}/840x560.webp`;
  t.true(
    (await rendered(other, id)).endsWith(
      `\n<div class="message_inline_image"><a href="${up.url}" title="cat.png">` +
        `<img data-original-content-type="image/png" data-original-dimensions="1920x1080" src="${thumb}"></a></div>`,
    ),
  );
});

test('the thumbnail is an 840x560-bounded webp for those who may download the upload, and 404 for others', async (t) => {
  const { member, other, guest } = await makeCast(s);
  const up = await upload(s, member, 'wide.png', await png(1920, 1080), 'image/png');
  await thumbnailer().settled(pathIdOf(up.url));
  await dm(s, member, [other.id], `[wide.png](${up.url})`);
  const thumb = `/user_uploads/thumbnail/${pathIdOf(up.url)}/840x560.webp`;
  for (const who of [member, other]) {
    const r = await fetchBytes(thumb, who);
    t.is(r.status, 200);
    t.is(r.type, 'image/webp');
    const meta = await sharp(r.body).metadata();
    t.deepEqual([meta.format, meta.width, meta.height], ['webp', 840, 473]);
  }
  t.is((await fetchBytes(thumb, guest)).status, 404, 'not a recipient: as for the upload itself');
  t.is((await fetchBytes(up.url, guest)).status, 404);
  t.is((await fetchBytes(thumb, null)).status, 401);
  // A format the server does not make is answered with the closest one; a name that is no format is not found.
  const other300 = await fetchBytes(`/user_uploads/thumbnail/${pathIdOf(up.url)}/300x200.webp`, member);
  t.is(other300.status, 200);
  t.is((await sharp(other300.body).metadata()).width, 840);
  t.is((await fetchBytes(`/user_uploads/thumbnail/${pathIdOf(up.url)}/840x560.exe`, member)).status, 404);
});

test('small images are never enlarged; EXIF rotation is applied to dimensions and thumbnail', async (t) => {
  const { member } = await makeCast(s);
  const small = await upload(s, member, 'small.png', await png(40, 30), 'image/png');
  const turned = await sharp({ create: { width: 1000, height: 500, channels: 3, background: 'blue' } }).jpeg().withMetadata({ orientation: 6 }).toBuffer();
  const photo = await upload(s, member, 'photo.jpg', turned, 'image/jpeg');
  await thumbnailer().settled(pathIdOf(small.url));
  await thumbnailer().settled(pathIdOf(photo.url));
  const a = await fetchBytes(`/user_uploads/thumbnail/${pathIdOf(small.url)}/840x560.webp`, member);
  t.deepEqual([(await sharp(a.body).metadata()).width, (await sharp(a.body).metadata()).height], [40, 30]);
  const b = await fetchBytes(`/user_uploads/thumbnail/${pathIdOf(photo.url)}/840x560.webp`, member);
  const m = await sharp(b.body).metadata();
  t.deepEqual([m.width, m.height], [280, 560], 'portrait after rotation');
  const r = await s.client.as(member).post('/messages/render', { form: { content: `[p](${photo.url})` } });
  t.true((r.json.rendered as string).includes('data-original-dimensions="500x1000"'));
});

test('a message sent while thumbnails are pending shows the placeholder, then a rendering-only update_message', async (t) => {
  const { member, other } = await makeCast(s);
  const up = await upload(s, member, 'later.png', await png(1200, 900), 'image/png');
  const pathId = pathIdOf(up.url);
  await thumbnailer().settled(pathId);
  // As if the thumbnails were not made yet (a backlog, or a restart before the job ran).
  await s.server.services.db.none(`UPDATE image_attachments SET thumbnails = '[]' WHERE path_id = $1`, [pathId]);
  const q = await register(s, other, { event_types: '["update_message"]' });
  const id = await dm(s, member, [other.id], `[later.png](${up.url})`);
  const placeholder =
    `<div class="message_inline_image"><a href="${up.url}" title="later.png">` +
    '<img class="image-loading-placeholder" data-original-dimensions="1200x900" src="/static/images/loading/loader-black.svg"></a></div>';
  const sent = await s.client.as(other).get(`/messages/${id}`);
  const first = sent.json.message.content as string;
  // The job runs right after the send; the message shows either state, the placeholder first.
  const done =
    `<div class="message_inline_image"><a href="${up.url}" title="later.png">` +
    `<img data-original-content-type="image/png" data-original-dimensions="1200x900" src="/user_uploads/thumbnail/${pathId}/840x560.webp"></a></div>`;
  t.true(first.endsWith(placeholder) || first.endsWith(done), first);
  const polled = await s.client.as(other).get('/events', { query: { queue_id: q.queue_id, last_event_id: '-1' } });
  const [e] = polled.json.events.filter((x: { type: string }) => x.type === 'update_message');
  t.like(e, { type: 'update_message', user_id: null, rendering_only: true, message_id: id, message_ids: [id], content: `[later.png](${up.url})` });
  t.true((e.rendered_content as string).endsWith(done));
  t.deepEqual(e.flags, []);
  t.true((await rendered(other, id)).endsWith(done));
});

/** A PNG whose header claims `w`×`h` pixels, with no pixel data worth the name. */
function pngHeaderOnly(w: number, h: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(w, 0);
  ihdr.writeUInt32BE(h, 4);
  ihdr.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IEND', Buffer.alloc(0))]);
}

test('image bombs, undecodable bytes and non-image types are stored but get no preview and no thumbnail', async (t) => {
  const { member, other } = await makeCast(s);
  const bomb = await upload(s, member, 'bomb.png', pngHeaderOnly(30000, 30000), 'image/png');
  const junk = await upload(s, member, 'junk.png', 'not an image at all', 'image/png');
  const text = await upload(s, member, 'notes.txt', 'hello', 'text/plain');
  for (const u of [bomb, junk, text]) {
    t.is((await fetchBytes(u.url, member)).status, 200, 'the upload itself is kept');
    const id = await dm(s, member, [other.id], `[file](${u.url})`);
    t.false((await rendered(other, id)).includes('message_inline_image'), u.url);
    t.is((await fetchBytes(`/user_uploads/thumbnail/${pathIdOf(u.url)}/840x560.webp`, member)).status, 404);
  }
  t.is(await s.server.services.db.imageAttachments.byPathId(pathIdOf(bomb.url)), null);
});

test('an animated image gets the animated default thumbnail and data-animated', async (t) => {
  const { member, other } = await makeCast(s);
  const frame = (rgb: number[]) => Buffer.concat(Array.from({ length: 60 * 40 }, () => Buffer.from([...rgb, 255])));
  const frames = Buffer.concat([[255, 0, 0], [0, 255, 0], [0, 0, 255]].map(frame));
  const gif = await sharp(frames, { raw: { width: 60, height: 120, channels: 4, pageHeight: 40 } }).gif().toBuffer();
  t.is((await sharp(gif).metadata()).pages, 3);
  const up = await upload(s, member, 'anim.gif', gif, 'image/gif');
  await thumbnailer().settled(pathIdOf(up.url));
  const id = await dm(s, member, [other.id], `[anim.gif](${up.url})`);
  const thumb = `/user_uploads/thumbnail/${pathIdOf(up.url)}/840x560-anim.webp`;
  t.true((await rendered(other, id)).includes(`<img data-animated="true" data-original-content-type="image/gif" data-original-dimensions="60x40" src="${thumb}">`));
  const r = await fetchBytes(thumb, other);
  t.is((await sharp(r.body).metadata()).pages, 3);
});

test('register lists the server thumbnail formats', async (t) => {
  const r = await register(s, s.owner, { fetch_event_types: '["realm"]' });
  t.deepEqual(r.server_thumbnail_formats, [
    { name: '840x560-anim.webp', max_width: 840, max_height: 560, format: 'webp', animated: true },
    { name: '840x560.webp', max_width: 840, max_height: 560, format: 'webp', animated: false },
  ]);
});
