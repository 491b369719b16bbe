// The bench's HTTP client (bench/lib/client.ts) over real HTTP against a node:http server of the test's own: what a
// request sends, what its reply holds whatever the status, which connections it uses (keep-alive, one per request in
// flight, the source address of its pool), when it reports the request sent, and how it fails.
import test from 'ava';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectionFor, formPrefix, request } from '../../bench/lib/client.js';

interface Seen {
  method: string;
  url: string;
  authorization?: string;
  contentType?: string;
  body: string;
  remote: string;
}

/** A server answering each request as `answer` says (no answer: it hangs); it records what it saw and its connections. */
async function server(answer: (seen: Seen, res: http.ServerResponse) => void) {
  const seen: Seen[] = [];
  let connections = 0;
  const s = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const one: Seen = {
        method: req.method!,
        url: req.url!,
        authorization: req.headers.authorization,
        contentType: req.headers['content-type'],
        body: Buffer.concat(chunks).toString(),
        remote: req.socket.remoteAddress!,
      };
      seen.push(one);
      answer(one, res);
    });
  });
  s.on('connection', () => connections++);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  return {
    base: `http://127.0.0.1:${(s.address() as AddressInfo).port}`,
    seen,
    connections: () => connections,
    close: () => {
      s.closeAllConnections();
      return new Promise<void>((r) => s.close(() => r()));
    },
  };
}

const json = (status: number, body: unknown) => (_: Seen, res: http.ServerResponse) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

test('a request sends its query, form body and Basic auth under /api/v1; the reply has the status, parsed body and byte count, whatever the status', async (t) => {
  const s = await server(json(400, { result: 'error', code: 'BAD_REQUEST' }));
  t.teardown(s.close);
  const r = await request(s.base, 'POST', '/messages', { auth: { email: 'a@b.test', apiKey: 'key' }, form: { to: 'general', content: 'a & b' }, query: { x: '1 2' } });
  t.deepEqual(s.seen[0], {
    method: 'POST',
    url: '/api/v1/messages?x=1+2',
    authorization: 'Basic ' + Buffer.from('a@b.test:key').toString('base64'),
    contentType: 'application/x-www-form-urlencoded',
    body: 'to=general&content=a+%26+b',
    remote: '127.0.0.1',
  });
  t.is(r.status, 400);
  t.deepEqual(r.body, { result: 'error', code: 'BAD_REQUEST' });
  t.is(r.bytes, Buffer.byteLength(JSON.stringify(r.body)));
  t.true(r.ms > 0);
});

test('an answer that is not JSON is kept as its text', async (t) => {
  const s = await server((_, res) => res.end('plain words'));
  t.teardown(s.close);
  const r = await request(s.base, 'GET', '/x');
  t.is(r.status, 200);
  t.is(r.body, 'plain words');
  t.is(r.bytes, 11);
});

test('requests one after another share one keep-alive connection, a GET with a body among them', async (t) => {
  const s = await server(json(200, { result: 'success' }));
  t.teardown(s.close);
  const connection = connectionFor(0);
  await request(s.base, 'GET', '/messages', { connection, form: { narrow: '[]' } });
  await request(s.base, 'POST', '/messages', { connection, form: { content: 'x' } });
  await request(s.base, 'GET', '/events', { connection, query: { queue_id: 'q' } });
  t.is(s.seen.length, 3);
  t.is(s.seen[0]!.body, 'narrow=%5B%5D');
  t.is(s.connections(), 1);
});

test('requests in flight together each have their own connection', async (t) => {
  const held: http.ServerResponse[] = [];
  const s = await server((_, res) => {
    held.push(res);
    if (held.length === 5) for (const r of held) r.end('{}');
  });
  t.teardown(s.close);
  const replies = await Promise.all(Array.from({ length: 5 }, () => request(s.base, 'GET', '/events')));
  t.deepEqual(replies.map((r) => r.status), [200, 200, 200, 200, 200]);
  t.is(s.connections(), 5);
});

test('the pool for connections past the first 20,000 connects from 127.0.0.2', async (t) => {
  const s = await server(json(200, {}));
  t.teardown(s.close);
  await request(s.base, 'GET', '/x', { connection: connectionFor(20_000) });
  await request(s.base, 'GET', '/x', { connection: connectionFor(19_999) });
  t.deepEqual(s.seen.map((x) => x.remote), ['127.0.0.2', '127.0.0.1']);
});

test('onSent is called once the request is on its connection, before its answer', async (t) => {
  let answer!: () => void;
  const s = await server((_, res) => (answer = () => res.end('{}')));
  t.teardown(s.close);
  const events: string[] = [];
  let sent!: () => void;
  const wasSent = new Promise<void>((r) => (sent = r));
  const reply = request(s.base, 'GET', '/events', { onSent: () => (events.push('sent'), sent()) }).then(() => events.push('answered'));
  await wasSent;
  while (s.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
  answer();
  await reply;
  t.deepEqual(events, ['sent', 'answered']);
});

test('a request left unanswered past timeoutMs rejects, as does a refused connection', async (t) => {
  const s = await server(() => undefined);
  t.teardown(s.close);
  await t.throwsAsync(request(s.base, 'GET', '/events', { timeoutMs: 100 }));
  const closed = await server(() => undefined);
  const base = closed.base;
  await closed.close();
  await t.throwsAsync(request(base, 'GET', '/x'));
});

test('a form given already encoded is sent as it is, and formPrefix plus a number encodes as the whole form would', async (t) => {
  const s = await server(json(200, { result: 'success' }));
  t.teardown(s.close);
  const fields = { type: 'stream', to: 'a b&c', topic: 't1', content: 'load 3-' };
  await request(s.base, 'POST', '/messages', { form: formPrefix(fields) + 17 });
  await request(s.base, 'POST', '/messages', { form: { ...fields, content: 'load 3-17' } });
  t.is(s.seen[0]!.body, 'type=stream&to=a+b%26c&topic=t1&content=load+3-17');
  t.is(s.seen[0]!.body, s.seen[1]!.body);
  t.is(s.seen[0]!.contentType, 'application/x-www-form-urlencoded');
});

test('readBody: false keeps the status and the byte count, not the body', async (t) => {
  const s = await server(json(500, { result: 'error', msg: 'boom' }));
  t.teardown(s.close);
  const r = await request(s.base, 'POST', '/messages', { form: 'a=1', readBody: false });
  t.is(r.status, 500);
  t.is(r.body, null);
  t.is(r.bytes, Buffer.byteLength(JSON.stringify({ result: 'error', msg: 'boom' })));
  t.true(r.ms > 0);
});

test("each user's requests carry that user's authorization, made once per credentials", async (t) => {
  const s = await server(json(200, {}));
  t.teardown(s.close);
  const a = { email: 'a@b.test', apiKey: 'ka' };
  const b = { email: 'b@b.test', apiKey: 'kb' };
  for (const auth of [a, b, a, b]) await request(s.base, 'GET', '/x', { auth });
  const basic = (c: { email: string; apiKey: string }) => 'Basic ' + Buffer.from(`${c.email}:${c.apiKey}`).toString('base64');
  t.deepEqual(s.seen.map((x) => x.authorization), [basic(a), basic(b), basic(a), basic(b)]);
});
