// Realm commands are named `noun.verb`, and their inputs and answers must be plain data: what survives a msgpack
// round trip unchanged (they will travel between processes). The suite runs with PALAVER_CHECK_COMMANDS=1, so
// every command dispatched in any test is checked; here the check itself.
import test from 'ava';
import { assertPlainData } from '../../src/realm/command-check.js';
import { realmCommands } from '../../src/realm/registry.js';

test('every command is named noun.verb', (t) => {
  const kinds = Object.keys(realmCommands);
  t.true(kinds.length > 50);
  t.deepEqual(kinds.filter((k) => !/^[a-z][A-Za-z]*\.[a-z][A-Za-z]*$/.test(k)), []);
});

test('plain data passes: objects, arrays, strings, numbers, booleans, null, undefined fields, dates, nesting', (t) => {
  const value = {
    senderId: 7,
    to: ['a', 3],
    topic: undefined,
    rendered: { html: '<p>hi</p>', mentionedUserIds: [1, 2], wildcards: { stream: false, topic: true } },
    at: new Date(1_700_000_000_000),
    none: null,
    ratio: 0.25,
    big: 2 ** 40,
  };
  t.notThrows(() => assertPlainData('messages.send', 'input', value));
  t.notThrows(() => assertPlainData('realm.reload', 'answer', undefined));
});

test('a dictionary without a prototype (a params dict) passes; its __proto__ key, which msgpack renames, fails', (t) => {
  const dict = Object.assign(Object.create(null) as Record<string, unknown>, { subtype: 'github', options: [1] });
  t.notThrows(() => assertPlainData('profileFields.create', 'input', { data: dict }));
  const hostile: Record<string, unknown> = Object.create(null);
  hostile['__proto__'] = { polluted: true };
  const err = t.throws(() => assertPlainData('profileFields.create', 'input', { data: hostile }));
  t.is(err?.message, 'realm command profileFields.create: its input is not plain data: .data.__proto__ (Object) changes through msgpack');
});

class Point {
  constructor(readonly x: number) {}
}

for (const [what, value, where] of [
  ['a Map', { byId: new Map([[1, 'a']]) }, '.byId (Map)'],
  ['a Set', { mentionedUserIds: new Set([1]) }, '.mentionedUserIds (Set)'],
  ['a class instance', { rows: [{ at: new Point(1) }] }, '.rows[0].at (Point)'],
  ['a function', { resolve: () => 1 }, '.resolve (function)'],
  ['a typed array', { bytes: new Uint8Array([1]) }, '.bytes (Uint8Array)'],
] as const) {
  test(`${what} fails, named with where it is`, (t) => {
    const err = t.throws(() => assertPlainData('thumbnails.finish', 'answer', value));
    t.is(err?.message, `realm command thumbnails.finish: its answer is not plain data: ${where} changes through msgpack`);
  });
}

test('what msgpack refuses to pack fails too', (t) => {
  const err = t.throws(() => assertPlainData('users.create', 'input', { id: 2n ** 70n }));
  t.regex(err?.message ?? '', /^realm command users\.create: its input is not plain data: msgpack refuses it/);
});
