// Hostile input: raw HTML, unsafe URLs, markup-breaking names, deep nesting and catastrophic linkifiers.
import test from 'ava';
import fc from 'fast-check';
import { MAX_NESTING, renderMarkdown } from '../../src/markdown/index.js';
import { MAX_MATCHES_PER_MESSAGE } from '../../src/markdown/linkifiers.js';
import { makeContext, unsafeHtmlReason } from './context.js';

const exact: [name: string, input: string, html: string][] = [
  ['script tag', '<script>alert(1)</script>', '<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>'],
  ['img onerror', '<img src=x onerror=alert(1)>', '<p>&lt;img src=x onerror=alert(1)&gt;</p>'],
  ['nested script tags', '<<script>script>evil()<</script>/script>', '<p>&lt;&lt;script&gt;script&gt;evil()&lt;&lt;/script&gt;/script&gt;</p>'],
  ['html block', '<div onclick="x()">\nhi\n</div>', '<p>&lt;div onclick="x()"&gt;<br>\nhi<br>\n&lt;/div&gt;</p>'],
  ['html in a spoiler header', '```spoiler <script>alert(1)</script>\n<b>x</b>\n```',
    '<div class="spoiler-block"><div class="spoiler-header">\n<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>&lt;b&gt;x&lt;/b&gt;</p>\n</div></div>'],
  ['javascript link', '[x](javascript:alert(1))', '<p>[x](javascript:alert(1))</p>'],
  ['mixed-case javascript link', '[x](JaVaScRiPt:alert(1))', '<p>[x](JaVaScRiPt:alert(1))</p>'],
  ['javascript autolink', '<javascript:alert(1)>', '<p>&lt;javascript:alert(1)&gt;</p>'],
  ['javascript bare text', 'javascript://foo.com', '<p>javascript://foo.com</p>'],
  ['data URL', '[x](data:text/html;base64,PHNjcmlwdD4=)', '<p>[x](data:text/html;base64,PHNjcmlwdD4=)</p>'],
  ['vbscript link', '[x](vbscript:msgbox(1))', '<p>[x](vbscript:msgbox(1))</p>'],
  ['entity-encoded scheme', '[x](&#106;avascript:alert(1))', '<p>[x](javascript:alert(1))</p>'],
  ['unlisted schemes', '[app](itms://x.com/app) [f](foo://bar) [c](chrome://settings)', '<p>[app](itms://x.com/app) [f](foo://bar) [c](chrome://settings)</p>'],
  ['quote in a link URL', '[x](https://a.com/"onmouseover="alert(1))',
    '<p><a href="https://a.com/%22onmouseover=%22alert(1)">x</a></p>'],
  ['user name with quotes', '@**Evil" onmouseover="alert(1)**',
    '<p><span class="user-mention" data-user-id="7">@Evil" onmouseover="alert(1)</span></p>'],
  ['group name with markup', '@*hax"or<b>*', '<p><span class="user-group-mention" data-user-group-id="4">@hax"or&lt;b&gt;</span></p>'],
  ['channel name with markup', '#**bad"chan<script>**',
    '<p><a class="stream" data-stream-id="11" href="/#narrow/channel/11-bad.22chan.3Cscript.3E">#bad"chan&lt;script&gt;</a></p>'],
  ['topic with markup', '#**Verona>x"<b>**',
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/x.22.3Cb.3E">#Verona &gt; x"&lt;b&gt;</a></p>'],
  ['realm emoji with a javascript URL', ':evil:', '<p>:evil:</p>'],
  ['realm emoji URL with quotes', ':quoted:',
    '<p><img alt=":quoted:" class="emoji" src="/e/a&quot;onerror=&quot;alert(1).png" title="quoted"></p>'],
  ['code language with quotes', '```py"onload="x\ncode\n```',
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="n">code</span>\n</code></pre></div>'],
];

for (const [name, input, html] of exact) {
  test(`hostile: ${name}`, (t) => {
    const r = renderMarkdown(input, makeContext());
    t.is(r.html, html);
    t.is(unsafeHtmlReason(r.html), null);
  });
}

const N = 10_000;
const deep: [name: string, input: string][] = [
  ['10k >', '>'.repeat(N) + ' deep'],
  ['10k "> "', '> '.repeat(N) + 'deep'],
  ['10k [', '['.repeat(N) + 'x'],
  ['10k [ then ]', '['.repeat(N) + ']'.repeat(N) + '(https://x.com)'],
  ['10k *', '*'.repeat(N) + 'x' + '*'.repeat(N)],
  ['10k * with words', '*a '.repeat(N)],
  ['10k ~', '~'.repeat(N) + 'x' + '~'.repeat(N)],
  ['10k `', '`'.repeat(N) + 'x'],
  ['10k (', '[a](' + '('.repeat(N)],
  ['nested lists', Array.from({ length: 500 }, (_, i) => ' '.repeat(2 * i) + '- x').join('\n')],
  ['nested quote fences', '```quote\n'.repeat(2000) + 'x'],
  ['nested spoilers', '```spoiler s\n'.repeat(2000) + 'x'],
  ['many mentions', '@**Iago** @_*support* #**Verona>t** :smile: '.repeat(1000)],
  ['mention openers', '@**'.repeat(N)],
  ['channel openers', '#**'.repeat(N)],
  ['colons', ':'.repeat(N) + 'smile:'],
  ['many links', '[a](https://x.com) '.repeat(2000)],
  ['many bare URLs', 'https://x.com/a '.repeat(2000)],
  ['many linkifier hits', '#1 '.repeat(3000)],
  ['many emoji', '🎉'.repeat(N)],
];

for (const [name, input] of deep) {
  test(`hostile nesting completes safely: ${name}`, (t) => {
    const r = renderMarkdown(input, makeContext());
    t.is(unsafeHtmlReason(r.html), null);
    t.true((r.html.match(/<blockquote>/g) ?? []).length <= MAX_NESTING);
    t.true((r.html.match(/<ul>/g) ?? []).length <= MAX_NESTING);
  });
}

test('blockquote nesting is capped', (t) => {
  const r = renderMarkdown('> '.repeat(100) + 'deep', makeContext());
  const depth = (r.html.match(/<blockquote>/g) ?? []).length;
  t.true(depth > 0 && depth <= MAX_NESTING);
});

test('patterns that backtrack catastrophically elsewhere run on RE2 and finish', (t) => {
  const linkifiers = [
    { id: 7, pattern: '(?P<x>(a+)+)$', urlTemplate: 'https://x.com/{x}' },
    { id: 8, pattern: '(?P<x>(a|a)*b)', urlTemplate: 'https://x.com/{x}' },
    { id: 9, pattern: '(?P<id>\\w{1,1000}\\w{1,1000}\\w{1,1000})!', urlTemplate: 'https://x.com/{id}' },
    { id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/zulip/zulip/issues/{id}' },
  ];
  const letters = 'a'.repeat(4000);
  const r = renderMarkdown(`${letters}? and #1`, makeContext({ linkifiers }));
  t.is(r.linkifierErrors, undefined);
  t.is(r.html, `<p>${letters}? and <a href="https://github.com/zulip/zulip/issues/1">#1</a></p>`);
  // The pattern, which used to take 84 s on 800 letters, matches where it should.
  const hit = renderMarkdown('abc!', makeContext({ linkifiers: [linkifiers[2]!] }));
  t.is(hit.html, '<p><a href="https://x.com/abc">abc!</a></p>');
});

test('invalid linkifiers are skipped and reported', (t) => {
  const linkifiers = [
    { id: 3, pattern: '(', urlTemplate: 'https://x.com/' },
    { id: 4, pattern: '!(?P<id>[0-9]+)', urlTemplate: 'javascript:alert({id})' },
    { id: 5, pattern: '!(?P<id>[0-9]+)', urlTemplate: 'https://x.com/{nope}' },
  ];
  const r = renderMarkdown('!12 (', makeContext({ linkifiers }));
  t.is(r.html, '<p>!12 (</p>');
  t.deepEqual(r.linkifierErrors?.map((e) => e.split(':')[0]), ['linkifier 3', 'linkifier 4', 'linkifier 5']);
  t.false(r.hasLink);
});

test('linkifier values are percent-encoded into the URL', (t) => {
  const linkifiers = [{ id: 1, pattern: 'q:(?P<q>\\S+)', urlTemplate: 'https://s.example/?q={q}' }];
  const r = renderMarkdown('q:a&b"c<d>/é', makeContext({ linkifiers }));
  const href = 'https://s.example/?q=a%26b%22c%3Cd%3E%2F%C3%A9';
  t.is(r.html, `<p><a href="${href}">q:a&amp;b"c&lt;d&gt;/é</a></p>`);
});

test('linkifier work per message is bounded', (t) => {
  const r = renderMarkdown('#1 '.repeat(MAX_MATCHES_PER_MESSAGE * 3), makeContext());
  t.is((r.html.match(/<a /g) ?? []).length, MAX_MATCHES_PER_MESSAGE);
});

const alphabet = [
  '*', '**', '_', '~~', '`', '```', '~~~', '>', '[', ']', '(', ')', '<', '>', '"', "'", '&', '#', '@', ':', '|',
  '\n', ' ', '- ', '1. ', 'a', 'word', 'javascript:', 'http://x.com', '/user_uploads/1/a.png', '@**Iago**',
  '@*support*', '#**Verona>t**', ':smile:', 'quote', 'spoiler', '<script>', 'onerror=', '&#106;', '💩', '\\',
];

test('arbitrary input renders to well-formed, safe HTML', (t) => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...alphabet), { maxLength: 60 }), (parts) => {
      const html = renderMarkdown(parts.join(''), makeContext()).html;
      const reason = unsafeHtmlReason(html);
      if (reason !== null) throw new Error(`${reason}\ninput: ${JSON.stringify(parts.join(''))}`);
    }),
    { numRuns: 1500 },
  );
  t.pass();
});
