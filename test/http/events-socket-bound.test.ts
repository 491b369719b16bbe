// The event socket's bound of buffered bytes (fitsBound): counted in UTF-8 bytes, not in string length.
import test from 'ava';
import { fitsBound } from '../../src/http/events-socket.js';

test('ASCII frames: bytes are characters', (t) => {
  t.true(fitsBound(0, 'x'.repeat(100), 100));
  t.false(fitsBound(1, 'x'.repeat(100), 100));
  t.true(fitsBound(50, 'x'.repeat(50), 100));
});

test('multibyte frames are counted in bytes: 40 euro signs are 120 bytes', (t) => {
  const euros = '€'.repeat(40);
  t.false(fitsBound(0, euros, 100), '40 characters, 120 bytes: over a 100-byte bound');
  t.true(fitsBound(0, euros, 120));
  t.false(fitsBound(1, euros, 120));
  t.true(fitsBound(0, '😀'.repeat(10), 40), 'a surrogate pair is 4 bytes');
  t.false(fitsBound(0, '😀'.repeat(10), 39));
});

test('far from the bound the answer needs no count; past it in characters it is no', (t) => {
  t.true(fitsBound(0, '€'.repeat(10), 1000));
  t.false(fitsBound(0, 'x'.repeat(1001), 1000));
  t.false(fitsBound(2000, '', 1000), 'already over the bound');
});
