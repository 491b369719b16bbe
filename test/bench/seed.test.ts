// The bench's set-up passwords (bench/scenarios/seed.ts): numbers written in consonants, without the digits zxcvbn's
// l33t matching tries as letters (its estimate of such a password took 100–280 ms of the server's CPU), one form per number.
import test from 'ava';
import { plainLetters } from '../../bench/scenarios/seed.js';

test('plainLetters writes each number in consonants, no digits, one form per number', (t) => {
  const forms = new Set<string>();
  for (let n = 0; n < 5000; n++) {
    const s = plainLetters(n);
    t.regex(s, /^[dfhjkmnpqrvwy]+$/);
    forms.add(s);
  }
  t.is(forms.size, 5000);
  t.regex(plainLetters(Date.now()), /^[dfhjkmnpqrvwy]{11,}$/);
});
