// Measures the renderer against the reference server's Markdown corpus (../shared/fixtures/zulip-markdown/):
// renders every case with the reference's test-realm context, compares after normalization, and reports the
// match rate by feature. Run: `node dist/bench/markdown-corpus.js [--diff]` (prints nothing useful without the
// fixture; test/markdown/corpus.test.ts skips then).
//
// Normalization (applied to both sides before comparing):
// - entities: character references are decoded, then `&`, `<`, `>` (and `"` in attribute values) re-escaped,
//   so `'`, `&#39;` and `&#x27;` compare equal;
// - attributes: sorted by name within each tag;
// - whitespace: runs of whitespace become one space, and whitespace between two tags is dropped.
// Nothing else: link attributes, classes and highlighting spans count.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultEmojiLookup } from '../src/markdown/emoji.js';
import { renderMarkdown, type RenderContext } from '../src/markdown/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
/** The fixture, from the source tree or from dist/ (both sit beside ../shared in a worktree). */
export const CORPUS_FILE = [
  path.resolve(here, '../../shared/fixtures/zulip-markdown/markdown_test_cases.json'),
  path.resolve(here, '../../../shared/fixtures/zulip-markdown/markdown_test_cases.json'),
].find((p) => fs.existsSync(p));

export interface CorpusCase {
  name: string;
  input: string;
  expected: string;
  translateEmoticons: boolean;
  feature: string;
}

interface RegularTest {
  name: string;
  input: string;
  expected_output: string;
  translate_emoticons?: boolean;
  ignore?: boolean;
}

// Feature of a regular case, from its name (first match wins).
const FEATURES: [RegExp, string][] = [
  [/image|preview|inlining/, 'image previews'],
  [/^tex_|math/, 'math'],
  [/hilite|codeblock|code_block|backticks|fence(?!d_quote)|malformed/, 'code blocks'],
  [/^timestamp/, 'timestamps'],
  [/list/, 'lists'],
  [/quote/, 'quotes'],
  [/emoticon|emoji/, 'emoji'],
  [/strong|emphasis|underscore|strikthrough|star_/, 'emphasis'],
  [/link|linkify/, 'links'],
  [/html|dangerous/, 'safety'],
  [/spoiler/, 'spoilers'],
  [/inline_code/, 'inline code'],
];

function featureOf(name: string): string {
  return FEATURES.find(([re]) => re.test(name))?.[1] ?? 'other';
}

/** The reference's expected output for a linkify case (its test's `replaced`: a payload with or without `%s`). */
function linkifyExpected(payload: string, url: string): string {
  if (!payload.includes('%s')) return payload;
  const href = url.startsWith('http') ? url : url.includes('@') ? `mailto:${url}` : `http://${url}`;
  return payload.replace('%s', `<a href="${href}">${url}</a>`);
}

export function loadCorpus(file: string): CorpusCase[] {
  const raw = JSON.parse(fs.readFileSync(file, 'utf8')) as {
    regular_tests: RegularTest[];
    linkify_tests: [string, string, string][];
  };
  const cases: CorpusCase[] = raw.regular_tests
    .filter((t) => !t.ignore)
    .map((t) => ({
      name: t.name,
      input: t.input,
      expected: t.expected_output,
      translateEmoticons: t.translate_emoticons === true,
      feature: featureOf(t.name),
    }));
  raw.linkify_tests.forEach(([input, payload, url], i) => {
    cases.push({ name: `linkify_${i}`, input, expected: linkifyExpected(payload, url), translateEmoticons: false, feature: 'autolinks' });
  });
  return cases;
}

// The reference's test realm ("zulip" at http://zulip.testserver) as its populate_db makes it.
const USERS = ['Iago', 'King Hamlet', 'Othello, the Moor of Venice', 'Cordelia, Lear\'s daughter', 'Prospero from The Tempest', 'aaron', 'ZOE']
  .map((fullName, i) => ({ id: 10 + i, fullName }));
const CHANNELS = ['Denmark', 'Scotland', 'Verona', 'Venice', 'Rome', 'core team'].map((name, i) => ({ id: 1 + i, name }));
const GROUPS = [{ id: 1, name: 'hamletcharacters' }];

export function corpusContext(translateEmoticons: boolean): RenderContext {
  return {
    userByName: (name) => USERS.find((u) => u.fullName.toLowerCase() === name.toLowerCase()),
    userById: (id) => USERS.find((u) => u.id === id),
    groupByName: (name) => GROUPS.find((g) => g.name === name),
    channelByName: (name) => CHANNELS.find((c) => c.name === name),
    emoji: defaultEmojiLookup,
    linkifiers: [{ id: 1, pattern: '#(?P<id>[0-9]{2,8})', urlTemplate: 'https://trac.example.com/ticket/{id}' }],
    realmUrl: 'http://zulip.testserver',
    translateEmoticons,
    // Image previews on, as in the reference's test realm (external images through our signed proxy).
    images: { enabled: true, proxyKey: 'corpus', uploads: {} },
  };
}

const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(s: string): string {
  return s.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, ref: string) => {
    if (ref[0] === '#') {
      const code = ref[1] === 'x' || ref[1] === 'X' ? parseInt(ref.slice(2), 16) : parseInt(ref.slice(1), 10);
      return String.fromCodePoint(code);
    }
    return NAMED[ref.toLowerCase()] ?? whole;
  });
}

const esc = (s: string, quotes: boolean): string =>
  s.replace(quotes ? /[&<>"]/g : /[&<>]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

/** The documented normalization (see the top of this file). */
export function normalizeHtml(html: string): string {
  const parts = html.split(/(<[^<>]*>)/);
  const out: string[] = [];
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i % 2 === 0) {
      out.push(esc(decodeEntities(part), false).replace(/\s+/g, ' '));
      continue;
    }
    const m = /^<(\/?[a-zA-Z0-9-]+)(.*?)(\/?)>$/s.exec(part);
    if (!m) {
      out.push(part);
      continue;
    }
    const attrs = [...m[2]!.matchAll(/([a-zA-Z-:]+)(?:="([^"]*)"|='([^']*)')?/g)]
      .map((a) => `${a[1]}="${esc(decodeEntities(a[2] ?? a[3] ?? ''), true)}"`)
      .sort();
    out.push(`<${m[1]}${attrs.map((a) => ' ' + a).join('')}>`);
  }
  return out.join('').replace(/>\s+</g, '><').trim();
}

export interface CorpusResult {
  name: string;
  feature: string;
  ok: boolean;
  got: string;
  expected: string;
}

export function measureCorpus(cases: CorpusCase[]): CorpusResult[] {
  return cases.map((c) => {
    const got = renderMarkdown(c.input, corpusContext(c.translateEmoticons)).html;
    return { name: c.name, feature: c.feature, ok: normalizeHtml(got) === normalizeHtml(c.expected), got, expected: c.expected };
  });
}

/** Per-feature counts and the overall rate, as printed by the CLI. */
export function summarize(results: CorpusResult[]): { byFeature: Map<string, { ok: number; total: number }>; ok: number; total: number } {
  const byFeature = new Map<string, { ok: number; total: number }>();
  for (const r of results) {
    const f = byFeature.get(r.feature) ?? { ok: 0, total: 0 };
    f.total++;
    if (r.ok) f.ok++;
    byFeature.set(r.feature, f);
  }
  return { byFeature, ok: results.filter((r) => r.ok).length, total: results.length };
}

function main(): void {
  if (!CORPUS_FILE) {
    console.log('corpus not found (../shared/fixtures/zulip-markdown/); nothing measured');
    return;
  }
  const results = measureCorpus(loadCorpus(CORPUS_FILE));
  const { byFeature, ok, total } = summarize(results);
  const pct = (a: number, b: number): string => `${((100 * a) / b).toFixed(1)} %`;
  console.log('feature'.padEnd(16), 'match', 'rate');
  for (const [feature, f] of [...byFeature].sort((a, b) => b[1].total - a[1].total)) {
    console.log(feature.padEnd(16), `${f.ok}/${f.total}`.padEnd(7), pct(f.ok, f.total));
  }
  console.log('all'.padEnd(16), `${ok}/${total}`.padEnd(7), pct(ok, total));
  const showDiff = process.argv.includes('--diff');
  for (const r of results.filter((x) => !x.ok)) {
    console.log(`  differs: ${r.name} (${r.feature})`);
    if (showDiff) console.log(`    got:      ${normalizeHtml(r.got)}\n    expected: ${normalizeHtml(r.expected)}`);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
