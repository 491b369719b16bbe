// External images over real HTTP: a message linking one renders through /external_content/, which serves it from
// a local origin server (loopback allowed for the test); bad signatures, non-images, oversized bodies, redirects
// and (by default) private addresses are refused.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ImageProxy } from '../../src/files/image-proxy.js';
import { isSpecialUse } from '../../src/net-guard.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { dm, makeCast } from '../messages/helpers.js';

const IMAGE = Buffer.from('GIF89a-not-really-but-typed-as-an-image');
const MAX_BYTES = 10_000;

let s: TestServer;
let origin: http.Server;
let base: string;

test.before(async () => {
  origin = http.createServer((req, res) => {
    if (req.url === '/cat.gif') return res.writeHead(200, { 'content-type': 'image/gif' }).end(IMAGE);
    if (req.url === '/page.png') return res.writeHead(200, { 'content-type': 'text/html' }).end('<html>');
    if (req.url === '/vector.png') return res.writeHead(200, { 'content-type': 'image/svg+xml' }).end('<svg/>');
    if (req.url === '/big.png') return res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(MAX_BYTES + 1));
    if (req.url === '/chunked.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      for (let i = 0; i < 11; i++) res.write(Buffer.alloc(1000));
      return res.end();
    }
    if (req.url === '/moved.gif') return res.writeHead(302, { location: '/cat.gif' }).end();
    if (req.url === '/loop.gif') return res.writeHead(302, { location: '/loop.gif' }).end();
    if (req.url === '/slow.png') return void res.writeHead(200, { 'content-type': 'image/png' }); // never ends
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(origin.address() as AddressInfo).port}`;
  s = await startTestServer({ env: { IMAGE_PROXY_ALLOW_PRIVATE: '1', IMAGE_PROXY_MAX_BYTES: String(MAX_BYTES), IMAGE_PROXY_TIMEOUT_MS: '1000' } });
});
test.after.always(async () => {
  origin?.closeAllConnections();
  origin?.close();
  await s?.close();
});

/** The proxy URL a message linking `url` renders. */
async function proxied(url: string): Promise<string> {
  const { member, other } = await makeCast(s);
  const id = await dm(s, member, [other.id], `look: ${url}`);
  const html = (await s.client.as(other).get(`/messages/${id}`)).json.message.content as string;
  const m = /<img src="(\/external_content\/[0-9a-f]{40}\/[0-9a-f]+)">/.exec(html);
  if (!m) throw new Error(`no proxied preview in ${html}`);
  return m[1]!;
}

const get = (path: string) => fetch(`http://127.0.0.1:${s.port}${path}`);

test('an external image renders through the proxy, which serves it without the client contacting the origin', async (t) => {
  const path = await proxied(`${base}/cat.gif`);
  t.is(path.split('/')[3], Buffer.from(`${base}/cat.gif`).toString('hex'));
  const r = await get(path);
  t.is(r.status, 200);
  t.is(r.headers.get('content-type'), 'image/gif');
  t.is(r.headers.get('x-content-type-options'), 'nosniff');
  t.deepEqual(Buffer.from(await r.arrayBuffer()), IMAGE);
});

test('a URL the server did not sign is refused', async (t) => {
  const path = await proxied(`${base}/cat.gif`);
  const [, , digest, hex] = path.split('/');
  const flipped = digest!.replace(/^./, (c) => (c === '0' ? '1' : '0'));
  t.is((await get(`/external_content/${flipped}/${hex}`)).status, 403);
  const other = Buffer.from(`${base}/big.png`).toString('hex');
  t.is((await get(`/external_content/${digest}/${other}`)).status, 403, 'a signature is for its own URL only');
  const bad = await get(`/external_content/nothex/${hex}`);
  t.is(bad.status, 403);
  t.like(await bad.json(), { result: 'error', msg: 'Bad signature' });
});

test('non-images, SVG, oversized bodies (declared or streamed), endless redirects and slow origins are refused', async (t) => {
  for (const name of ['page.png', 'vector.png', 'big.png', 'chunked.png', 'loop.gif', 'slow.png', 'missing.png']) {
    const r = await get(await proxied(`${base}/${name}`));
    t.is(r.status, 404, name);
  }
});

test('a redirect to another image is followed', async (t) => {
  const r = await get(await proxied(`${base}/moved.gif`));
  t.is(r.status, 200);
  t.deepEqual(Buffer.from(await r.arrayBuffer()), IMAGE);
});

test('by default the proxy connects to no loopback or private address, by IP or by name', async (t) => {
  const proxy = new ImageProxy({ maxBytes: MAX_BYTES, timeoutMs: 1000, maxRedirects: 2, allowPrivate: false });
  for (const url of [`${base}/cat.gif`, `${base.replace('127.0.0.1', 'localhost')}/cat.gif`, 'http://[::1]/x.png', 'http://10.1.2.3/x.png']) {
    const err = await t.throwsAsync(proxy.fetch(url));
    t.is((err as { status?: number }).status, 404, url);
  }
  for (const a of ['127.0.0.1', '10.0.0.1', '172.16.5.4', '192.168.1.1', '169.254.169.254', '::1', 'fe80::1', 'fd00::1', '::ffff:127.0.0.1', '0.0.0.0', '100.64.0.1', '2002:7f00:1::', '::7f00:1', '::ffff:7f00:1']) {
    t.true(isSpecialUse(a), a);
  }
  for (const a of ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946', '8.8.8.8']) t.false(isSpecialUse(a), a);
});
