// The request pipeline over real HTTP: envelope, status codes, parameters from every source and method.
import test from 'ava';
import { endpoint, RawReply } from '../../src/http/endpoint.js';
import { page } from '../../src/http/pages.js';
import { errors } from '../../src/errors.js';
import { bool, int, list, optional, required, str } from '../../src/params.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

const echoParams = {
  name: required(str()),
  count: optional(int()),
  flag: optional(bool()),
  ids: optional(list(int())),
};
const echo = (method: 'GET' | 'POST' | 'PATCH' | 'DELETE') =>
  endpoint({
    method,
    path: '/test/echo',
    auth: 'user',
    params: echoParams,
    handle: (ctx, p) => ({ method: ctx.request.method, user_id: ctx.user.id, ...p }),
  });
const echoPath = endpoint({
  method: 'GET',
  path: '/test/items/{item_id}',
  auth: 'none',
  params: { item_id: required(int()) },
  handle: (_ctx, p) => ({ item_id: p.item_id }),
});
const boom = endpoint({
  method: 'GET',
  path: '/test/boom',
  auth: 'none',
  params: {},
  handle: () => {
    throw new Error('secret internal detail');
  },
});
const refuse = endpoint({
  method: 'GET',
  path: '/test/refuse',
  auth: 'none',
  params: {},
  handle: () => {
    throw errors.badRequest('Nope', { stream: 'x' });
  },
});

const pageRoute = endpoint({
  method: 'GET',
  path: '/test-page/{n}',
  root: true,
  errorFormat: 'html',
  auth: 'none',
  params: { n: required(int({ max: 10 })) },
  handle: (_ctx, p) => new RawReply(page('Test page', `<p>n is ${p.n}</p>`)),
});

let s: TestServer;
test.before(async () => {
  s = await startTestServer({
    endpoints: [echo('GET'), echo('POST'), echo('PATCH'), echo('DELETE'), echoPath, boom, refuse, pageRoute],
    env: { MAX_BODY_BYTES: String(64 * 1024) },
  });
});
test.after.always(async () => s?.close());

for (const method of ['GET', 'POST', 'PATCH', 'DELETE'] as const) {
  test(`${method}: parameters from the query string`, async (t) => {
    const r = await s.client.as(s.owner).request(method, '/test/echo', {
      query: { name: 'q', count: '3', flag: 'false', ids: '[1,2]' },
    });
    t.is(r.status, 200);
    t.like(r.json, { result: 'success', msg: '', method, name: 'q', count: 3, flag: false, ids: [1, 2] });
  });

  test(`${method}: parameters from a urlencoded body`, async (t) => {
    const r = await s.client.as(s.owner).request(method, '/test/echo', { form: { name: 'form ü', count: '4' } });
    t.is(r.status, 200);
    t.like(r.json, { name: 'form ü', count: 4, method });
  });

  test(`${method}: parameters from a multipart body`, async (t) => {
    const r = await s.client.as(s.owner).request(method, '/test/echo', {
      multipart: { name: 'multi', flag: 'true', ids: '[7]' },
    });
    t.is(r.status, 200);
    t.like(r.json, { name: 'multi', flag: true, ids: [7], method });
  });
}

test('the body wins over the query string', async (t) => {
  const r = await s.client.as(s.owner).post('/test/echo', { query: { name: 'query' }, form: { name: 'body' } });
  t.is(r.json.name, 'body');
});

test('unknown parameters are listed in ignored_parameters_unsupported, only when present', async (t) => {
  const r = await s.client.as(s.owner).post('/test/echo', { form: { name: 'x', foo: '1', bar: '2' } });
  t.is(r.status, 200);
  t.deepEqual(r.json.ignored_parameters_unsupported, ['foo', 'bar']);
  const clean = await s.client.as(s.owner).post('/test/echo', { form: { name: 'x' } });
  t.false('ignored_parameters_unsupported' in clean.json);
});

test('path parameters are typed like the others', async (t) => {
  t.is((await s.client.get('/test/items/42')).json.item_id, 42);
  const bad = await s.client.get('/test/items/abc');
  t.is(bad.status, 400);
  t.deepEqual(bad.json, { result: 'error', msg: 'item_id is not an integer', code: 'BAD_REQUEST' });
});

test('a missing parameter is a 400 with var_name', async (t) => {
  const r = await s.client.as(s.owner).post('/test/echo', { form: {} });
  t.is(r.status, 400);
  t.deepEqual(r.json, { result: 'error', msg: "Missing 'name' argument", code: 'REQUEST_VARIABLE_MISSING', var_name: 'name' });
});

test('errors carry their extra fields', async (t) => {
  const r = await s.client.get('/test/refuse');
  t.is(r.status, 400);
  t.deepEqual(r.json, { result: 'error', msg: 'Nope', code: 'BAD_REQUEST', stream: 'x' });
});

test('an unknown endpoint is a 404 envelope', async (t) => {
  for (const path of ['/api/v1/no/such/thing', '/api/v2/server_settings', '/favicon.ico', '/api/v1/server_settings/']) {
    const r = await s.client.get(path, { root: true });
    t.is(r.status, 404, path);
    t.deepEqual(r.json, { result: 'error', msg: 'Not Found', code: 'NOT_FOUND' }, path);
  }
});

test('a wrong method is a 405 with Allow', async (t) => {
  const r = await s.client.post('/server_settings');
  t.is(r.status, 405);
  t.is(r.headers.allow, 'GET');
  t.is(r.json.code, 'METHOD_NOT_ALLOWED');
});

test('an unexpected exception is a 500 envelope without internals, and the server keeps serving', async (t) => {
  const r = await s.client.get('/test/boom');
  t.is(r.status, 500);
  t.deepEqual(r.json, { result: 'error', msg: 'Internal server error', code: 'INTERNAL_SERVER_ERROR' });
  t.false(r.text.includes('secret internal detail'));
  t.is((await s.client.get('/server_settings')).status, 200);
});

test('an oversized body is a 413 envelope, by declared length and by streamed length', async (t) => {
  const big = 'name=' + 'x'.repeat(70 * 1024);
  const r = await s.client.as(s.owner).post('/test/echo', { body: big, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.is(r.status, 413);
  t.is(r.json.code, 'REQUEST_TOO_LARGE');
  const chunked = await s.client.as(s.owner).post('/test/echo', {
    body: big,
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'transfer-encoding': 'chunked', 'content-length': '' },
  }).catch((e) => ({ status: -1, error: e }));
  t.true(chunked.status === 413 || chunked.status === -1);
  t.is((await s.client.get('/server_settings')).status, 200);
});

test('an unsupported body type is refused', async (t) => {
  const r = await s.client.as(s.owner).post('/test/echo', { body: '{"name":"x"}', headers: { 'content-type': 'application/json' } });
  t.is(r.status, 415);
  t.is(r.json.result, 'error');
});

test('a malformed multipart body is a 400 envelope', async (t) => {
  const r = await s.client.as(s.owner).post('/test/echo', {
    body: '--xyz\r\nContent-Disposition: form-data; name="name"\r\n\r\nunterminated',
    headers: { 'content-type': 'multipart/form-data; boundary=xyz' },
  });
  t.is(r.status, 400);
  t.is(r.json.result, 'error');
  const noBoundary = await s.client.as(s.owner).post('/test/echo', { body: 'x', headers: { 'content-type': 'multipart/form-data' } });
  t.is(noBoundary.status, 400);
});

test('success responses are JSON with the envelope', async (t) => {
  const r = await s.client.get('/server_settings');
  t.is(r.headers['content-type'], 'application/json');
  t.is(r.json.result, 'success');
  t.is(r.json.msg, '');
});

test('pages outside /api/v1: absolute paths, HTML answers and HTML errors', async (t) => {
  const ok = await s.client.get('/test-page/7', { root: true });
  t.is(ok.status, 200);
  t.regex(ok.headers['content-type'] as string, /^text\/html/);
  t.regex(ok.text, /<p>n is 7<\/p>/);
  const bad = await s.client.get('/test-page/11', { root: true });
  t.is(bad.status, 400);
  t.regex(bad.headers['content-type'] as string, /^text\/html/);
  t.regex(bad.text, /n is too large/);
  t.is((await s.client.get('/api/v1/test-page/7')).status, 404, 'a page is not also an API endpoint');
  t.is((await s.client.get('/test/echo', { root: true })).status, 404, 'an API endpoint is not also a page');
});
