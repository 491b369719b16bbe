// The reference's Markdown corpus as a fidelity floor: skipped when ../shared is absent (see bench/markdown-corpus.ts).
import test from 'ava';
import { CORPUS_FILE, loadCorpus, measureCorpus, normalizeHtml, summarize } from '../../bench/markdown-corpus.js';

/** Share of corpus cases that must match; the cases that still differ are listed in src/markdown/README.md. */
const FLOOR = 0.95;

const maybe = CORPUS_FILE ? test : test.skip;

maybe('the corpus match rate stays at or above its floor', (t) => {
  const results = measureCorpus(loadCorpus(CORPUS_FILE!));
  const { ok, total } = summarize(results);
  t.log(`${ok}/${total} corpus cases match`);
  t.true(ok / total >= FLOOR, `differs: ${results.filter((r) => !r.ok).map((r) => r.name).join(', ')}`);
});

test('the normalization ignores entity spelling, attribute order and whitespace between tags', (t) => {
  t.is(normalizeHtml('<p  class="a" id=\'b\'>it&#x27;s &quot;x&quot;</p>\n<br>'), normalizeHtml('<p id="b" class="a">it\'s "x"</p><br>'));
  t.not(normalizeHtml('<p>a b</p>'), normalizeHtml('<p>ab</p>'));
});
