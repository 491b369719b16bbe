// The reference's rendering of each feature of issue #18, in cases of our own (the corpus only measures).
import test from 'ava';
import katex from 'katex';
import { defaultEmojiLookup } from '../../src/markdown/emoji.js';
import { renderMarkdown, type RenderContext } from '../../src/markdown/index.js';
import { parseTimestamp } from '../../src/markdown/timestamps.js';
import { makeContext, unsafeHtmlReason } from './context.js';

const A = (href: string, text = href): string => `<a href="${href}">${text}</a>`;
const inline = (tex: string): string => katex.renderToString(tex);
const display = (tex: string): string => katex.renderToString(tex, { displayMode: true });
const EMOJI = (name: string, code: string): string =>
  `<span aria-label="${name}" class="emoji emoji-${code}" role="img" title="${name}">:${name}:</span>`;
const CODE = (lang: string, body: string): string =>
  `<div class="codehilite"${lang ? ` data-code-language="${lang}"` : ''}><pre><span></span><code>${body}</code></pre></div>`;
const S = (cls: string, text: string): string => `<span class="${cls}">${text}</span>`;

const cases: [feature: string, input: string, html: string, ctx?: Partial<RenderContext>][] = [
  // Links: no rel/target/title; the reference's bare-link rules.
  ['external links carry only href', '[docs](https://docs.example.org/)', `<p>${A('https://docs.example.org/', 'docs')}</p>`],
  ['trailing punctuation stays outside', 'see https://example.org/a?b=1!', `<p>see ${A('https://example.org/a?b=1')}!</p>`],
  ['nested parentheses stay inside', 'see https://example.org/a_(b_(c))_d, ok', `<p>see ${A('https://example.org/a_(b_(c))_d')}, ok</p>`],
  ['parenthesised bare domain', '(www.example.net/path)!', `<p>(${A('http://www.example.net/path', 'www.example.net/path')})!</p>`],
  ['angle-bracketed address keeps its brackets', 'write to <ops@example.com> today', `<p>write to &lt;${A('mailto:ops@example.com', 'ops@example.com')}&gt; today</p>`],
  ['an address with a path is text', 'ops@example.com/list is not mail', '<p>ops@example.com/list is not mail</p>'],
  ['a javascript: prefix leaves the domain a link', 'javascript:example.org', `<p>javascript:${A('http://example.org', 'example.org')}</p>`],
  ['percent-encodings are kept in the text', 'http://x.org/a%20b%2Fc', `<p>${A('http://x.org/a%20b%2Fc')}</p>`],
  ['file-extension domains are text', 'run deploy.py and notes.md', '<p>run deploy.py and notes.md</p>'],
  ['a link must start at a boundary', 'abc.example.org=x=https://example.org', '<p>abc.example.org=x=https://example.org</p>'],
  ['tel: and sms: links', 'call [me](tel:+15550100) or [text](sms:+15550100)', `<p>call ${A('tel:+15550100', 'me')} or ${A('sms:+15550100', 'text')}</p>`],
  ['scheme-less named links get http://', '[site](example.org/x)', `<p>${A('http://example.org/x', 'site')}</p>`],
  ['address links get mailto:', '[mail](someone@example.org)', `<p>${A('mailto:someone@example.org', 'mail')}</p>`],
  // Math.
  ['inline TeX', 'price $$x^2$$ now', `<p>price ${inline('x^2')} now</p>`],
  ['TeX KaTeX refuses', '$$\\frac{1}{$$', '<p><span class="tex-error">$$\\frac{1}{$$</span></p>'],
  ['dollar runs are not TeX', 'cost $$$ and $$5', '<p>cost $$$ and $$5</p>'],
  ['TeX does not cross a line', '$$a\nb$$', '<p>$$a<br>\nb$$</p>'],
  ['a math block renders each paragraph', '```math\na+b\n\nc\n```', `<p>${display('a+b')}</p>\n<p>${display('c')}</p>`],
  ['a math block error', '```math\n\\bad{x}\n```', '<p><span class="tex-error">\\bad{x}</span></p>'],
  ['math blocks hold no Markdown', '~~~math\n\\text{*a*}\n~~~', `<p>${display('\\text{*a*}')}</p>`],
  // Code highlighting.
  ['Python highlighting', '```py\nclass A:\n    n = 0x1f  # hex\n```',
    CODE('Python', `${S('k', 'class')} ${S('nc', 'A')}${S('p', ':')}\n    ${S('n', 'n')} ${S('o', '=')} ${S('mh', '0x1f')}  ${S('c1', '# hex')}\n`)],
  ['PHP highlights without <?php', "```php\n$a = 'x';\n```",
    CODE('PHP', `${S('nv', '$a')} ${S('o', '=')} ${S('s1', '&#39;x&#39;')}${S('p', ';')}\n`)],
  ['compound language names', '```html+php\n$a\n```', CODE('HTML+PHP', `${S('nv', '$a')}\n`)],
  ['a shebang line names the language', '```\n#!/usr/bin/env python\nlen\n```', CODE('', `${S('ch', '#!/usr/bin/env python')}\n${S('nb', 'len')}\n`)],
  ['unknown languages stay plain', '```klingon\nqapla\n```', CODE('klingon', 'qapla\n')],
  // Timestamps.
  ['ISO timestamp with an offset', '<time:2024-03-01T09:15:00+01:00>', '<p><time datetime="2024-03-01T08:15:00Z">2024-03-01T09:15:00+01:00</time></p>'],
  ['spelled-out timestamp with a zone', 'at <time:March 3rd 2024 4:45 pm PST>.', '<p>at <time datetime="2024-03-04T00:45:00Z">March 3rd 2024 4:45 pm PST</time>.</p>'],
  ['UNIX timestamp', '<time:1700000000>', '<p><time datetime="2023-11-14T22:13:20Z">1700000000</time></p>'],
  ['timestamp error', '<time:next tuesday-ish>', '<p><span class="timestamp-error">Invalid time format: next tuesday-ish</span></p>'],
  ['timestamp error ends at the first >', '<time:a<b>>', '<p><span class="timestamp-error">Invalid time format: a&lt;b</span>&gt;</p>'],
  // Lists.
  ['nested ordered list keeps its start', '1. one\n  4. four\n  5. five\n2. two',
    '<ol>\n<li>one<ol start="4">\n<li>four</li>\n<li>five</li>\n</ol>\n</li>\n<li>two</li>\n</ol>'],
  ['bullets of all kinds make one list', '* x\n+ y\n- z', '<ul>\n<li>x</li>\n<li>y</li>\n<li>z</li>\n</ul>'],
  ['an ordered list may follow a line of text', 'intro\n3. three\n4. four', '<p>intro</p>\n<ol start="3">\n<li>three</li>\n<li>four</li>\n</ol>'],
  ['three levels at two spaces each', '- a\n  - b\n    - c\n- d',
    '<ul>\n<li>a<ul>\n<li>b<ul>\n<li>c</li>\n</ul>\n</li>\n</ul>\n</li>\n<li>d</li>\n</ul>'],
  ['mixed nesting of kinds', '1. a\n  * b\n  * c\n2. d', '<ol>\n<li>a<ul>\n<li>b</li>\n<li>c</li>\n</ul>\n</li>\n<li>d</li>\n</ol>'],
  // Emphasis.
  ['triple stars are strong around em', '***both***', '<p><strong><em>both</em></strong></p>'],
  ['no bold across a line break', '**no\nbold**', '<p>**no<br>\nbold**</p>'],
  ['strikethrough with inner spaces, not with three tildes', '~~ spaced ~~ and ~~~no~~~', '<p><del> spaced </del> and ~~~no~~~</p>'],
  ['emphasis may not end in a space', '*not *', '<p>*not *</p>'],
  // Mentions and channel links.
  ['mentions in a > quote are silent', '> @**Iago** @*support* @**all**',
    '<blockquote>\n<p><span class="user-mention silent" data-user-id="5">Iago</span> <span class="user-group-mention silent" data-user-group-id="3">support</span> <span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>\n</blockquote>'],
  ['mentions in a quote block are silent', '```quote\n@**King Hamlet**\n```',
    '<blockquote>\n<p><span class="user-mention silent" data-user-id="6">King Hamlet</span></p>\n</blockquote>'],
  ['deactivated users and groups are mentioned silently; role groups by display name', '@**Former Colleague** @*old team* @_*role:administrators*',
    '<p><span class="user-mention silent" data-user-id="8">Former Colleague</span> <span class="user-group-mention silent" data-user-group-id="5">old team</span> <span class="user-group-mention silent" data-user-group-id="6">Administrators</span></p>'],
  ['message link', '#**Verona>lunch@123**', '<p><a class="message-link" href="/#narrow/channel/9-Verona/topic/lunch/near/123">#Verona &gt; lunch @ 💬</a></p>'],
  ['topic link with its permalink', '#**Verona>permalinked**',
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/permalinked/with/42">#Verona &gt; permalinked</a></p>'],
  // Emoji.
  ['emoticons for authors who want them', ':) and <3 ;)', `<p>${EMOJI('smile', '1f642')} and ${EMOJI('heart', '2764')} ${EMOJI('wink', '1f609')}</p>`, { translateEmoticons: true }],
  ['emoticons need boundaries and stay out of code', 'a:) `:)`', '<p>a:) <code>:)</code></p>', { translateEmoticons: true }],
  ['emoticons stay text by default', ':) <3', '<p>:) &lt;3</p>'],
  [':zulip: is built in', ':zulip:', '<p><img alt=":zulip:" class="emoji" src="/static/generated/emoji/images/emoji/unicode/zulip.png" title="zulip"></p>', { emoji: defaultEmojiLookup }],
  // Quotes and inline code.
  ['a lone > is text', '>', '<p>&gt;</p>'],
  ['empty quote lines are text', '>\n>', '<p>&gt;<br>\n&gt;</p>'],
  ['inline code keeps its spaces', '` a `  `` b ``', '<p><code> a </code>  <code> b </code></p>'],
];

for (const [feature, input, html, ctx] of cases) {
  test(`fidelity: ${feature}`, (t) => {
    const r = renderMarkdown(input, makeContext(ctx));
    t.is(r.html, html);
    t.is(unsafeHtmlReason(r.html), null);
  });
}

test('silent and quoted mentions notify nobody; loud ones do', (t) => {
  const quoted = renderMarkdown('> @**Iago** @*support* @**all** @**topic**\n\n```quote\n@**King Hamlet**\n```', makeContext());
  t.deepEqual([...quoted.mentionedUserIds, ...quoted.mentionedGroupIds], []);
  t.deepEqual(quoted.wildcards, { stream: false, topic: false });
  const inactive = renderMarkdown('@**Former Colleague** @*old team*', makeContext());
  t.deepEqual([...inactive.mentionedUserIds, ...inactive.mentionedGroupIds], []);
  const loud = renderMarkdown('@**Iago** then\n> @**King Hamlet**', makeContext());
  t.deepEqual([...loud.mentionedUserIds], [5]);
});

test('channel names in links match exactly', (t) => {
  t.is(renderMarkdown('#**verona**', makeContext()).html, '<p>#<strong>verona</strong></p>');
  t.regex(renderMarkdown('#**Verona**', makeContext()).html, /class="stream"/);
});

test('a topic link without a known latest message has no permalink', (t) => {
  t.is(renderMarkdown('#**Verona>other**', makeContext()).html,
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/other">#Verona &gt; other</a></p>');
});

test('timestamps default missing parts to today, midnight, UTC', (t) => {
  const now = new Date(Date.UTC(2030, 4, 6, 12));
  t.is(parseTimestamp('10:30 pm', now), '2030-05-06T22:30:00Z');
  t.is(parseTimestamp('Mon, 05 Jun 2017 22:30:00 +0000', now), '2017-06-05T22:30:00Z');
  t.is(parseTimestamp('1496701800.25', now), '2017-06-05T22:30:00.250000Z');
  t.is(parseTimestamp('2017-02-30', now), null);
  t.is(parseTimestamp('1e400', now), null);
});

test('KaTeX output stays inert: no links or scripts from TeX', (t) => {
  for (const tex of ['\\href{javascript:alert(1)}{x}', '\\url{javascript:alert(1)}', '\\htmlClass{x}{y}', '<script>alert(1)</script>']) {
    const r = renderMarkdown(`$$${tex}$$\n\n\`\`\`math\n${tex}\n\`\`\``, makeContext());
    t.is(unsafeHtmlReason(r.html), null, tex);
    t.false(/<a[\s>]|href=|<script/i.test(r.html), tex);
  }
});
