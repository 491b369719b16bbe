// Parser and resolver outputs: alias normalization, options, and what resolution does to each operator.
import test from 'ava';
import { ApiError } from '../../src/errors.js';
import { parseNarrow, resolveNarrow, type NarrowResolver } from '../../src/narrow/index.js';
import { makeResolver } from './fixtures.js';

test('aliases are normalized and operands typed', (t) => {
  t.deepEqual(
    parseNarrow([
      ['stream', 'Denmark'],
      { operator: 'streams', operand: 'public', negated: true },
      { operator: 'is', operand: 'private', negated: true },
      ['id', '7'],
      { operator: 'sender', operand: 3 },
    ]),
    [
      { operator: 'channel', operand: 'Denmark', negated: false },
      { operator: 'channels', operand: 'public', negated: true },
      { operator: 'is', operand: 'dm', negated: true },
      { operator: 'id', operand: 7, negated: false },
      { operator: 'sender', operand: 3, negated: false },
    ],
  );
  t.deepEqual(parseNarrow([['pm-with', 'a@x.com, b@y.com'], { operator: 'group_pm_with', operand: 3 }, ['pm_with', '5']]), [
    { operator: 'dm', operand: ['a@x.com', 'b@y.com'], negated: false },
    { operator: 'group-pm-with', operand: 3, negated: false },
    { operator: 'dm', operand: ['5'], negated: false },
  ]);
});

test('negation is dropped on search, near and with, as Zulip ignores it there', (t) => {
  const terms = parseNarrow([
    { operator: 'search', operand: 'x', negated: true },
    { operator: 'near', operand: '5', negated: true },
    { operator: 'with', operand: ' 12 ', negated: true },
  ]);
  t.deepEqual(terms, [
    { operator: 'search', operand: 'x', negated: false },
    { operator: 'near', operand: '5', negated: false },
    { operator: 'with', operand: 12, negated: false },
  ]);
});

test('empty-topic names map to the empty topic only when given', (t) => {
  const narrow = [['topic', '(no topic)'], ['topic', 'general chat'], ['topic', '']];
  t.deepEqual(parseNarrow(narrow).map((x) => x.operand), ['(no topic)', 'general chat', '']);
  t.deepEqual(parseNarrow(narrow, { emptyTopicNames: ['(no topic)', 'general chat'] }).map((x) => x.operand), ['', '', '']);
});

test('operators are looked up safely and operands refuse NUL', (t) => {
  for (const op of ['__proto__', 'constructor', 'toString', 'subject']) {
    t.is(t.throws(() => parseNarrow([[op, 'x']]), { instanceOf: ApiError })?.message, `Invalid narrow operator: unknown operator ${op}`);
  }
  t.is(t.throws(() => parseNarrow([['topic', 'a\u0000b']]))?.message, 'operand contains NULL (0x00) characters.');
  t.is(t.throws(() => parseNarrow([{ operator: 'id', operand: 2147483648 }]))?.message, 'Invalid narrow operator: Invalid message ID');
  t.is(t.throws(() => parseNarrow([{ operator: 'channel', operand: 1.5 }]))?.message, 'operand is not a string or integer');
});

test('resolution: IDs, merged search, dropped near and in:all, in:home as -is:muted', (t) => {
  const resolved = resolveNarrow(
    parseNarrow([
      ['search', 'Hello'],
      { operator: 'dm', operand: [3, 2, 3] },
      ['near', '9'],
      ['in', 'all'],
      ['in', 'home'],
      ['search', '"big launch" x'],
    ]),
    makeResolver(),
  );
  t.deepEqual(resolved, [
    { op: 'dm', userIds: [2, 3], negated: false },
    { op: 'is', what: 'muted', negated: true },
    { op: 'search', words: ['hello', 'big', 'launch', 'x'], phrases: ['big launch'], negated: false },
  ]);
});

test('without the with hook, with does not filter', (t) => {
  const { conversationOfMessage: _, ...noHook } = makeResolver();
  const resolver: NarrowResolver = noHook;
  t.deepEqual(resolveNarrow(parseNarrow([['with', '101'], ['is', 'starred']]), resolver), [
    { op: 'is', what: 'starred', negated: false },
  ]);
});

test('with that lands in a channel conflicts with is:dm', (t) => {
  const err = t.throws(() => resolveNarrow(parseNarrow([['is', 'dm'], ['with', '101']]), makeResolver()));
  t.is(err?.message, 'Invalid narrow operator: No message can be both a channel message and direct message');
});

test('the channel/DM conflict is checked after with, hook or not', (t) => {
  const message = 'Invalid narrow operator: No message can be both a channel message and direct message';
  const { conversationOfMessage: _, ...noHook } = makeResolver();
  t.is(t.throws(() => resolveNarrow(parseNarrow([['stream', 'Denmark'], ['is', 'dm'], ['with', '101']]), noHook))?.message, message);
  // An inaccessible target leaves the conversation terms in place.
  const kept = [['stream', 'Denmark'], ['topic', 'x'], ['is', 'dm'], ['with', '999']];
  t.is(t.throws(() => resolveNarrow(parseNarrow(kept), makeResolver()))?.message, message);
});

test('narrows within the limits parse; past them they are refused with a 400 naming the limit', (t) => {
  const terms = (n: number) => Array.from({ length: n }, (_, i) => ({ operator: 'topic', operand: `t${i}`, negated: true }));
  t.is(parseNarrow(terms(100)).length, 100);
  const refused = (narrow: unknown, msg: string) => {
    const e = t.throws(() => parseNarrow(narrow), { instanceOf: ApiError });
    t.is(e!.status, 400);
    t.is(e!.message, `Invalid narrow operator: ${msg}`);
  };
  refused(terms(101), 'too many terms (limit: 100)');
  refused([['search', 'w'.repeat(1001)]], 'operand is too long (limit: 1000 characters)');
  t.notThrows(() => parseNarrow([['search', 'w'.repeat(1000)]]));
  refused([{ operator: 'dm', operand: Array.from({ length: 1001 }, (_, i) => i + 1) }], 'too many users (limit: 1000)');
  refused([['dm', Array.from({ length: 1001 }, (_, i) => `u${i}@x.test`).join(',')]], 'too many users (limit: 1000)');
  refused([['dm', `${'a'.repeat(1001)}@x.test`]], 'operand is too long (limit: 1000 characters)');
});
