// Plain text answered without the renderer: every content the shortcut accepts renders exactly as the renderer
// renders it (random contents over an alphabet near the accepted one, with emoticons on and off), and content that a
// Markdown rule would touch is left to the renderer.
import test from 'ava';
import { renderMarkdown } from '../../src/markdown/index.js';
import { PLAIN_TEXT_MAX_LENGTH, renderPlainText } from '../../src/markdown/plain.js';
import { makeContext } from './context.js';

const noLinkifiers = makeContext({ linkifiers: [] });
const emoticons = makeContext({ linkifiers: [], translateEmoticons: true });

/** A small seeded generator (mulberry32), so a failure repeats. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Words that mean something to some rule when decorated (emoji names, wildcards, TLDs, /me), and characters from
// the whole printable ASCII range and beyond, so near misses are tried too.
const WORDS = ['load', 'smile', 'all', 'everyone', 'topic', 'com', 'org', 'io', 'me', 'http', 'https', 'www', 'D', 'P', 'x', '1', '42', 'tada'];
const NEAR = [' ', ' ', ' ', ',', '.', '?', '!', "'", '-', '-', '.', ' .', '. '];
const ANY = [...Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)), '\n', '\t', 'é', '😀', '\u00a0', '\u200b'];

function content(next: () => number): string {
  const pick = <T>(xs: T[]): T => xs[Math.floor(next() * xs.length)]!;
  let s = '';
  const parts = 1 + Math.floor(next() * 8);
  for (let i = 0; i < parts; i++) {
    const r = next();
    s += r < 0.55 ? pick(WORDS) : r < 0.9 ? pick(NEAR) : pick(ANY);
  }
  return s;
}

test('every content the shortcut answers renders exactly so (20,000 random contents)', (t) => {
  const next = random(22);
  let answered = 0;
  for (let i = 0; i < 20_000; i++) {
    const text = content(next);
    for (const ctx of [noLinkifiers, emoticons]) {
      const plain = renderPlainText(text, ctx.linkifiers);
      if (!plain) continue;
      answered++;
      const real = renderMarkdown(text, ctx);
      if (JSON.stringify(plain) !== JSON.stringify(real)) t.fail(`${JSON.stringify(text)}: ${plain.html} ≠ ${real.html}`);
    }
  }
  t.true(answered > 5_000, `only ${answered} answered: the sample does not exercise the shortcut`);
});

test('the bench and everyday sentences are answered, as the renderer renders them', (t) => {
  for (const text of ['load 3-17', 'Hello world.', "don't stop, it's fine!", 'ok?', 'A 10-minute call. Then lunch']) {
    t.deepEqual(renderPlainText(text, []), renderMarkdown(text, noLinkifiers), text);
  }
});

test('content some Markdown rule touches is left to the renderer', (t) => {
  const touched = [
    '1. item', '- item', 'a.com', 'see example.com', 'hi :)', ':smile:', '@**Iago**', '@all', '#**Verona**', '*b*',
    '`c`', 'a\nb', 'trailing  ', ' leading', '/me waves', 'x & y', 'a < b', 'caf\u00e9', 'ok 😀', '$$x$$', '> quote',
    'a_b', '~~~', 'a|b', '[x](y)', 'http://x', 'a.b', 'end..',
  ];
  for (const text of touched) t.is(renderPlainText(text, []), undefined, text);
});

test('a realm with linkifiers, or a long content, goes to the renderer', (t) => {
  t.is(renderPlainText('see ZUL', makeContext().linkifiers), undefined);
  t.is(renderPlainText('a'.repeat(PLAIN_TEXT_MAX_LENGTH + 1), []), undefined);
  t.truthy(renderPlainText('a'.repeat(PLAIN_TEXT_MAX_LENGTH), []));
});
