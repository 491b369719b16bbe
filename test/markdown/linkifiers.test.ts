// Linkifier validation (patterns and URL templates) and how linkifiers apply to messages.
import test from 'ava';
import { renderMarkdown, validateLinkifierPattern, validateUrlTemplate } from '../../src/markdown/index.js';
import { expandUrlTemplate, MAX_PATTERN_LENGTH } from '../../src/markdown/linkifiers.js';
import { makeContext } from './context.js';

// RE2 runs every pattern in linear time, so shapes a backtracking engine chokes on are fine.
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
  '(?i)abc',
  '(?P<x>(a+)+)$',
  '(a|ab)+c',
  '(?P<id>\\w{1,1000}\\w{1,1000}\\w{1,1000})!',
  'a'.repeat(MAX_PATTERN_LENGTH),
];

for (const pattern of accepted) {
  test(`accepts pattern ${JSON.stringify(pattern.slice(0, 60))}`, (t) => {
    t.is(validateLinkifierPattern(pattern), null);
  });
}

// What RE2 cannot express is refused with the reference's text ("Bad regular expression: " and RE2's error).
const refused: [pattern: string, error: string | RegExp][] = [
  ['(a)\\1', 'Bad regular expression: invalid escape sequence: \\1'],
  ['(?P<n>a)(?P=n)', 'Bad regular expression: invalid perl operator: (?P'],
  ['(?=x)x', 'Bad regular expression: invalid perl operator: (?='],
  ['(?!x)y', 'Bad regular expression: invalid perl operator: (?!'],
  ['(?<=a)b', 'Bad regular expression: invalid perl operator: (?<='],
  ['(?<!a)b', 'Bad regular expression: invalid perl operator: (?<!'],
  ['a{1,5000}', 'Bad regular expression: bad repetition operator: {1,5000}'],
  ['(\\w{1,1000}){1,1000}', 'Bad regular expression: pattern too large - compile failed'],
  ['(', 'Bad regular expression: missing ): ('],
  ['[', 'Bad regular expression: missing ]: ['],
  ['a'.repeat(MAX_PATTERN_LENGTH + 1), /too long/],
  ['', /empty/],
  ['a*', /empty string/],
];

for (const [pattern, error] of refused) {
  test(`refuses pattern ${JSON.stringify(pattern.slice(0, 60))}`, (t) => {
    const result = validateLinkifierPattern(pattern);
    if (typeof error === 'string') t.is(result, error);
    else t.regex(result ?? '', error);
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
  ['https://x.com/{id}', '(?=a)', /Invalid pattern: Bad regular expression/],
];

for (const [template, pattern, error] of templates) {
  test(`url template ${JSON.stringify(template)} with ${JSON.stringify(pattern)}`, (t) => {
    const result = validateUrlTemplate(template, pattern);
    if (error === null) t.is(result, null);
    else t.regex(result ?? '', error);
  });
}

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
