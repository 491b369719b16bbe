// Inputs of a given length in the shapes that make renderers slow: whitespace runs, long lines, many backticks,
// many mentions, deep quotes and lists, unclosed delimiters, math, code. Shared by the bench `render` scenario
// and the renderer's linear-cost test.

export interface Shape {
  name: string;
  /** An input of about `n` characters. */
  make(n: number): string;
  translateEmoticons?: boolean;
}

/** `unit` repeated to `n` characters (cut to length). */
const fill = (unit: string, n: number): string => unit.repeat(Math.ceil(n / unit.length)).slice(0, n);

export const SHAPES: Shape[] = [
  { name: 'spaces', make: (n) => fill(' ', n) },
  { name: 'spaces then a word', make: (n) => 'a' + fill(' ', n - 2) + 'b' },
  { name: 'newlines', make: (n) => fill('\n', n) },
  { name: 'space-newline runs', make: (n) => fill(' \n', n) },
  { name: 'trailing spaces in code', make: (n) => '```\n' + fill('x' + ' '.repeat(50) + '\n', n) + '```' },
  { name: 'whitespace line in code', make: (n) => '```\n' + fill(' ', n) + 'x\n```' },
  { name: 'tabs', make: (n) => fill('\t', n) },
  { name: 'one long word', make: (n) => fill('a', n) },
  { name: 'words', make: (n) => fill('word ', n) },
  { name: 'long URL', make: (n) => 'https://example.com/' + fill('a', n) },
  { name: 'URL of open parens', make: (n) => 'https://example.com/' + fill('(', n) },
  { name: 'commas in one word', make: (n) => fill(',a.co/(', n) },
  { name: 'domain-like dots', make: (n) => fill('a.b.', n) },
  { name: 'trailing punctuation', make: (n) => 'a.com' + fill('!', n) },
  { name: 'backticks', make: (n) => fill('`', n) },
  { name: 'backtick pairs', make: (n) => fill('` ', n) },
  { name: 'growing backtick runs', make: (n) => { let s = ''; for (let k = 1; s.length < n; k++) s += '`'.repeat(k) + 'a'; return s; } },
  { name: 'stars', make: (n) => fill('*', n) },
  { name: 'unclosed strong', make: (n) => fill('**a ', n) },
  { name: 'unclosed emphasis', make: (n) => fill('*a ', n) },
  { name: 'tildes', make: (n) => fill('~~a ', n) },
  { name: 'underscores', make: (n) => fill('_', n) },
  { name: 'mentions', make: (n) => fill('@**Iago** ', n) },
  { name: 'unknown mentions', make: (n) => fill('@**nobody here** ', n) },
  { name: 'mention openers', make: (n) => fill('@**', n) },
  { name: 'channel links', make: (n) => fill('#**Verona>topic@1** ', n) },
  { name: 'emoji names', make: (n) => fill(':smile: ', n) },
  { name: 'colons', make: (n) => fill(':', n) },
  { name: 'emoticons', make: (n) => fill(':) ', n), translateEmoticons: true },
  { name: 'timestamps', make: (n) => fill('<time:1700000000> ', n) },
  { name: 'timestamp openers', make: (n) => fill('<time:', n) },
  { name: 'inline math', make: (n) => fill('$$x^2$$ ', n) },
  { name: 'dollars', make: (n) => fill('$', n) },
  { name: 'math block', make: (n) => '```math\n' + fill('x^2\n\n', n) + '```' },
  { name: 'nested quotes', make: (n) => fill('> ', n) + 'x' },
  { name: 'quote lines', make: (n) => fill('> a\n', n) },
  { name: 'empty quote lines', make: (n) => fill('>\n', n) + 'x' },
  { name: 'nested lists', make: (n) => { let s = ''; for (let k = 0; s.length < n; k++) s += ' '.repeat(2 * (k % 40)) + '- x\n'; return s; } },
  { name: 'ordered items', make: (n) => fill('1. a\n  2. b\n', n) },
  { name: 'list continuation lines', make: (n) => '* a\n' + fill('  b\n', n) },
  { name: 'fences', make: (n) => fill('```\n', n) },
  { name: 'quote fences', make: (n) => fill('```quote\n', n) },
  { name: 'python code', make: (n) => '```python\n' + fill('def f(x): return "s" + x  # c\n', n) + '```' },
  { name: 'unclosed python string', make: (n) => "```python\n'''" + fill('a"', n) + '\n```' },
  { name: 'php code', make: (n) => '```php\n' + fill('$a = f($b, \'c\');\n', n) + '```' },
  { name: 'links', make: (n) => fill('[a](https://x.com/y) ', n) },
  { name: 'brackets', make: (n) => fill('[', n) },
  { name: 'table', make: (n) => 'a|b\n-|-\n' + fill('1|2\n', n) },
  { name: 'headings', make: (n) => fill('# h\n', n) },
  { name: 'html', make: (n) => fill('<b>&amp;', n) },
  { name: 'unicode emoji', make: (n) => fill('😀 ', n) },
];
