// Table-driven tests: each Markdown construct renders to Zulip's exact HTML.
import test from 'ava';
import { renderMarkdown } from '../../src/markdown/index.js';
import { makeContext, unsafeHtmlReason } from './context.js';

const A = (href: string, text: string): string =>
  `<a href="${href}">${text}</a>`;
const EMOJI = (name: string, code: string): string =>
  `<span aria-label="${name.replace(/_/g, ' ')}" class="emoji emoji-${code}" role="img" title="${name.replace(/_/g, ' ')}">:${name}:</span>`;
const IAGO = '<span class="user-mention" data-user-id="5">@Iago</span>';

const cases: [name: string, input: string, html: string][] = [
  ['empty message', '', ''],
  ['paragraph', 'hello world', '<p>hello world</p>'],
  ['two paragraphs', 'one\n\ntwo', '<p>one</p>\n<p>two</p>'],
  ['newline is a line break', 'test\nbar', '<p>test<br>\nbar</p>'],
  ['strong, em, strikethrough', '**b** *i* ~~s~~', '<p><strong>b</strong> <em>i</em> <del>s</del></p>'],
  ['underscores are literal', '_foo_ __bar__ snake_case_name', '<p>_foo_ __bar__ snake_case_name</p>'],
  ['star in code-like text', 'const char *x = (char *)y', '<p>const char *x = (char *)y</p>'],
  ['raw HTML is escaped', '*<h1>Hello</h1>* & <b>', '<p><em>&lt;h1&gt;Hello&lt;/h1&gt;</em> &amp; &lt;b&gt;</p>'],
  ['quotes in text stay literal', `it's "quoted"`, `<p>it's "quoted"</p>`],
  ['heading', '# Hello world', '<h1>Hello world</h1>'],
  ['heading needs a space', '#Hello', '<p>#Hello</p>'],
  ['setext headings are off', 'Title\n===', '<p>Title<br>\n===</p>'],
  ['horizontal rule', 'a\n\n---\n\nb', '<p>a</p>\n<hr>\n<p>b</p>'],
  ['bullet list', 'Some text:\n* One\n* Two', '<p>Some text:</p>\n<ul>\n<li>One</li>\n<li>Two</li>\n</ul>'],
  ['mixed bullets make one list', '* a\n- b\n+ c', '<ul>\n<li>a</li>\n<li>b</li>\n<li>c</li>\n</ul>'],
  ['nested list', '* outer\n  * inner', '<ul>\n<li>outer<ul>\n<li>inner</li>\n</ul>\n</li>\n</ul>'],
  ['loose list', '* Alpha\n\n* Beta', '<ul>\n<li>\n<p>Alpha</p>\n</li>\n<li>\n<p>Beta</p>\n</li>\n</ul>'],
  ['numbered list', '1. A\n2. B', '<ol>\n<li>A</li>\n<li>B</li>\n</ol>'],
  ['numbered list with start', '3. A\n3. B', '<ol start="3">\n<li>A</li>\n<li>B</li>\n</ol>'],
  ['blockquote', '> Hello\n> World', '<blockquote>\n<p>Hello<br>\nWorld</p>\n</blockquote>'],
  ['nested blockquote', '> a\n>> b', '<blockquote>\n<p>a</p>\n<blockquote>\n<p>b</p>\n</blockquote>\n</blockquote>'],
  ['inline code', 'run `ls <dir> && "x"`', '<p>run <code>ls &lt;dir&gt; &amp;&amp; "x"</code></p>'],
  ['fenced code with language', '```python\nprint("hi")  \n```',
    '<div class="codehilite" data-code-language="Python"><pre><span></span><code><span class="nb">print</span><span class="p">(</span><span class="s2">&quot;hi&quot;</span><span class="p">)</span>\n</code></pre></div>'],
  ['language aliases are canonical', '``` js\nx\n```', '<div class="codehilite" data-code-language="JavaScript"><pre><span></span><code><span class="nx">x</span>\n</code></pre></div>'],
  ['unknown language kept', '```inventedlanguage\nx\n```',
    '<div class="codehilite" data-code-language="inventedlanguage"><pre><span></span><code>x\n</code></pre></div>'],
  ['fenced code without language', 'Hamlet said:\n~~~~\ndef f():\n    x = 1\t\n\n~~~~\nOK.',
    '<p>Hamlet said:</p>\n<div class="codehilite"><pre><span></span><code>def f():\n    x = 1\n</code></pre></div>\n<p>OK.</p>'],
  ['indented code block', '    def foo(): pass', '<div class="codehilite"><pre><span></span><code>def foo(): pass\n</code></pre></div>'],
  ['code escapes markup', '```\n<h1>& \'x\'</h1>\n```', '<div class="codehilite"><pre><span></span><code>&lt;h1&gt;&amp; &#39;x&#39;&lt;/h1&gt;\n</code></pre></div>'],
  ['table', 'a | b\n--|--\n1 | 2',
    '<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>'],
  ['bare URL', 'see https://example.com/a?b=1&c=2.', `<p>see ${A('https://example.com/a?b=1&amp;c=2', 'https://example.com/a?b=1&amp;c=2')}.</p>`],
  ['URL in parentheses', '(http://en.wikipedia.org/wiki/Qt_(framework))',
    `<p>(${A('http://en.wikipedia.org/wiki/Qt_(framework)', 'http://en.wikipedia.org/wiki/Qt_(framework)')})</p>`],
  ['bare domain', 'go to example.com now', `<p>go to ${A('http://example.com', 'example.com')} now</p>`],
  ['file names are not links', 'edit views.py and README.md', '<p>edit views.py and README.md</p>'],
  ['email address', 'mail a@b.com', `<p>mail ${A('mailto:a@b.com', 'a@b.com')}</p>`],
  ['named link', '[Zulip](https://zulip.com/)', `<p>${A('https://zulip.com/', 'Zulip')}</p>`],
  ['link with empty text shows the URL', '[  ](https://github.com)', `<p>${A('https://github.com', 'https://github.com')}</p>`],
  ['link inside strong', '**[x](https://x.org)**', `<p><strong>${A('https://x.org', 'x')}</strong></p>`],
  ['strikethrough around a URL', '~~test http://xx.xx link~~', `<p><del>test ${A('http://xx.xx', 'http://xx.xx')} link</del></p>`],
  ['relative upload link', '[file.pdf](/user_uploads/2/ab/file.pdf)', `<p>${A('/user_uploads/2/ab/file.pdf', 'file.pdf')}</p>`],
  ['realm narrow link is relative', '[here](http://127.0.0.1:9991/#narrow/channel/9-Verona)', '<p><a href="#narrow/channel/9-Verona">here</a></p>'],
  ['realm upload link is relative', 'http://127.0.0.1:9991/user_uploads/2/ab/notes.txt',
    `<p>${A('/user_uploads/2/ab/notes.txt', 'http://127.0.0.1:9991/user_uploads/2/ab/notes.txt')}</p>`],
  ['reference links are off', 'Hello [world]\n\n[world]: https://x.com', `<p>Hello [world]</p>\n<p>[world]: ${A('https://x.com', 'https://x.com')}</p>`],
  ['no image syntax', '![cat](https://example.com/cat.png)', `<p>!${A('https://example.com/cat.png', 'cat')}</p>`],
  ['uploaded image preview', '[cat.png](/user_uploads/2/ab/cat.png)',
    `<p>${A('/user_uploads/2/ab/cat.png', 'cat.png')}</p>\n<div class="message_inline_image"><a href="/user_uploads/2/ab/cat.png" title="cat.png"><img src="/user_uploads/2/ab/cat.png"></a></div>`],
  // Like the reference: the link's text (the absolute URL) differs from its relative href, so it is kept and titles the preview.
  ['absolute uploaded image URL keeps its link', 'http://127.0.0.1:9991/user_uploads/2/ab/dog.jpg',
    `<p>${A('/user_uploads/2/ab/dog.jpg', 'http://127.0.0.1:9991/user_uploads/2/ab/dog.jpg')}</p>\n<div class="message_inline_image"><a href="/user_uploads/2/ab/dog.jpg" title="http://127.0.0.1:9991/user_uploads/2/ab/dog.jpg"><img src="/user_uploads/2/ab/dog.jpg"></a></div>`],
  ['uploaded image preview in a tight list', '* Look: [a](/user_uploads/2/a.png)\n* b',
    `<ul>\n<li>Look: ${A('/user_uploads/2/a.png', 'a')}<div class="message_inline_image"><a href="/user_uploads/2/a.png" title="a"><img src="/user_uploads/2/a.png"></a></div></li>\n<li>b</li>\n</ul>`],
  ['no uploaded image preview in a quote', '> [a](/user_uploads/2/a.png)', `<blockquote>\n<p>${A('/user_uploads/2/a.png', 'a')}</p>\n</blockquote>`],
  ['user mention', 'hi @**Iago**', `<p>hi ${IAGO}</p>`],
  ['user mention by id', '@**Iago|5** @**|5**', `<p>${IAGO} ${IAGO}</p>`],
  ['mention with wrong name for id', '@**King Hamlet|5**', '<p>@<strong>King Hamlet|5</strong></p>'],
  ['silent user mention', '@_**Iago**', '<p><span class="user-mention silent" data-user-id="5">Iago</span></p>'],
  ['unknown user mention is not a mention', 'Hey @**Nonexistent User**', '<p>Hey @<strong>Nonexistent User</strong></p>'],
  ['mention needs a boundary before it', 'foo@**Iago**', '<p>foo@<strong>Iago</strong></p>'],
  ['mention after a parenthesis', '(@**Iago**)', `<p>(${IAGO})</p>`],
  ['stream wildcards', '@**all** @**everyone** @**channel** @**stream**',
    '<p><span class="user-mention channel-wildcard-mention" data-user-id="*">@all</span> <span class="user-mention channel-wildcard-mention" data-user-id="*">@everyone</span> <span class="user-mention channel-wildcard-mention" data-user-id="*">@channel</span> <span class="user-mention channel-wildcard-mention" data-user-id="*">@stream</span></p>'],
  ['silent wildcard', '@_**all**', '<p><span class="user-mention channel-wildcard-mention silent" data-user-id="*">all</span></p>'],
  ['topic wildcard', '@**topic**', '<p><span class="topic-mention">@topic</span></p>'],
  ['group mention', '@*support*', '<p><span class="user-group-mention" data-user-group-id="3">@support</span></p>'],
  ['silent group mention', '@_*support*', '<p><span class="user-group-mention silent" data-user-group-id="3">support</span></p>'],
  ['unknown group', '@*nogroup*', '<p>@<em>nogroup</em></p>'],
  ['mentions in code are text', '`@**Iago**` and\n```\n@**Iago** #**Verona** :smile:\n```',
    '<p><code>@**Iago**</code> and</p>\n<div class="codehilite"><pre><span></span><code>@**Iago** #**Verona** :smile:\n</code></pre></div>'],
  ['channel link', '#**Verona**', '<p><a class="stream" data-stream-id="9" href="/#narrow/channel/9-Verona">#Verona</a></p>'],
  ['channel link with a space', '#**core team**', '<p><a class="stream" data-stream-id="10" href="/#narrow/channel/10-core-team">#core team</a></p>'],
  ['topic link', '#**Verona>hello world**',
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/hello.20world">#Verona &gt; hello world</a></p>'],
  ['topic link encoding', '#**core team>a.b (c)/é**',
    '<p><a class="stream-topic" data-stream-id="10" href="/#narrow/channel/10-core-team/topic/a.2Eb.20.28c.29.2F.C3.A9">#core team &gt; a.b (c)/é</a></p>'],
  ['empty topic link', '#**Verona>**',
    '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/">#Verona &gt; <em>general chat</em></a></p>'],
  ['unknown channel', '#**nowhere**', '<p>#<strong>nowhere</strong></p>'],
  ['emoji by name', ':smile: :+1: :thumbs_up: :octopus:',
    `<p>${EMOJI('smile', '1f642')} ${EMOJI('+1', '1f44d')} ${EMOJI('thumbs_up', '1f44d')} ${EMOJI('octopus', '1f419')}</p>`],
  ['emoji without spaces', ':cat:hello:dog::rabbit:', `<p>${EMOJI('cat', '1f408')}hello${EMOJI('dog', '1f415')}${EMOJI('rabbit', '1f407')}</p>`],
  ['emoji in strong', '**:smile:**', `<p><strong>${EMOJI('smile', '1f642')}</strong></p>`],
  ['unknown emoji', ':fakeemoji: x::y:: :)', '<p>:fakeemoji: x::y:: :)</p>'],
  ['realm emoji', ':zulip:', '<p><img alt=":zulip:" class="emoji" src="/user_avatars/2/emoji/images/1.png" title="zulip"></p>'],
  ['unicode emoji', 'Merry Christmas!!🎄 💩💩', `<p>Merry Christmas!!${EMOJI('holiday_tree', '1f384')} ${EMOJI('poop', '1f4a9')}${EMOJI('poop', '1f4a9')}</p>`],
  ['unicode emoji sequences', '🤷‍♀️ #️⃣ ⬆️', `<p>${EMOJI('woman_shrugging', '1f937-200d-2640')} ${EMOJI('hash', '0023-20e3')} ${EMOJI('up', '2b06')}</p>`],
  ['unknown emoji sequence left alone', 'lime 🍋‍🟩 and ™', '<p>lime 🍋‍🟩 and ™</p>'],
  ['spoiler', '```spoiler Header\nbody\n```\noutside',
    '<div class="spoiler-block"><div class="spoiler-header">\n<p>Header</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>body</p>\n</div></div>\n<p>outside</p>'],
  ['spoiler without header', '```spoiler\nbody\n```',
    '<div class="spoiler-block"><div class="spoiler-header">\n</div><div class="spoiler-content" aria-hidden="true">\n<p>body</p>\n</div></div>'],
  ['spoiler header markdown', '```spoiler [Header](https://example.com) :smile:\ncontent\n```',
    `<div class="spoiler-block"><div class="spoiler-header">\n<p>${A('https://example.com', 'Header')} ${EMOJI('smile', '1f642')}</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<p>content</p>\n</div></div>`],
  ['quote fence', 'Hamlet said:\n~~~ quote\nTo be or **not** to be.\n\nThat is the question\n~~~',
    '<p>Hamlet said:</p>\n<blockquote>\n<p>To be or <strong>not</strong> to be.</p>\n<p>That is the question</p>\n</blockquote>'],
  ['spoiler inside a quote fence with code', '~~~quote\n```spoiler h\n~~~\ncode\n~~~\n```\nafter\n~~~\nout',
    '<blockquote>\n<div class="spoiler-block"><div class="spoiler-header">\n<p>h</p>\n</div><div class="spoiler-content" aria-hidden="true">\n<div class="codehilite"><pre><span></span><code>code\n</code></pre></div>\n</div></div>\n<p>after</p>\n</blockquote>\n<p>out</p>'],
  ['linkifier', 'fixes #123 and ZUL-42', `<p>fixes ${A('https://github.com/zulip/zulip/issues/123', '#123')} and ${A('https://jira.example.com/browse/ZUL-42', 'ZUL-42')}</p>`],
  ['linkifier needs boundaries', 'x#1 #2a', '<p>x#1 #2a</p>'],
  ['linkifier skips link text and code', '[see #5](https://x.org) `#6`', `<p>${A('https://x.org', 'see #5')} <code>#6</code></p>`],
];

for (const [name, input, html] of cases) {
  test(`renders ${name}`, (t) => {
    const result = renderMarkdown(input, makeContext());
    t.is(result.html, html);
    t.is(unsafeHtmlReason(result.html), null);
  });
}

interface Flags {
  users?: number[];
  groups?: number[];
  stream?: boolean;
  topic?: boolean;
  link?: boolean;
  image?: boolean;
  attachment?: boolean;
}

const flagCases: [input: string, flags: Flags][] = [
  ['plain text', {}],
  ['@**Iago** and @**King Hamlet**', { users: [5, 6] }],
  ['@_**Iago** is silent', {}],
  ['@**Iago|5** twice @**Iago**', { users: [5] }],
  ['@*support* @_*hax"or<b>*', { groups: [3] }],
  ['@**all**', { stream: true }],
  ['@**everyone** @**channel** @**stream**', { stream: true }],
  ['@_**all** @_**topic**', {}],
  ['@**topic**', { topic: true }],
  ['`@**Iago**` @**Nobody**', {}],
  ['```\n@**Iago** @**all**\n```', {}],
  ['https://example.com', { link: true }],
  ['#**Verona** is not a link flag', {}],
  ['#42', { link: true }],
  ['[a](/user_uploads/2/ab/a.txt)', { link: true, attachment: true }],
  ['[a](/user_uploads/2/ab/a.PNG)', { link: true, attachment: true, image: true }],
  ['https://example.com/cat.png', { link: true }],
];

for (const [input, f] of flagCases) {
  test(`flags for ${JSON.stringify(input)}`, (t) => {
    const r = renderMarkdown(input, makeContext());
    t.deepEqual([...r.mentionedUserIds].sort(), f.users ?? []);
    t.deepEqual([...r.mentionedGroupIds].sort(), f.groups ?? []);
    t.deepEqual(r.wildcards, { stream: f.stream ?? false, topic: f.topic ?? false });
    t.is(r.hasLink, f.link ?? false);
    t.is(r.hasImage, f.image ?? false);
    t.is(r.hasAttachment, f.attachment ?? false);
    t.is(r.linkifierErrors, undefined);
  });
}

test('empty topic uses the realm display name', (t) => {
  const r = renderMarkdown('#**Verona>**', makeContext({ emptyTopicDisplayName: 'general <chat>' }));
  t.is(r.html, '<p><a class="stream-topic" data-stream-id="9" href="/#narrow/channel/9-Verona/topic/">#Verona &gt; <em>general &lt;chat&gt;</em></a></p>');
});

test('each uploaded image is previewed once', (t) => {
  const r = renderMarkdown('[a](/user_uploads/1/x.png) [b](/user_uploads/1/x.png)', makeContext());
  t.is(r.html.split('message_inline_image').length - 1, 1);
});
