// Limits of the HTTP layer, over raw sockets: bytes of request bodies in flight (and the smaller budget of requests
// without credentials), stalled bodies, oversized heads, duplicate Host headers, and exclusive listening ports.
import test from 'ava';
import net from 'node:net';
import { basicAuth } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const MiB = 1024 * 1024;
let s: TestServer;
test.before(async () => {
  s = await startTestServer({
    env: { BODY_BYTES_IN_FLIGHT: String(4 * MiB), ANONYMOUS_BODY_BYTES_IN_FLIGHT: String(MiB), BODY_STALL_MS: '1500' },
  });
});
test.after.always(async () => s?.close());

interface RawExchange {
  /** What came back, when the server closed the connection or `settle` resolved. */
  answer: Promise<string>;
  /** Resolves once the server closed the connection. */
  closed: Promise<void>;
  end(): void;
}

/** Opens a connection, writes `bytes` and keeps it open (a client that stalls) until the server answers and closes. */
function send(bytes: string | Buffer): RawExchange {
  const sock = net.connect(s.port, '127.0.0.1');
  const chunks: Buffer[] = [];
  let closedResolve!: () => void;
  const closed = new Promise<void>((r) => (closedResolve = r));
  const answer = new Promise<string>((resolve) => {
    sock.on('data', (c) => {
      chunks.push(c);
      const text = Buffer.concat(chunks).toString('latin1');
      const head = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text);
      if (head >= 0 && length && text.length >= head + 4 + Number(length[1])) resolve(text);
    });
    sock.on('close', () => {
      resolve(Buffer.concat(chunks).toString('latin1'));
      closedResolve();
    });
  });
  sock.on('error', () => undefined);
  sock.write(bytes);
  return { answer, closed, end: () => sock.destroy() };
}

function envelope(answer: string): { status: number; json: any; headers: string } {
  const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
  return { status: Number(answer.slice(9, 12)), headers: head, json: JSON.parse(answer.slice(head.length + 4)) };
}

function postHead(path: string, length: number, extra = ''): string {
  return `POST /api/v1${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\n${extra}Content-Length: ${length}\r\n\r\n`;
}

test('two Host headers are a 400 envelope', async (t) => {
  const r = envelope(await send('GET /api/v1/server_settings HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: other.example\r\n\r\n').answer);
  t.is(r.status, 400);
  t.is(r.json.result, 'error');
  t.is(r.json.code, 'BAD_REQUEST');
  t.regex(r.json.msg, /more than one Host header/);
});

test('a URL past the limit is a 414 envelope and headers past it a 431, not a reset', async (t) => {
  const long = send(`GET /api/v1/messages?narrow=${'a'.repeat(70_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const r = envelope(await long.answer);
  t.is(r.status, 414);
  t.is(r.json.result, 'error');
  t.regex(r.json.msg, /URL is too long/);
  await long.closed;
  const big = send(`GET /api/v1/server_settings HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Filler: ${'b'.repeat(70_000)}\r\n\r\n`);
  const h = envelope(await big.answer);
  t.is(h.status, 431);
  t.regex(h.json.msg, /headers are too large/);
  // A head within the limits is still served.
  const served = send(`GET /api/v1/server_settings?x=${'c'.repeat(30_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
  const ok = envelope(await served.answer);
  t.is(ok.status, 200);
  served.end();
});

test.serial('bodies without credentials share a small budget: beyond it 503 with Retry-After, and credentials still get through', async (t) => {
  // Two clients without credentials each start a large sign-in body and stall: together they pass the 1 MiB budget.
  const first = send(Buffer.concat([Buffer.from(postHead('/fetch_api_key', 30 * MiB)), Buffer.alloc(700 * 1024, 'a')]));
  await new Promise((r) => setTimeout(r, 200));
  const second = send(Buffer.concat([Buffer.from(postHead('/fetch_api_key', 30 * MiB)), Buffer.alloc(700 * 1024, 'a')]));
  const refused = envelope(await second.answer);
  t.is(refused.status, 503);
  t.is(refused.json.code, 'SERVICE_UNAVAILABLE');
  t.regex(refused.headers, /Retry-After: \d+/i);
  await second.closed;
  // An authenticated request with a body is not held back by the unauthenticated budget.
  const sent = await s.client.post('/messages', {
    auth: s.owner,
    form: { type: 'direct', to: JSON.stringify([s.owner.email]), content: 'x'.repeat(5000) },
  });
  t.is(sent.status, 200, sent.text);
  // The stalled body times out (408) and its connection closes, giving its bytes back.
  const stalled = envelope(await first.answer);
  t.is(stalled.status, 408);
  t.is(stalled.json.code, 'REQUEST_TIMEOUT');
  await first.closed;
  const again = await s.client.post('/fetch_api_key', { form: { username: s.owner.email, password: 'wrong', pad: 'p'.repeat(600 * 1024) } });
  t.is(again.status, 401);
});

test.serial('credentials the endpoint does not check do not buy room in the larger budget', async (t) => {
  const bogus = `Authorization: ${basicAuth('nobody@x.test', 'not-a-key')}\r\n`;
  const first = send(Buffer.concat([Buffer.from(postHead('/fetch_api_key', 30 * MiB, bogus)), Buffer.alloc(700 * 1024, 'a')]));
  await new Promise((r) => setTimeout(r, 200));
  const second = send(Buffer.concat([Buffer.from(postHead('/fetch_api_key', 30 * MiB, bogus)), Buffer.alloc(700 * 1024, 'a')]));
  t.is(envelope(await second.answer).status, 503);
  first.end();
  await first.closed;
});

test.serial('authenticated bodies in flight are capped across the server', async (t) => {
  const auth = `Authorization: ${basicAuth(s.owner.email, s.owner.apiKey)}\r\n`;
  const stalls = [];
  let refused = null;
  // 4 MiB in all: the third 1.5 MiB body cannot be held.
  for (let i = 0; i < 3 && !refused; i++) {
    const x = send(Buffer.concat([Buffer.from(postHead('/messages', 20 * MiB, auth)), Buffer.alloc(1.5 * MiB, 'a')]));
    stalls.push(x);
    refused = await Promise.race([x.answer, new Promise<null>((r) => setTimeout(() => r(null), 500))]);
  }
  t.truthy(refused, 'a body past the budget was answered');
  const r = envelope(refused!);
  t.is(r.status, 503);
  t.regex(r.headers, /Retry-After/i);
  for (const x of stalls) x.end();
  await Promise.all(stalls.map((x) => x.closed));
});

test.serial('an upload read chunk by chunk holds only what is queued: larger than the whole budget, it is accepted', async (t) => {
  const file = new File([Buffer.alloc(6 * MiB, 'u')], 'big.bin');
  const r = await s.client.as(s.owner).post('/user_uploads', { multipart: { file } });
  t.is(r.status, 200, r.text);
});

test('a second server on a taken port refuses to start, for the API port and for the metrics port', async (t) => {
  const reuse = { dataDir: s.dataDir, databaseUrl: s.databaseUrl };
  const api = await t.throwsAsync(startTestServer({ reuse, env: { PORT: String(s.port) } }));
  t.regex(api!.message, new RegExp(`cannot listen for the API on 127\\.0\\.0\\.1:${s.port}: the address is in use`));
  const metrics = await t.throwsAsync(startTestServer({ reuse, env: { METRICS_PORT: String(s.port) } }));
  t.regex(metrics!.message, /cannot listen for metrics on .*in use/);
  // The first server still answers every request (nothing shares its port).
  for (let i = 0; i < 10; i++) t.is((await s.client.get('/users/me', { auth: s.owner })).status, 200);
});
