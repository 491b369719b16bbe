// Linkifier validation (patterns and URL templates) and how linkifiers apply to messages.
import test from 'ava';
import { renderMarkdown, validateLinkifierPattern, validateUrlTemplate } from '../../src/markdown/index.js';
import { expandUrlTemplate, MAX_PATTERN_LENGTH, toJsPattern } from '../../src/markdown/linkifiers.js';
import { makeContext } from './context.js';

const accepted = [
  '#(?P<id>[0-9]+)',
  '(?P<org>[a-zA-Z0-9_-]+)/(?P<repo>[a-zA-Z0-9_.-]+)#(?P<id>[0-9]+)',
  'RT #(?P<id>[0-9]+)',
  'CVE-(?P<year>\\d{4})-(?P<num>\\d{4,})',
  '(?P<id>[A-Z]+-[0-9]+)',
  '(?P<host>[a-z0-9]+(?:-[a-z0-9]+)*)\\.example\\.com',
  'T(?P<id>\\d+)(?:#(?P<comment>\\d+))?',
  '\\#(?P<id>\\d+)',
  '(?:bug|issue) (?P<id>\\d+)',
  '[a-z]+\\d+[a-z]+',
  '(?=x)x(?P<id>\\d+)',
  'a'.repeat(MAX_PATTERN_LENGTH),
];

for (const pattern of accepted) {
  test(`accepts pattern ${JSON.stringify(pattern.slice(0, 60))}`, (t) => {
    t.is(validateLinkifierPattern(pattern), null);
  });
}

const refused: [pattern: string, error: RegExp][] = [
  ['(a+)+', /nested quantifiers/],
  ['(a*)*', /nested quantifiers/],
  ['(?P<x>(a+)+)$', /nested quantifiers/],
  ['(\\d+)*', /nested quantifiers/],
  ['(\\w+\\s?)+', /nested quantifiers/],
  ['(?:-[a-z-]+)*', /nested quantifiers/],
  ['(.*a){10}', /nested quantifiers/],
  ['(a|a)*', /overlapping alternatives/],
  ['(a|ab)+', /overlapping alternatives/],
  ['(?:\\d|\\w)+', /overlapping alternatives/],
  ['(x|y|)+', /non-empty branches/],
  ['\\d+\\d+', /adjacent repetitions/],
  ['.*x.*', /adjacent repetitions/],
  ['(?P<a>\\w+)\\s*(?P<b>\\w+)', /adjacent repetitions/],
  ['^(([a-z])+.)+[A-Z]([a-z])+$', /nested quantifiers|adjacent repetitions/],
  ['(a)\\1', /backreferences/],
  ['(?<n>a)\\k<n>', /backreferences/],
  ['(?P<n>a)(?P=n)', /Backreferences/],
  ['(?<=a)b', /lookbehind/],
  ['(?<!a)b', /lookbehind/],
  ['a{1,5000}', /repetition counts/],
  ['a'.repeat(MAX_PATTERN_LENGTH + 1), /too long/],
  ['', /empty/],
  ['a*', /empty string/],
  ['(', /Invalid regular expression/],
  ['(?i)abc', /Invalid regular expression/],
  ['[', /Invalid regular expression/],
];

for (const [pattern, error] of refused) {
  test(`refuses pattern ${JSON.stringify(pattern.slice(0, 60))}`, (t) => {
    const result = validateLinkifierPattern(pattern);
    t.not(result, null);
    t.regex(result!, error);
  });
}

const templates: [template: string, pattern: string, error: RegExp | null][] = [
  ['https://github.com/zulip/zulip/issues/{id}', '#(?P<id>[0-9]+)', null],
  ['https://github.com/{org}/{repo}/pull/{id}', '(?P<org>[a-z]+)/(?P<repo>[a-z]+)#(?P<id>[0-9]+)', null],
  ['/relative/{id}', '#(?P<id>[0-9]+)', null],
  ['mailto:{id}@example.com', '#(?P<id>[0-9]+)', null],
  ['https://example.com/%7E/{id}', '#(?P<id>[0-9]+)', null],
  ['https://x.com/{id}/{nope}', '#(?P<id>[0-9]+)', /"nope".*not present/],
  ['https://x.com/{+id}', '#(?P<id>[0-9]+)', /simple \{variable\}/],
  ['https://x.com/{?id}', '#(?P<id>[0-9]+)', /simple \{variable\}/],
  ['https://x.com/{id,x}', '#(?P<id>[0-9]+)', /Invalid variable/],
  ['https://x.com/{id:3}', '#(?P<id>[0-9]+)', /Invalid variable/],
  ['https://x.com/{id', '#(?P<id>[0-9]+)', /Unclosed/],
  ['https://x.com/id}', '#(?P<id>[0-9]+)', /Unmatched/],
  ['https://x.com/a b/{id}', '#(?P<id>[0-9]+)', /not allowed/],
  ['https://x.com/"{id}', '#(?P<id>[0-9]+)', /not allowed/],
  ['https://x.com/%zz{id}', '#(?P<id>[0-9]+)', /percent-encoding/],
  ['javascript:alert({id})', '#(?P<id>[0-9]+)', /must start with/],
  ['{id}', '#(?P<id>[0-9]+)', /must start with/],
  ['https://{id}.x.com', '#(?P<id>[0-9]+)', /must start with/],
  ['', '#(?P<id>[0-9]+)', /empty/],
  ['https://x.com/{id}', '(a+)+', /Invalid pattern/],
];

for (const [template, pattern, error] of templates) {
  test(`url template ${JSON.stringify(template)} with ${JSON.stringify(pattern)}`, (t) => {
    const result = validateUrlTemplate(template, pattern);
    if (error === null) t.is(result, null);
    else t.regex(result ?? '', error);
  });
}

test('Python named groups and escapes become JS syntax', (t) => {
  t.deepEqual(toJsPattern('(?P<id>\\d+)\\#[\\-a](?P<x>y)'), { js: '(?<id>\\d+)#[\\-a](?<x>y)' });
  t.deepEqual(toJsPattern('[(?P<x>]'), { js: '[(?P<x>]' });
});

test('URL template values are percent-encoded (RFC 6570 simple expansion)', (t) => {
  t.is(expandUrlTemplate('https://x.com/{a}/{b}', { a: 'a b/c?d&e', b: "!*'()é" }), 'https://x.com/a%20b%2Fc%3Fd%26e/%21%2A%27%28%29%C3%A9');
  t.is(expandUrlTemplate('https://x.com/{missing}', {}), 'https://x.com/');
});

const link = (href: string, text: string): string =>
  `<a href="${href}">${text}</a>`;

test('the leftmost match wins, and ties go to the earlier linkifier', (t) => {
  const linkifiers = [
    { id: 1, pattern: 'ZUL-(?P<n>[0-9]+)', urlTemplate: 'https://first.example/{n}' },
    { id: 2, pattern: '(?P<p>[A-Z]+)-(?P<n>[0-9]+)', urlTemplate: 'https://second.example/{p}/{n}' },
  ];
  const r = renderMarkdown('AB-1 ZUL-2', makeContext({ linkifiers }));
  t.is(r.html, `<p>${link('https://second.example/AB/1', 'AB-1')} ${link('https://first.example/2', 'ZUL-2')}</p>`);
});

test('linkifiers apply inside emphasis and list items but not inside links', (t) => {
  const r = renderMarkdown('* **#12**\n* https://x.org/#13', makeContext());
  t.is(r.html, `<ul>\n<li><strong>${link('https://github.com/zulip/zulip/issues/12', '#12')}</strong></li>\n<li>${link('https://x.org/#13', 'https://x.org/#13')}</li>\n</ul>`);
});

test('a linkifier written with \\# in Python style still works', (t) => {
  const linkifiers = [{ id: 1, pattern: '\\#(?P<id>\\d+)', urlTemplate: 'https://t.example/{id}' }];
  t.is(renderMarkdown('see #7', makeContext({ linkifiers })).html, `<p>see ${link('https://t.example/7', '#7')}</p>`);
});
