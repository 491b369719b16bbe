// Syntax highlighting of code blocks with Prism, written as the reference's Pygments markup: `<span>`s carrying
// Pygments' short token classes (k, nf, p, o, mi, s1, …) that the reference's clients style, adjacent tokens
// of one class merged into one span as Pygments' HTML formatter does, plain names as `n`.
import Prism from 'prismjs';
import loadLanguages from 'prismjs/components/index.js';
import { escapeAttr } from './urls.js';

/** Longest code highlighted; longer blocks are shown plain. */
export const MAX_HIGHLIGHT_LENGTH = 20_000;

// Pygments lexer name (as in data-code-language) → Prism grammar.
const GRAMMARS: Record<string, string> = {
  Python: 'python', 'Python 2.x': 'python', JavaScript: 'javascript', TypeScript: 'typescript', JSX: 'jsx', TSX: 'tsx',
  Java: 'java', C: 'c', 'C++': 'cpp', 'C#': 'csharp', Go: 'go', Rust: 'rust', Ruby: 'ruby', PHP: 'php',
  'CSS+PHP': 'php', 'HTML+PHP': 'php', 'JavaScript+PHP': 'php', 'XML+PHP': 'php', Bash: 'bash', 'Bash Session': 'bash',
  PowerShell: 'powershell', JSON: 'json', YAML: 'yaml', TOML: 'toml', INI: 'ini', XML: 'markup', HTML: 'markup',
  CSS: 'css', SCSS: 'scss', SQL: 'sql', 'PostgreSQL SQL dialect': 'sql', Markdown: 'markdown', TeX: 'latex',
  Diff: 'diff', Kotlin: 'kotlin', Swift: 'swift', Scala: 'scala', Haskell: 'haskell', Lua: 'lua', Perl: 'perl', R: 'r',
  Docker: 'docker', Makefile: 'makefile', Elixir: 'elixir', Erlang: 'erlang', Clojure: 'clojure',
  'Objective-C': 'objectivec', Dart: 'dart', GraphQL: 'graphql', OCaml: 'ocaml', Julia: 'julia', Nix: 'nix',
  'Vim Script': 'vim', 'Emacs Lisp': 'elisp',
};
let grammarsLoaded = false;

/**
 * Loads the grammars of GRAMMARS into Prism, all at once on the first code block (not at import: about 0.1 s of CPU
 * that a process, or render worker, that highlights nothing would spend). All at once, as before: Prism reloads the
 * grammars a later one extends, so loading them one by one could make a grammar depend on the order of first use.
 */
function loadGrammars(): void {
  if (grammarsLoaded) return;
  loadLanguages([...new Set(Object.values(GRAMMARS))]);
  grammarsLoaded = true;
}

// Prism token type → Pygments short class.
const CLASSES: Record<string, string> = {
  keyword: 'k', builtin: 'nb', boolean: 'kc', constant: 'no', 'class-name': 'nc', function: 'nf', operator: 'o',
  punctuation: 'p', variable: 'nv', tag: 'nt', 'attr-name': 'na', 'attr-value': 's', property: 'nt', regex: 'sr',
  decorator: 'nd', annotation: 'nd', namespace: 'nn', char: 'sc', symbol: 'ss', entity: 'ni', selector: 'nt',
  atrule: 'k', important: 'k', url: 's', prolog: 'cp', doctype: 'cp', cdata: 'cp', directive: 'cp', macro: 'cp',
  deleted: 'gd', inserted: 'gi', 'triple-quoted-string': 's2', 'template-string': 's2', 'string-interpolation': 's2',
};

// Where a language's Pygments lexer names things differently.
const LANGUAGE_CLASSES: Record<string, Record<string, string>> = {
  python: { 'word:self': 'bp', 'word:cls': 'bp', 'word:print': 'nb' },
  php: { 'class-name': 'nx' },
  latex: { function: 'k', punctuation: 'nb', name: '' },
  javascript: { function: 'nx', name: 'nx' },
  typescript: { function: 'nx', name: 'nx' },
};

function numberClass(text: string): string {
  if (/^0x/i.test(text)) return 'mh';
  return /[.eE]/.test(text) && !/^0x/i.test(text) ? 'mf' : 'mi';
}

function stringClass(text: string): string {
  return text.startsWith("'") ? 's1' : text.startsWith('"') ? 's2' : 's';
}

function commentClass(text: string, atStart: boolean): string {
  if (atStart && text.startsWith('#!')) return 'ch';
  return text.startsWith('/*') ? 'cm' : 'c1';
}

interface Piece {
  cls: string;
  text: string;
}

function classify(type: string, text: string, grammar: string, atStart: boolean): string {
  const override = LANGUAGE_CLASSES[grammar];
  const word = override?.[`word:${text}`];
  if (word) return word;
  if (override?.[type]) return override[type]!;
  if (type === 'number') return numberClass(text);
  if (type === 'string') return stringClass(text);
  if (type === 'comment') return commentClass(text, atStart);
  return CLASSES[type] ?? '';
}

/** Plain text between tokens: identifiers become names, the rest stays unmarked. */
function plainPieces(text: string, grammar: string, out: Piece[]): void {
  const nameClass = LANGUAGE_CLASSES[grammar]?.name ?? 'n';
  let last = 0;
  for (const m of text.matchAll(/[A-Za-z_][A-Za-z0-9_]*/g)) {
    if (m.index! > last) out.push({ cls: '', text: text.slice(last, m.index) });
    out.push({ cls: LANGUAGE_CLASSES[grammar]?.[`word:${m[0]}`] ?? nameClass, text: m[0] });
    last = m.index! + m[0].length;
  }
  if (last < text.length) out.push({ cls: '', text: text.slice(last) });
}

function flatten(stream: (string | Prism.Token)[], grammar: string, out: Piece[], parent: string | null, offset: { at: number }): void {
  for (const t of stream) {
    if (typeof t === 'string') {
      if (parent === null) plainPieces(t, grammar, out);
      else out.push({ cls: parent, text: t });
      offset.at += t.length;
      continue;
    }
    const text = typeof t.content === 'string' ? t.content : null;
    const cls = classify(t.type, text ?? '', grammar, offset.at === 0) || parent;
    if (text !== null) {
      out.push({ cls: cls ?? '', text });
      offset.at += text.length;
    } else {
      flatten(Array.isArray(t.content) ? t.content : [t.content], grammar, out, cls, offset);
    }
  }
}

/** Pygments-style highlighted HTML for `code` in a lexer named as in data-code-language, or null. */
export function highlight(code: string, language: string): string | null {
  const grammarName = GRAMMARS[language];
  if (!grammarName || code.length > MAX_HIGHLIGHT_LENGTH) return null;
  loadGrammars();
  const grammar = Prism.languages[grammarName];
  if (!grammar) return null;
  const pieces: Piece[] = [];
  flatten(Prism.tokenize(code, grammar), grammarName, pieces, null, { at: 0 });
  let html = '';
  for (let i = 0; i < pieces.length; i++) {
    const { cls } = pieces[i]!;
    let text = pieces[i]!.text;
    // Pygments' formatter writes consecutive tokens of one class as one span.
    while (cls !== '' && i + 1 < pieces.length && pieces[i + 1]!.cls === cls) text += pieces[++i]!.text;
    html += cls === '' ? escapeAttr(text) : `<span class="${cls}">${escapeAttr(text)}</span>`;
  }
  return html;
}
