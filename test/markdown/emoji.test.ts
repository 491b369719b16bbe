// The unicode emoji name table shared by messages, reactions and user status.
import test from 'ava';
import {
  defaultEmojiLookup,
  emojiByName,
  emojiCodeIsValid,
  emojiCodes,
  emojiCodeToText,
  emojiNameForCode,
  emojiNames,
} from '../../src/markdown/emoji.js';

const known: [name: string, code: string][] = [
  ['smile', '1f642'],
  ['smiley', '1f603'],
  ['grinning', '1f600'],
  ['heart', '2764'],
  ['+1', '1f44d'],
  ['thumbs_up', '1f44d'],
  ['-1', '1f44e'],
  ['tada', '1f389'],
  ['octopus', '1f419'],
  ['working_on_it', '1f6e0'],
  ['check', '2705'],
  ['hash', '0023-20e3'],
  ['woman_shrugging', '1f937-200d-2640'],
  ['holiday_tree', '1f384'],
  ['gold', '1f947'],
];

for (const [name, code] of known) {
  test(`emoji ${name} is ${code}`, (t) => {
    t.is(emojiByName(name), code);
    t.true(emojiCodeIsValid(code));
    t.deepEqual(defaultEmojiLookup(name), { code, type: 'unicode_emoji' });
  });
}

test('unknown names and codes', (t) => {
  t.is(emojiByName('fakeemoji'), undefined);
  t.is(emojiByName('Smile'), undefined);
  t.is(emojiByName('__proto__'), undefined);
  t.is(defaultEmojiLookup('nope'), undefined);
  t.false(emojiCodeIsValid('zzzz'));
  t.false(emojiCodeIsValid('1F44D'));
  t.false(emojiCodeIsValid(''));
});

test('the table covers at least 150 names with well-formed codes', (t) => {
  t.true(emojiNames().length >= 150);
  for (const [code] of emojiCodes()) t.regex(code, /^[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*$/);
});

test('canonical names round-trip', (t) => {
  for (const [code, name] of emojiCodes()) {
    t.is(emojiNameForCode(code), name);
    t.is(emojiByName(name), code);
  }
  t.is(emojiNameForCode('1f44d'), '+1');
});

test('codes convert to their characters', (t) => {
  t.is(emojiCodeToText('1f44d'), '👍');
  t.is(emojiCodeToText('0023-20e3'), '#\u20e3');
});
