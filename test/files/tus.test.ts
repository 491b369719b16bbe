// The tus resumable upload endpoint: a real tus client (tus-js-client) whose connection is cut twice resumes from
// the server's offset to a byte-identical file; and the protocol's rules, termination and expiration.
import test from 'ava';
import { createHash, randomBytes } from 'node:crypto';
import net from 'node:net';
import * as tus from 'tus-js-client';
import { basicAuth, type Credentials } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';

let s: TestServer;
test.before(async () => {
  s = await startTestServer({ env: { MAX_FILE_UPLOAD_SIZE_MIB: '16' } });
});
test.after.always(async () => s?.close());

const tusHeaders = (who: Credentials) => ({ 'tus-resumable': '1.0.0', authorization: basicAuth(who.email, who.apiKey) });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

/** A TCP proxy to the server that cuts a connection once it has carried `cuts[0]` request bytes (then the next cut
 *  applies): a network failure in the middle of an upload. */
async function cuttingProxy(target: number, cuts: number[]) {
  const pending = [...cuts];
  let made = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    for (const sock of [client, upstream]) {
      sockets.add(sock);
      sock.on('error', () => undefined);
      sock.on('close', () => sockets.delete(sock));
    }
    upstream.pipe(client);
    let carried = 0;
    let cut = false;
    client.on('data', (d: Buffer) => {
      if (cut) return;
      const budget = pending[0];
      if (budget !== undefined && carried + d.length > budget) {
        cut = true;
        pending.shift();
        made++;
        // The server gets what was sent before the failure; the client sees its connection die.
        upstream.end(d.subarray(0, budget - carried));
        client.destroy();
        return;
      }
      carried += d.length;
      upstream.write(d);
    });
    client.on('end', () => upstream.end());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as net.AddressInfo).port,
    cuts: () => made,
    close: () => {
      for (const sock of sockets) sock.destroy();
      server.close();
    },
  };
}

test('tus-js-client: an upload cut off twice resumes from the server\'s offset to a byte-identical file', async (t) => {
  const alice = await addUser(s);
  const data = randomBytes(12 * 1024 * 1024);
  const proxy = await cuttingProxy(s.port, [3 * 1024 * 1024, 4 * 1024 * 1024]);
  t.teardown(proxy.close);
  const resumedAt: number[] = [];
  const result = await new Promise<Record<string, string>>((resolve, reject) => {
    const upload = new tus.Upload(data, {
      endpoint: `http://127.0.0.1:${proxy.port}/api/v1/tus`,
      headers: { Authorization: basicAuth(alice.email, alice.apiKey) },
      metadata: { filename: 'holiday video [final].mp4', filetype: 'video/mp4' },
      retryDelays: [0, 100, 200, 500, 1000],
      onAfterResponse(req, res) {
        if (req.getMethod() === 'HEAD') resumedAt.push(Number(res.getHeader('Upload-Offset')));
      },
      onSuccess: ({ lastResponse }) => resolve(JSON.parse(lastResponse.getBody())),
      onError: reject,
    });
    upload.start();
  });
  t.is(proxy.cuts(), 2, 'the connection was cut twice');
  t.is(resumedAt.length, 2, 'the client asked for the offset after each cut');
  t.true(resumedAt[0]! > 0 && resumedAt[0]! < resumedAt[1]! && resumedAt[1]! < data.length, `resumed at ${resumedAt}`);

  t.is(result.result, 'success');
  t.is(result.filename, 'holiday video [final].mp4');
  t.is(result.uri, result.url);
  t.regex(result.url!, /^\/user_uploads\/\d+\/[0-9a-f]{2}\/[A-Za-z0-9_-]{24}\/holiday-video-final\.mp4$/);

  // Downloaded whole, the file is byte-identical (a large streamed reply).
  const res = await fetch(`http://127.0.0.1:${s.port}${result.url}`, { headers: { authorization: basicAuth(alice.email, alice.apiKey) } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'video/mp4');
  t.is(sha(Buffer.from(await res.arrayBuffer())), sha(data));
  const listed = (await s.client.as(alice).get('/attachments')).json.attachments;
  t.like(listed[0], { name: 'holiday video [final].mp4', size: data.length });
});

test('tus-js-client: a client that stops and starts again later resumes with the upload URL', async (t) => {
  const alice = await addUser(s);
  const data = randomBytes(4 * 1024 * 1024);
  const proxy = await cuttingProxy(s.port, [1024 * 1024]);
  t.teardown(proxy.close);
  const options = {
    headers: { Authorization: basicAuth(alice.email, alice.apiKey) },
    metadata: { filename: 'notes.bin' },
  };
  // First session: no retries, so the cut ends it with an error; the upload URL is known.
  const first = new tus.Upload(data, { ...options, endpoint: `http://127.0.0.1:${proxy.port}/api/v1/tus`, retryDelays: null });
  const failed = await new Promise<Error>((resolve, reject) => {
    first.options.onError = resolve;
    first.options.onSuccess = () => reject(new Error('the first session should not finish'));
    first.start();
  });
  t.truthy(failed);
  t.truthy(first.url);
  const head = await s.client.request('HEAD', new URL(first.url!).pathname, { headers: tusHeaders(alice) });
  const offset = Number(head.headers['upload-offset']);
  t.true(offset > 0 && offset < data.length, `stored ${offset} bytes`);
  // A new session (say, after a restart of the app) continues the same upload.
  const second = await new Promise<Record<string, string>>((resolve, reject) => {
    const upload = new tus.Upload(data, {
      ...options,
      uploadUrl: `http://127.0.0.1:${s.port}${new URL(first.url!).pathname}`,
      onSuccess: ({ lastResponse }) => resolve(JSON.parse(lastResponse.getBody())),
      onError: reject,
    });
    upload.start();
  });
  const res = await fetch(`http://127.0.0.1:${s.port}${second.url}`, { headers: { authorization: basicAuth(alice.email, alice.apiKey) } });
  t.is(sha(Buffer.from(await res.arrayBuffer())), sha(data));
});

test('protocol rules: OPTIONS, versions, lengths, offsets, content type, owners, termination and expiration', async (t) => {
  const alice = await addUser(s);
  const bob = await addUser(s);
  const options = await s.client.request('OPTIONS', '/tus');
  t.is(options.status, 204);
  t.is(options.headers['tus-version'], '1.0.0');
  t.deepEqual((options.headers['tus-extension'] as string).split(','), ['creation', 'termination', 'expiration']);
  t.is(options.headers['tus-max-size'], String(16 * 1024 * 1024));

  const noVersion = await s.client.as(alice).post('/tus', { headers: { 'upload-length': '10' } });
  t.is(noVersion.status, 412);
  t.is(noVersion.headers['tus-version'], '1.0.0');
  const tooBig = await s.client.post('/tus', { headers: { ...tusHeaders(alice), 'upload-length': String(16 * 1024 * 1024 + 1) } });
  t.is(tooBig.status, 413);
  t.is(tooBig.json.msg, 'Uploaded file is larger than the allowed limit of 16 MiB');
  t.is((await s.client.post('/tus', { headers: tusHeaders(alice) })).status, 400, 'Upload-Length is required');
  t.is((await s.client.post('/tus', { headers: { 'tus-resumable': '1.0.0', 'upload-length': '10' } })).status, 401);

  const created = await s.client.post('/tus', {
    headers: { ...tusHeaders(alice), 'upload-length': '10', 'upload-metadata': `filename ${Buffer.from('tiny.txt').toString('base64')},filetype ${Buffer.from('text/plain').toString('base64')}` },
  });
  t.is(created.status, 201);
  t.is(created.headers['tus-resumable'], '1.0.0');
  const location = created.headers.location as string;
  t.regex(location, /^\/api\/v1\/tus\/[0-9a-f]{32}$/);
  t.true(Date.parse(created.headers['upload-expires'] as string) > Date.now());

  const head = await s.client.request('HEAD', location, { headers: tusHeaders(alice) });
  t.is(head.status, 200);
  t.like(head.headers, { 'upload-offset': '0', 'upload-length': '10', 'cache-control': 'no-store' });
  t.is((await s.client.request('HEAD', location, { headers: tusHeaders(bob) })).status, 404, "another user's upload does not exist for them");

  const patch = (offset: number, body: string, type = 'application/offset+octet-stream', who = alice) =>
    s.client.patch(location, { body, headers: { ...tusHeaders(who), 'upload-offset': String(offset), 'content-type': type } });
  t.is((await patch(0, 'hello', 'text/plain')).status, 415);
  t.is((await patch(3, 'hello')).status, 409);
  t.is((await patch(0, 'hello', undefined, bob)).status, 404);
  const part = await patch(0, 'hello');
  t.is(part.status, 204);
  t.is(part.headers['upload-offset'], '5');
  t.is((await patch(5, 'world, and more')).status, 400, 'nothing past Upload-Length');
  const last = await patch(5, 'world');
  t.is(last.status, 200);
  t.is(last.headers['upload-offset'], '10');
  t.like(last.json, { result: 'success', filename: 'tiny.txt' });
  const file = await s.client.as(alice).get(last.json.url, { root: true });
  t.is(file.text, 'helloworld');
  t.is(file.headers['content-type'], 'text/plain; charset=utf-8');
  // A retried final PATCH (its answer was lost) gets the same answer, not a second file.
  const again = await patch(10, '');
  t.is(again.status, 200);
  t.is(again.json.url, last.json.url);
  t.is((await s.client.as(alice).get('/attachments')).json.attachments.length, 1);

  // Termination.
  const other = (await s.client.post('/tus', { headers: { ...tusHeaders(alice), 'upload-length': '3' } })).headers.location as string;
  t.is((await s.client.delete(other, { headers: tusHeaders(alice) })).status, 204);
  t.is((await s.client.request('HEAD', other, { headers: tusHeaders(alice) })).status, 404);

  // Expiration: a day later the sweep removes unfinished uploads.
  const stale = (await s.client.post('/tus', { headers: { ...tusHeaders(alice), 'upload-length': '3' } })).headers.location as string;
  await s.server.services.files.sweep(Date.now() + 25 * 3600 * 1000);
  t.is((await s.client.request('HEAD', stale, { headers: tusHeaders(alice) })).status, 404);
});

test('a large download to a slow reader is written with backpressure and arrives byte-identical', async (t) => {
  const data = randomBytes(12 * 1024 * 1024);
  const r = await s.client.as(s.owner).post('/user_uploads', { multipart: { file: new File([new Uint8Array(data)], 'large.bin') } });
  t.is(r.status, 200);
  const auth = basicAuth(s.owner.email, s.owner.apiKey);
  const received = await new Promise<Buffer>((resolve, reject) => {
    const sock = net.connect(s.port, '127.0.0.1', () =>
      sock.write(`GET ${r.json.url} HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth}\r\nConnection: close\r\n\r\n`),
    );
    const chunks: Buffer[] = [];
    // Not reading for a while fills the socket buffers: the server must wait for the client, not buffer the file.
    sock.pause();
    setTimeout(() => sock.resume(), 300);
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('end', () => resolve(Buffer.concat(chunks)));
    sock.on('error', reject);
  });
  const split = received.indexOf('\r\n\r\n');
  t.regex(received.subarray(0, split).toString('latin1'), /^HTTP\/1\.1 200 OK[\s\S]*Content-Length: 12582912/i);
  t.is(sha(received.subarray(split + 4)), sha(data));
});
