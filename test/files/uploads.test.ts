// POST /user_uploads: streamed to storage, the response's url, uri and filename, the size limit, downloads with
// their headers and byte ranges, and GET/DELETE /attachments.
import test from 'ava';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { download, raw, upload } from './helpers.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer({ env: { MAX_FILE_UPLOAD_SIZE_MIB: '1' } });
});
test.after.always(async () => s?.close());

test('an upload answers url, uri and filename; the uploader downloads the same bytes', async (t) => {
  const r = await upload(s, s.owner, 'notes [draft] (v2).txt', 'hello, file', 'text/plain');
  t.regex(r.url, /^\/user_uploads\/\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/notes-draft-v2\.txt$/);
  t.is(r.uri, r.url);
  t.is(r.filename, 'notes [draft] (v2).txt');
  const d = await download(s, r.url, s.owner);
  t.is(d.status, 200);
  t.is(d.text, 'hello, file');
  t.is(d.headers['content-type'], 'text/plain; charset=utf-8');
  t.is(d.headers['x-content-type-options'], 'nosniff');
  t.regex(d.headers['content-disposition'] as string, /^inline; filename="notes \[draft\] \(v2\)\.txt"; filename\*=UTF-8''notes%20%5Bdraft%5D%20%28v2%29\.txt$/);
  t.is(d.headers['accept-ranges'], 'bytes');
});

test('names are sanitized in the path and kept in the filename; odd names still make a path', async (t) => {
  const r = await upload(s, s.owner, '../../etc/pässwörd résumé.pdf', '%PDF-1.4');
  t.true(r.url.endsWith('/p%C3%A4ssw%C3%B6rd-r%C3%A9sum%C3%A9.pdf'), r.url);
  t.is(r.filename, 'pässwörd résumé.pdf');
  const d = await download(s, r.url, s.owner);
  t.is(d.status, 200);
  t.is(d.headers['content-type'], 'application/pdf');
  const odd = await upload(s, s.owner, '!!!', 'x');
  t.true(odd.url.endsWith('/uploaded-file'), odd.url);
});

test('active content is a download of opaque bytes, never sniffed or rendered', async (t) => {
  const r = await upload(s, s.owner, 'page.html', '<script>alert(1)</script>', 'text/html');
  const d = await download(s, r.url, s.owner);
  t.is(d.status, 200);
  t.is(d.headers['content-type'], 'application/octet-stream');
  t.regex(d.headers['content-disposition'] as string, /^attachment;/);
  t.is(d.headers['x-content-type-options'], 'nosniff');
  t.regex(d.headers['content-security-policy'] as string, /default-src 'none'/);
  const svg = await upload(s, s.owner, 'x.svg', '<svg onload="alert(1)"/>', 'image/svg+xml');
  t.is((await download(s, svg.url, s.owner)).headers['content-type'], 'application/octet-stream');
});

test('byte ranges: a range, an open range, a suffix, and one past the end', async (t) => {
  const data = Buffer.from(Array.from({ length: 1000 }, (_, i) => i % 251));
  const r = await upload(s, s.owner, 'data.bin', data);
  const part = await s.client.as(s.owner).request('GET', r.url, { root: true, headers: { range: 'bytes=100-199' } });
  t.is(part.status, 206);
  t.is(part.headers['content-range'], 'bytes 100-199/1000');
  t.is(part.headers['content-length'], '100');
  const open = await download(s, r.url, s.owner, { range: 'bytes=990-' });
  t.is(open.status, 206);
  t.is(open.headers['content-range'], 'bytes 990-999/1000');
  const suffix = await download(s, r.url, s.owner, { range: 'bytes=-10' });
  t.is(suffix.headers['content-range'], 'bytes 990-999/1000');
  const past = await download(s, r.url, s.owner, { range: 'bytes=1000-' });
  t.is(past.status, 416);
  t.is(past.headers['content-range'], 'bytes */1000');
  // Bytes, not text: compare a binary range exactly.
  const bytes = await rawBytes(r.url, 'bytes=100-199');
  t.deepEqual(bytes, data.subarray(100, 200));
});

async function rawBytes(url: string, range: string): Promise<Buffer> {
  const auth = 'Basic ' + Buffer.from(`${s.owner.email}:${s.owner.apiKey}`).toString('base64');
  const res = await fetch(`http://127.0.0.1:${s.port}${url}`, { headers: { authorization: auth, range } });
  return Buffer.from(await res.arrayBuffer());
}

test('a large download streams whole (backpressure) and byte-identical', async (t) => {
  const data = Buffer.alloc(900 * 1024);
  for (let i = 0; i < data.length; i++) data[i] = (i * 7) % 256;
  const r = await upload(s, s.owner, 'big.bin', data);
  const auth = 'Basic ' + Buffer.from(`${s.owner.email}:${s.owner.apiKey}`).toString('base64');
  const res = await fetch(`http://127.0.0.1:${s.port}${r.url}`, { headers: { authorization: auth } });
  t.is(res.status, 200);
  t.true(Buffer.from(await res.arrayBuffer()).equals(data));
});

test('the size limit: refused by declared length and while streaming, with nothing left in storage', async (t) => {
  const tooBig = Buffer.alloc(1024 * 1024 + 1, 'a');
  const r = await s.client.as(s.owner).post('/user_uploads', { multipart: { file: new File([tooBig], 'too-big.bin') } }).catch(() => null);
  if (r) {
    t.is(r.status, 413);
    t.is(r.json.msg, 'Uploaded file is larger than the allowed limit of 1 MiB');
  }
  // Chunked: no declared length, so the limit is met while the file streams to storage.
  const boundary = 'xyzBOUNDARY';
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="too-big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const auth = 'Basic ' + Buffer.from(`${s.owner.email}:${s.owner.apiKey}`).toString('base64');
  const chunk = (b: Buffer) => Buffer.concat([Buffer.from(b.length.toString(16) + '\r\n'), b, Buffer.from('\r\n')]);
  const request = Buffer.concat([
    Buffer.from(`POST /api/v1/user_uploads HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nContent-Type: multipart/form-data; boundary=${boundary}\r\nTransfer-Encoding: chunked\r\n\r\n`),
    chunk(Buffer.from(head)),
    chunk(Buffer.alloc(600 * 1024, 'b')),
    chunk(Buffer.alloc(600 * 1024, 'c')),
    chunk(Buffer.from(`\r\n--${boundary}--\r\n`)),
    Buffer.from('0\r\n\r\n'),
  ]);
  const answer = await raw(s.port, request);
  t.regex(answer, /^HTTP\/1\.1 413/);
  t.regex(answer, /Uploaded file is larger than the allowed limit of 1 MiB/);
  const ok = await upload(s, s.owner, 'fits.bin', Buffer.alloc(1024 * 1024, 'd'));
  t.truthy(ok.url, 'exactly the limit is accepted');
  // A refused upload's partial file is removed as its handler unwinds, which can finish just after the 413 is
  // written: wait a little for it, but it must go.
  const refused = (f: string) => f.endsWith('too-big.bin') || f.endsWith('.part');
  for (let i = 0; i < 30 && listFiles().some(refused); i++) await new Promise((r) => setTimeout(r, 100));
  const kept = listFiles();
  t.true(kept.some((f) => f.endsWith('fits.bin')));
  t.false(kept.some(refused), 'refused files leave nothing behind');
});

function listFiles(): string[] {
  const root = path.join(s.dataDir, 'uploads', 'files');
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(root);
  return out;
}

test('an upload needs exactly one file', async (t) => {
  const none = await s.client.as(s.owner).post('/user_uploads', { multipart: { note: 'no file here' } });
  t.is(none.status, 400);
  t.is(none.json.msg, 'You must specify a file to upload');
  const two = await s.client.as(s.owner).post('/user_uploads', {
    multipart: { a: new File(['1'], 'a.txt'), b: new File(['2'], 'b.txt') },
  });
  t.is(two.status, 400);
  t.is(two.json.msg, 'You may only upload one file at a time');
  const anonymous = await s.client.post('/user_uploads', { multipart: { file: new File(['1'], 'a.txt') } });
  t.is(anonymous.status, 401);
});

test('GET /attachments lists your uploads; DELETE removes one and its bytes, and only yours', async (t) => {
  const alice = await addUser(s);
  const bob = await addUser(s);
  const r = await upload(s, alice, 'list-me.txt', 'twelve bytes');
  const listed = await s.client.as(alice).get('/attachments');
  t.is(listed.status, 200);
  t.is(listed.json.attachments.length, 1);
  const a = listed.json.attachments[0];
  t.like(a, { name: 'list-me.txt', path_id: r.url.slice('/user_uploads/'.length), size: 12, messages: [] });
  t.true(Math.abs(a.create_time - Date.now()) < 60_000, 'create_time is in milliseconds');
  t.true(listed.json.upload_space_used >= 12);
  t.is((await s.client.as(bob).get('/attachments')).json.attachments.length, 0);

  const notYours = await s.client.as(bob).delete(`/attachments/${a.id}`);
  t.is(notYours.status, 400);
  t.is(notYours.json.msg, 'Invalid attachment');
  const gone = await s.client.as(alice).delete(`/attachments/${a.id}`);
  t.is(gone.status, 200);
  t.is((await s.client.as(alice).get('/attachments')).json.attachments.length, 0);
  t.is((await download(s, r.url, alice)).status, 404);
  t.false(existsSync(path.join(s.dataDir, 'uploads', 'files', ...decodeURIComponent(a.path_id).split('/'))));
});
