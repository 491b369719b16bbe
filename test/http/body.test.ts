// Request parameters from query strings and urlencoded bodies (src/http/body.ts): the direct split of text without
// escapes reads exactly what URLSearchParams reads, and the parameter count limit holds on both ways.
import test from 'ava';
import fc from 'fast-check';
import { ApiError } from '../../src/errors.js';
import { addSearchParams, readParams } from '../../src/http/body.js';

function viaUrlSearchParams(text: string): [string, string][] {
  const m = new Map<string, string>();
  for (const [k, v] of new URLSearchParams(text)) m.set(k, v);
  return [...m];
}

function ours(text: string): [string, string][] {
  const m = new Map<string, string>();
  addSearchParams(m, text);
  return [...m];
}

test('query strings read as URLSearchParams reads them, with and without escapes (ASCII ones decoded by hand)', (t) => {
  for (const q of ['', '?', '?a=1', 'a', 'a=', '=x', '&&a=1&&', 'a=1&a=2', 'a=b=c', 'queue_id=1:abc-def&last_event_id=12&dont_block=false', 'a=%41+b&c', 'a=%zz', '??a=1', 'queue_id=1%3Aabc&last_event_id=3', 'a=%C3%A9&b=%C3', 'a=%ED%A0%80']) {
    t.deepEqual(ours(q), viaUrlSearchParams(q), q);
  }
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'b', '=', '&', '?', '%', '+', '2', '0', 'é', ' ', ';', '%41', '%3A', '%C3', '%A9', '%E2%82%AC', '%ED%A0%80', '%2B', '%26', '%3D', '%%', '%3a', '%7f', '%7F', '%80', '%25', '%4', '%g1'), { maxLength: 24 }), (parts) => {
      const q = parts.join('');
      t.deepEqual(ours(q), viaUrlSearchParams(q));
    }),
    { numRuns: 2000 },
  );
});

test('more than 1000 parameters are refused, escaped or not', (t) => {
  for (const sep of ['x', '%78']) {
    const many = Array.from({ length: 1001 }, (_, i) => `${sep}${i}=1`).join('&');
    const err = t.throws(() => addSearchParams(new Map(), many));
    t.true(err instanceof ApiError);
    const fine = Array.from({ length: 1000 }, (_, i) => `${sep}${i}=1`).join('&');
    const m = new Map<string, string>();
    addSearchParams(m, fine);
    t.is(m.size, 1000);
  }
});

test('a request without a body has its parameters at once; a multipart body through a promise, with its files', async (t) => {
  const plain = readParams('a=1', '', Buffer.alloc(0));
  t.false(plain instanceof Promise);
  t.is((plain as Awaited<typeof plain>).fields.get('a'), '1');
  t.deepEqual((plain as Awaited<typeof plain>).files, []);
  const body = Buffer.from('--b\r\nContent-Disposition: form-data; name="f"; filename="x.txt"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--b--\r\n');
  const multi = readParams('a=1', 'multipart/form-data; boundary=b', body);
  t.true(multi instanceof Promise);
  const read = await multi;
  t.is(read.fields.get('a'), '1');
  t.is(read.files.length, 1);
  t.is(read.files[0]!.data.toString(), 'hi');
});
