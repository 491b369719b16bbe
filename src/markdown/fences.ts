// Fenced blocks: ```quote and ```spoiler containers, and Zulip's codehilite markup for code.
import type { StateBlock, Token } from 'markdown-it';
import { highlight } from './highlight.js';
import { mathBlockHtml } from './math.js';
import type { RenderEnv } from './types.js';
import { escapeAttr } from './urls.js';

// Pygments lexer names for common aliases (Zulip puts the lexer name in data-code-language;
// unknown languages keep the name the author wrote).
const LANGUAGES: Record<string, string> = {};
for (const [name, aliases] of [
  ['Python', 'python py py3 python3 sage bazel starlark'], ['Python 2.x', 'python2 py2'], ['CSS+PHP', 'css+php'],
  ['HTML+PHP', 'html+php'], ['JavaScript+PHP', 'javascript+php js+php'], ['XML+PHP', 'xml+php'],
  ['JavaScript', 'javascript js mjs cjs'], ['TypeScript', 'typescript ts'], ['JSX', 'jsx react'],
  ['TSX', 'tsx'], ['Java', 'java'], ['C', 'c'], ['C++', 'cpp c++ cxx hpp'], ['C#', 'csharp c# cs'],
  ['Go', 'go golang'], ['Rust', 'rust rs'], ['Ruby', 'ruby rb duby'], ['PHP', 'php php3 php4 php5'],
  ['Bash', 'bash sh ksh zsh shell'], ['Bash Session', 'console shell-session'],
  ['PowerShell', 'powershell pwsh posh ps1 psm1'], ['JSON', 'json json-object'], ['YAML', 'yaml yml'],
  ['TOML', 'toml'], ['INI', 'ini cfg dosini'], ['XML', 'xml'], ['HTML', 'html'], ['CSS', 'css'],
  ['SCSS', 'scss'], ['SQL', 'sql'], ['PostgreSQL SQL dialect', 'postgresql postgres'],
  ['Markdown', 'markdown md'], ['TeX', 'tex latex'], ['Text only', 'text'], ['Diff', 'diff udiff'],
  ['Kotlin', 'kotlin'], ['Swift', 'swift'], ['Scala', 'scala'], ['Haskell', 'haskell hs'],
  ['Lua', 'lua'], ['Perl', 'perl pl'], ['R', 'r splus s'], ['Docker', 'docker dockerfile'],
  ['Makefile', 'make makefile mf bsdmake'], ['Elixir', 'elixir ex exs'], ['Erlang', 'erlang'],
  ['Clojure', 'clojure clj'], ['Objective-C', 'objective-c objectivec obj-c objc'], ['Dart', 'dart'],
  ['GraphQL', 'graphql'], ['OCaml', 'ocaml'], ['Julia', 'julia jl'], ['Zig', 'zig'],
  ['Nix', 'nixos nix'], ['Vim Script', 'vim'], ['Emacs Lisp', 'emacs-lisp elisp emacs'],
] as const) {
  for (const alias of aliases.split(' ')) LANGUAGES[alias] = name;
}

/** The language named in a fence's info string ("python", "{.py}", "spoiler Header"). */
export function fenceLanguage(info: string): { lang: string; rest: string } {
  const m = /^\{?\.?([a-zA-Z0-9_+\-./#]*)\}?[ ]*(.*)$/s.exec(info.trim()) ?? ['', '', ''];
  return { lang: m[1] ?? '', rest: (m[2] ?? '').trim() };
}

/** The reference's code-block whitespace: trailing whitespace off each line, blank lines off both ends. */
function normalizeCode(content: string): string {
  const lines = content.split('\n').map((l) => l.trimEnd());
  let first = 0;
  let last = lines.length;
  while (first < last && lines[first] === '') first++;
  while (last > first && lines[last - 1] === '') last--;
  return lines.slice(first, last).join('\n') + '\n';
}

/** The language a block without one names on its first line (`#!python`, `#!/usr/bin/python`, `:::python`). */
function shebangLanguage(code: string): string | undefined {
  const m = /^(?:::+|#!)(?:(?:\/\w+)*[/ ])?([\w#.+-]*)/.exec(code.slice(0, code.indexOf('\n') >>> 0));
  return m?.[1] ? LANGUAGES[m[1].toLowerCase()] : undefined;
}

/** The reference's code block: Pygments-style highlighting in div.codehilite, the lexer's name in data-code-language. */
export function codeBlockHtml(content: string, lang: string): string {
  const language = lang === '' ? '' : (LANGUAGES[lang.toLowerCase()] ?? lang);
  const attr = language === '' ? '' : ` data-code-language="${escapeAttr(language)}"`;
  const code = normalizeCode(content);
  const highlighter = language || shebangLanguage(code);
  const html = (highlighter && highlight(code, highlighter)) ?? escapeAttr(code);
  return `<div class="codehilite"${attr}><pre><span></span><code>${html}</code></pre></div>\n`;
}

export function renderFence(tokens: Token[], idx: number, _options: unknown, env: RenderEnv): string {
  const { lang } = fenceLanguage(tokens[idx]!.info);
  if (lang.toLowerCase() === 'math') return mathBlockHtml(tokens[idx]!.content, env.tex);
  return codeBlockHtml(tokens[idx]!.content, lang);
}

export function renderCodeBlock(tokens: Token[], idx: number): string {
  return codeBlockHtml(tokens[idx]!.content, '');
}

interface Fence { char: string; len: number; info: string }

/**
 * The fence opening at `line`, by the reference's FENCE_RE: three or more backticks or tildes, then
 * optionally a language (`[a-zA-Z0-9_+-./#]+`, maybe as `{.lang}`) and a header; no backtick or tilde after
 * the fence characters.
 */
function fenceAt(state: StateBlock, line: number): Fence | null {
  if (state.sCount[line]! - state.blkIndent >= 4) return null;
  const text = state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]);
  const m = /^(`{3,}|~{3,})/.exec(text);
  if (!m) return null;
  const rest = text.slice(m[1]!.length);
  if (/[`~]/.test(rest)) return null;
  const info = rest.trim();
  if (info !== '' && !/^\{?\.?[a-zA-Z0-9_+\-./#]/.test(info)) return null;
  return { char: m[1]![0]!, len: m[1]!.length, info };
}

/** Whether `line` closes `fence`: exactly its fence characters (trailing whitespace aside), as the reference. */
function closesFence(state: StateBlock, line: number, fence: Fence): boolean {
  if (state.sCount[line]! - state.blkIndent >= 4) return false;
  const text = state.src.slice(state.bMarks[line]! + state.tShift[line]!, state.eMarks[line]).trimEnd();
  return text.length === fence.len && text === fence.char.repeat(fence.len);
}

/**
 * Block rule for code and math fences with the reference's closing rule (only the same fence string closes;
 * an unclosed fence runs to the end of its container).
 */
export function fenceRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const fence = fenceAt(state, startLine);
  if (!fence || containerKind(fence.info) !== null) return false;
  if (silent) return true;
  let line = startLine + 1;
  let closed = false;
  for (; line < endLine; line++) {
    const start = state.bMarks[line]! + state.tShift[line]!;
    if (start < state.eMarks[line]! && state.sCount[line]! < state.blkIndent) break;
    if (closesFence(state, line, fence)) {
      closed = true;
      break;
    }
  }
  const token = state.push('fence', 'code', 0);
  token.info = fence.info;
  token.content = state.getLines(startLine + 1, line, state.sCount[startLine]!, true);
  token.markup = fence.char.repeat(fence.len);
  token.map = [startLine, line];
  state.line = closed ? line + 1 : line;
  return true;
}

function containerKind(info: string): 'quote' | 'spoiler' | null {
  const lang = fenceLanguage(info).lang.toLowerCase();
  return lang === 'quote' || lang === 'spoiler' ? lang : null;
}

/** Per block state: the line closing each container opener the scans met (-1: never closed). */
const closeMemo = new WeakMap<StateBlock, Map<number, number>>();

/**
 * Finds the line closing the container opened at `startLine`. Inner fences nest: a bare
 * fence closes the innermost open block when it matches it, any other fence opens a block
 * (nothing nests inside code). The scan records where every inner container closes, so a
 * nested container does not rescan the lines its parent read.
 */
function findClose(state: StateBlock, startLine: number, endLine: number, opener: Fence): { line: number; closed: boolean } {
  let memo = closeMemo.get(state);
  if (!memo) closeMemo.set(state, (memo = new Map()));
  const known = memo.get(startLine);
  if (known !== undefined) return known < 0 || known >= endLine ? { line: endLine, closed: false } : { line: known, closed: true };
  const stack = [{ ...opener, code: false, line: startLine }];
  let line = startLine + 1;
  for (; line < endLine; line++) {
    const start = state.bMarks[line]! + state.tShift[line]!;
    if (start < state.eMarks[line]! && state.sCount[line]! < state.blkIndent) break;
    const f = fenceAt(state, line);
    if (!f) continue;
    const top = stack[stack.length - 1]!;
    if (f.info === '' && f.char === top.char && f.len === top.len) {
      stack.pop();
      if (stack.length === 0) return { line, closed: true };
      memo.set(top.line, line);
    } else if (!top.code) {
      stack.push({ ...f, code: containerKind(f.info) === null, line });
    }
  }
  for (const open of stack.slice(1)) memo.set(open.line, -1);
  return { line, closed: false };
}

/** Block rule for ```quote and ```spoiler Header fences; the body is parsed as Markdown. */
export function containerRule(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  const opener = fenceAt(state, startLine);
  if (!opener) return false;
  const kind = containerKind(opener.info);
  if (!kind) return false;
  if (silent) return true;

  const { line: contentEnd, closed } = findClose(state, startLine, endLine, opener);
  const oldParent = state.parentType;
  const oldLineMax = state.lineMax;
  state.parentType = 'blockquote';
  state.lineMax = contentEnd;
  const markup = opener.char.repeat(opener.len);

  if (kind === 'quote') {
    const open = state.push('blockquote_open', 'blockquote', 1);
    open.markup = markup;
    open.map = [startLine, contentEnd];
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push('blockquote_close', 'blockquote', -1).markup = markup;
  } else {
    const open = state.push('spoiler_open', 'div', 1);
    open.markup = markup;
    open.map = [startLine, contentEnd];
    const header = fenceLanguage(opener.info).rest;
    if (header !== '') {
      state.push('paragraph_open', 'p', 1).map = [startLine, startLine + 1];
      const inline = state.push('inline', '', 0);
      inline.content = header;
      inline.map = [startLine, startLine + 1];
      inline.children = [];
      state.push('paragraph_close', 'p', -1);
    }
    state.push('spoiler_content', 'div', 0);
    state.md.block.tokenize(state, startLine + 1, contentEnd);
    state.push('spoiler_close', 'div', -1).markup = markup;
  }

  state.parentType = oldParent;
  state.lineMax = oldLineMax;
  state.line = closed ? contentEnd + 1 : contentEnd;
  return true;
}

export const spoilerRenderers = {
  spoiler_open: () => '<div class="spoiler-block"><div class="spoiler-header">\n',
  spoiler_content: () => '</div><div class="spoiler-content" aria-hidden="true">\n',
  spoiler_close: () => '</div></div>\n',
};
