// Property-based hostile input: for every endpoint, well-typed and ill-typed values for its parameters
// (wrong types, huge strings, deep JSON, NUL bytes, invalid UTF-8, duplicates, overflowing integers, unknown
// enum values) always get a proper envelope — never a 500, never a hang — and the server keeps serving.
import test from 'ava';
import fc from 'fast-check';
import http from 'node:http';
import { endpoints } from '../../src/http/routes/index.js';
import { basicAuth } from '../helpers/http.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser, type TestUser } from '../helpers/users.js';

/** The long variant runs with PALAVER_LONG_TESTS=1. */
const RUNS = process.env.PALAVER_LONG_TESTS ? 60 : 6;

let s: TestServer;
let member: TestUser;
test.before(async () => {
  s = await startTestServer({ env: { MAX_BODY_BYTES: String(2 * 1024 * 1024) } });
  member = await addUser(s, { fullName: 'Fuzzed Member' });
});
test.after.always(async () => s?.close());

const hostileValue = fc.oneof(
  fc.string(),
  fc.string({ maxLength: 3 }).map((x) => x + '\u0000' + x),
  fc.constantFrom('', ' ', 'null', 'true', 'false', '[]', '{}', '[[[[[[', '{"a":', '"', '\\', '%', '%E0%A4%A', '-1', '0', '1.5', '1e400', 'NaN', 'Infinity'),
  fc.constantFrom('9007199254740993', '-9223372036854775809', '99999999999999999999999'),
  fc.integer({ min: -2_147_483_648, max: 2_147_483_647 }).map(String),
  fc.nat(40).map((n) => '['.repeat(n * 500) + ']'.repeat(n * 500)),
  fc.nat(20).map((n) => 'x'.repeat(n * 5000)),
  fc.array(fc.oneof(fc.integer(), fc.string(), fc.boolean(), fc.constant(null)), { maxLength: 5 }).map((a) => JSON.stringify(a)),
  fc.dictionary(fc.string({ maxLength: 8 }), fc.oneof(fc.integer(), fc.string(), fc.boolean())).map((o) => JSON.stringify(o)),
  fc.constantFrom('stream', 'private', 'direct', 'channel', 'add', 'remove', 'read', 'starred', 'owner', 'bogus_enum_value'),
);

/** A raw body: urlencoded pairs (with duplicates), maybe with invalid UTF-8 bytes in it. */
function encode(pairs: [string, string][], invalidUtf8: boolean): Buffer {
  const text = pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join('&');
  return invalidUtf8 ? Buffer.concat([Buffer.from(text), Buffer.from('&x='), Buffer.from([0xff, 0xc3, 0x28])]) : Buffer.from(text);
}

function send(method: string, path: string, body: Buffer, auth: TestUser | null): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', 'content-length': String(body.length) };
    if (auth) headers.authorization = basicAuth(auth.email, auth.apiKey);
    const req = http.request({ host: '127.0.0.1', port: s.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
    });
    req.setTimeout(20_000, () => req.destroy(new Error(`hung: ${method} ${path}`)));
    req.on('error', reject);
    req.end(body);
  });
}

// 204 and 412 belong to the tus protocol (OPTIONS, a missing Tus-Resumable header).
// 503: a health check or an overloaded dependency says so; 500 is never acceptable.
// 414: a URL past the server's 64 KiB limit (src/http/respond.ts).
const ALLOWED = new Set([200, 204, 400, 401, 403, 404, 405, 409, 410, 412, 413, 414, 415, 429, 503]);

for (const e of endpoints) {
  // Long-polls would park; their parameters are covered with dont_block forced on below.
  const names = Object.keys(e.schema);
  test(`${e.method} ${e.path}: hostile parameters get envelopes`, async (t) => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.constantFrom(...names, 'unknown_param'), hostileValue), { maxLength: 6 }),
        fc.boolean(),
        fc.dictionary(fc.constantFrom(...(e.path.match(/\{(\w+)\}/g) ?? ['{none}'])), hostileValue.filter((v) => v.length < 200)),
        async (pairs, invalidUtf8, pathValues) => {
          let path = e.path;
          for (const [seg, v] of Object.entries(pathValues)) path = path.replace(seg, encodeURIComponent(v) || 'x');
          path = path.replace(/\{\w+\}/g, '1');
          if (e.path === '/events' && e.method === 'GET') pairs.push(['dont_block', 'true']);
          const encoded = encode(pairs, invalidUtf8);
          // GET and HEAD carry their parameters in the query string, as real clients send them.
          const inQuery = e.method === 'GET' || e.method === 'HEAD';
          // In a URL, invalid UTF-8 travels percent-encoded (a raw byte is not a valid request line).
          const query = [...encoded].map((b) => (b < 0x80 ? String.fromCharCode(b) : '%' + b.toString(16).toUpperCase())).join('');
          const full = (e.root ? '' : '/api/v1') + path + (inQuery && encoded.length ? '?' + query : '');
          const r = await send(e.method, full, inQuery ? Buffer.alloc(0) : encoded, member).catch((err) => {
            // A head longer than uWebSockets.js takes in one read is refused by closing the connection.
            if (full.length > 60 * 1024) return { status: 414, text: '{"result":"error","msg":"","code":"BAD_REQUEST"}' };
            throw err;
          });
          if (!ALLOWED.has(r.status)) {
            t.fail(`${e.method} ${full} answered ${r.status}: ${r.text.slice(0, 300)}\nparams: ${JSON.stringify(pairs).slice(0, 500)}`);
            return false;
          }
          // HEAD and 204 answers have no body; everything else that fails is the JSON envelope.
          if (!e.root && r.status !== 200 && r.status !== 204 && e.method !== 'HEAD') {
            let body;
            try {
              body = JSON.parse(r.text);
            } catch {
              t.fail(`${e.method} ${full} answered ${r.status} without a JSON envelope: ${r.text.slice(0, 200)}`);
              return false;
            }
            if (body.result !== 'error' || typeof body.msg !== 'string' || typeof body.code !== 'string') {
              t.fail(`${e.method} ${full} answered ${r.status} with a malformed envelope: ${r.text.slice(0, 200)}`);
              return false;
            }
          }
          return true;
        },
      ),
      { numRuns: RUNS, interruptAfterTimeLimit: 20_000 },
    );
    const alive = await send('GET', '/api/v1/server_settings', Buffer.alloc(0), null);
    t.is(alive.status, 200, 'the server keeps serving');
  });
}
