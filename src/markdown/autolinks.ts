// Bare URLs, domains and e-mail addresses become links, with the reference's rules (its `get_web_link_regex`):
// a link starts after whitespace, one of ' " ( , : < or the start of a text run, and ends where only trailing
// punctuation (! : ; ? ) , . ' " >) is left before whitespace or the end. Parentheses in a path must pair, at
// most 7 deep. Written as a scanner rather than that regex, with a per-render budget of characters examined,
// so no input shape costs more than linear time.
import { createRequire } from 'node:module';
import type { StateInline } from 'markdown-it';
import type { SegmentEnv } from './emphasis.js';
import type { RenderEnv } from './types.js';

// The IANA TLD list (npm `tlds`), minus the reference's file-extension false positives.
const TLDS = new Set<string>(createRequire(import.meta.url)('tlds') as string[]);
for (const fileLike of ['java', 'md', 'mov', 'py', 'zip']) TLDS.delete(fileLike);

const BOUNDARY_BEFORE = new Set([...`'"(,:<`]);
const TRAILING = new Set([...`!:;?),.'">`]);
const MAX_PAREN_DEPTH = 7;
/** Characters examined by link attempts per render, as a multiple of the input length (plus a floor). */
const BUDGET_PER_CHAR = 8;

const isSpace = (c: string): boolean => /\s/u.test(c);
const isWord = (c: string): boolean => /[\p{L}\p{N}\p{M}_]/u.test(c);

/** Whether `[from, to)` is a domain: word/hyphen labels joined by dots, the last one a known TLD. */
function isDomain(s: string, from: number, to: number): boolean {
  const labels = s.slice(from, to).split('.');
  if (labels.length < 2) return false;
  for (const label of labels) if (label === '' || ![...label].every((c) => c === '-' || isWord(c))) return false;
  return TLDS.has(labels[labels.length - 1]!);
}

/** Whether `[from, to)` (starting with '/') is a path: no '"', parentheses paired and at most 7 deep. */
function isPath(s: string, from: number, to: number): boolean {
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = s[i]!;
    if (c === '"') return false;
    if (c === '(' && ++depth > MAX_PAREN_DEPTH) return false;
    if (c === ')' && --depth < 0) return false;
  }
  return depth === 0;
}

/** `[from, to)` as host (+ optional path): the host check, then the path from the first '/'. */
function hostAndPath(s: string, from: number, to: number, host: (a: number, b: number) => boolean): boolean {
  const inWord = s.slice(from, to).indexOf('/'); // within the candidate only: the text after it may be long
  if (inWord < 0) return host(from, to);
  return host(from, from + inWord) && isPath(s, from + inWord, to);
}

const HOST_CHARS = /^[\p{L}\p{N}\p{M}_.:@-]+$/u;
const EMAIL = /^[\p{L}\p{N}\p{M}_.-]+@[\p{L}\p{N}\p{M}_.-]+\.[\p{L}\p{N}\p{M}_]+$/u;

/** The kind of link `[from, to)` is, or null. */
function linkKind(s: string, from: number, to: number): 'url' | 'domain' | 'email' | null {
  const scheme = s.startsWith('https://', from) ? 8 : s.startsWith('http://', from) ? 7 : 0; // lower case only, as the reference
  if (scheme > 0 && from + scheme <= to) {
    const hostStart = from + scheme;
    if (hostAndPath(s, hostStart, to, (a, b) => b > a && HOST_CHARS.test(s.slice(a, b)))) return 'url';
    return null;
  }
  if (hostAndPath(s, from, to, (a, b) => isDomain(s, a, b))) return 'domain';
  if (EMAIL.test(s.slice(from, to))) return 'email';
  return null;
}

/**
 * Per text run: characters link attempts may still examine, and the last word's extent (attempts inside one
 * word share it, so finding a word's end costs its length once).
 */
interface Scan {
  src: string;
  left: number;
  word: { from: number; end: number; trail: number; max: number } | null;
}

function scanOf(state: StateInline): Scan {
  const env = state.env as RenderEnv & { autolinkScan?: Scan };
  if (!env.autolinkScan || env.autolinkScan.src !== state.src) {
    env.autolinkScan = { src: state.src, left: 1000 + BUDGET_PER_CHAR * state.src.length, word: null };
  }
  return env.autolinkScan;
}

/** The end of the whitespace-free word around `pos`, and where its trailing punctuation begins. */
function wordAt(scan: Scan, s: string, pos: number, max: number): { end: number; trail: number } {
  const w = scan.word;
  if (w && w.max === max && pos >= w.from && pos < w.end) return { end: w.end, trail: Math.max(w.trail, pos) };
  let end = pos;
  while (end < max && !isSpace(s[end]!)) end++;
  let trail = end;
  while (trail > pos && TRAILING.has(s[trail - 1]!)) trail--;
  scan.word = { from: pos, end, trail, max };
  return { end, trail };
}

/** Finds the link starting at `pos`: its end and href, or null. */
export function matchAutolink(s: string, pos: number, max: number, scan: Scan): { end: number; href: string } | null {
  if (scan.left <= 0) return null;
  const { end: wordEnd, trail } = wordAt(scan, s, pos, max);
  scan.left -= (wordEnd - pos) * (wordEnd - trail + 1);
  if (scan.left < 0) return null;
  for (let end = trail; end <= wordEnd; end++) {
    if (end === pos) continue;
    const kind = linkKind(s, pos, end);
    if (kind === null) continue;
    const text = s.slice(pos, end);
    const href = kind === 'url' ? text : kind === 'email' ? `mailto:${text}` : `http://${text}`;
    return { end, href };
  }
  return null;
}

/** Inline rule: a bare link at this position. Runs before the text rule, so it sees every position. */
export function autolinkRule(state: StateInline, silent: boolean): boolean {
  if ((state as StateInline & { linkLevel: number }).linkLevel > 0) return false;
  const pos = state.pos;
  const src = state.src;
  const first = src[pos]!;
  if (!isWord(first)) return false;
  const prev = src[pos - 1];
  const atSegmentStart = pos === 0 || pos === (state.env as SegmentEnv).segmentStart;
  if (!atSegmentStart && prev !== undefined && !isSpace(prev) && !BOUNDARY_BEFORE.has(prev)) return false;
  const m = matchAutolink(src, pos, state.posMax, scanOf(state));
  if (!m) return false;
  if (!silent) {
    const open = state.push('link_open', 'a', 1);
    open.attrs = [['href', m.href]];
    open.markup = 'autolink';
    open.info = 'auto';
    state.push('text', '', 0).content = src.slice(pos, m.end);
    const close = state.push('link_close', 'a', -1);
    close.markup = 'autolink';
    close.info = 'auto';
  }
  state.pos = m.end;
  return true;
}

// markdown-it's text rule stops only at its markup characters; ours also stops where a bare link may begin.
const TERMINATORS = new Set([...'\n!#$%&*+-:<=@[\\]^_`{}~']);

export function textRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  let pos = state.pos;
  while (pos < state.posMax && !TERMINATORS.has(src[pos]!)) {
    if (pos > state.pos && isWord(src[pos]!) && (isSpace(src[pos - 1]!) || BOUNDARY_BEFORE.has(src[pos - 1]!))) break;
    pos++;
  }
  if (pos === state.pos) return false;
  if (!silent) state.pending += src.slice(state.pos, pos);
  state.pos = pos;
  return true;
}
