// The parameter-schema mechanism: types, errors, defaults, aliases and unknown parameters.
import test from 'ava';
import { ApiError } from '../../src/errors.js';
import {
  bool, compileSchema, enumOf, int, list, nullable, object, oneOf, optional, required, str, withDefault,
} from '../../src/params.js';

function fails(t: any, fn: () => unknown, msg: string, code = 'BAD_REQUEST') {
  const e = t.throws(fn, { instanceOf: ApiError }) as ApiError;
  t.is(e.message, msg);
  t.is(e.code, code);
  t.is(e.status, 400);
}

const parse = compileSchema({
  content: required(str({ maxLength: 10 })),
  topic: optional(str(), ['subject']),
  count: withDefault(int({ min: 0, max: 100 }), 5),
  flag: optional(bool()),
  ids: optional(list(int())),
  kind: optional(enumOf(['a', 'b'])),
  to: optional(oneOf(int(), list(int()), str())),
  maybe: optional(nullable(int())),
  obj: optional(object({ x: required(int()), y: optional(str()) })),
});

test('typed values come out of raw strings', (t) => {
  const { values, ignored } = parse(
    new Map([
      ['content', 'hi'], ['count', '7'], ['flag', 'true'], ['ids', '[1,2,3]'], ['kind', 'b'], ['to', '[4,5]'],
      ['maybe', 'null'], ['obj', '{"x":1}'],
    ]),
  );
  t.deepEqual(values, {
    content: 'hi', topic: undefined, count: 7, flag: true, ids: [1, 2, 3], kind: 'b', to: [4, 5], maybe: null,
    obj: { x: 1, y: undefined },
  });
  t.deepEqual(ignored, []);
});

test('defaults apply to absent optional parameters', (t) => {
  t.is(parse(new Map([['content', 'x']])).values.count, 5);
});

test('aliases are accepted and not reported as unknown', (t) => {
  const r = parse(new Map([['content', 'x'], ['subject', 'old name']]));
  t.is(r.values.topic, 'old name');
  t.deepEqual(r.ignored, []);
});

test('unknown parameters are listed as ignored', (t) => {
  const r = parse(new Map([['content', 'x'], ['bogus', '1'], ['other', '']]));
  t.deepEqual(r.ignored, ['bogus', 'other']);
});

test('a missing required parameter is REQUEST_VARIABLE_MISSING with var_name', (t) => {
  const e = t.throws(() => parse(new Map()), { instanceOf: ApiError }) as ApiError;
  t.is(e.code, 'REQUEST_VARIABLE_MISSING');
  t.is(e.message, "Missing 'content' argument");
  t.deepEqual(e.extra, { var_name: 'content' });
});

test('type errors name the parameter', (t) => {
  fails(t, () => parse(new Map([['content', 'x'], ['count', '1.5']])), 'count is not an integer');
  fails(t, () => parse(new Map([['content', 'x'], ['count', '99999999999999999999']])), 'count is not an integer');
  fails(t, () => parse(new Map([['content', 'x'], ['count', '-1']])), 'count is too small');
  fails(t, () => parse(new Map([['content', 'x'], ['count', '101']])), 'count is too large');
  fails(t, () => parse(new Map([['content', 'x'], ['flag', 'yes']])), 'flag is not a boolean');
  fails(t, () => parse(new Map([['content', 'x'], ['ids', '[1,']])), 'Argument "ids" is not valid JSON.');
  fails(t, () => parse(new Map([['content', 'x'], ['ids', '{"a":1}']])), 'ids is not a list');
  fails(t, () => parse(new Map([['content', 'x'], ['ids', '[1,"2"]']])), 'ids[1] is not an integer');
  fails(t, () => parse(new Map([['content', 'x'], ['kind', 'c']])), 'Invalid kind');
  fails(t, () => parse(new Map([['content', 'x'], ['obj', '{"y":"z"}']])), 'x key is missing from obj');
  fails(t, () => parse(new Map([['content', 'x'], ['obj', '{"x":1,"q":2}']])), 'Unexpected key q in obj');
  fails(t, () => parse(new Map([['content', 'x'], ['obj', '[]']])), 'obj is not a dict');
});

test('strings: length counted in characters, NUL refused', (t) => {
  t.is(parse(new Map([['content', '😀😀😀😀😀😀😀😀😀😀']])).values.content.length, 20);
  fails(t, () => parse(new Map([['content', '12345678901']])), 'content is too long (limit: 10 characters)');
  fails(t, () => parse(new Map([['content', 'a\u0000b']])), 'content contains NULL (0x00) characters.');
});

test('deep JSON does not crash the parser', (t) => {
  const deep = '['.repeat(100_000) + ']'.repeat(100_000);
  fails(t, () => parse(new Map([['content', 'x'], ['ids', deep]])), 'ids[0] is not an integer');
});
