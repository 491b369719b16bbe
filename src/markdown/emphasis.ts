// Emphasis as the reference writes it (its STRONG_EM_RE, STRONG_RE, EMPHASIS_RE and DEL_RE), not CommonMark's
// delimiter runs: `***x***` is <strong><em>, `**x**` and `~~x~~` never cross a line break, `*x*` must not
// start or end with a space. Each opener looks only as far as the next closer candidate, so a message costs
// time linear in its length whatever its stars.
import type { StateInline } from 'markdown-it';

/** Where a span's body starts, for rules that treat the start of a span like the start of text. */
export interface SegmentEnv {
  segmentStart?: number;
}

const isSpace = (c: string | undefined): boolean => c !== undefined && /\s/u.test(c);

interface Span {
  tags: string[];
  bodyStart: number;
  bodyEnd: number;
  end: number;
}

function hasAny(s: string, from: number, to: number, chars: string): boolean {
  for (let i = from; i < to; i++) if (chars.includes(s[i]!)) return true;
  return false;
}

/** `*body*` / `***body***`: body without * ^ or newline, not starting or ending with whitespace. */
function starSpan(src: string, pos: number, max: number, marker: string, tags: string[]): Span | null {
  const bodyStart = pos + marker.length;
  const close = src.indexOf('*', bodyStart);
  if (close < 0 || close + marker.length > max || close === bodyStart || !src.startsWith(marker, close)) return null;
  if (isSpace(src[bodyStart]) || isSpace(src[close - 1]) || hasAny(src, bodyStart, close, '^\n')) return null;
  return { tags, bodyStart, bodyEnd: close, end: close + marker.length };
}

/** `**body**`: the nearest closing `**` on the same line, body at least one character. */
function strongSpan(src: string, pos: number, max: number): Span | null {
  const close = src.indexOf('**', pos + 3);
  if (close < 0 || close + 2 > max || hasAny(src, pos + 2, close, '\n')) return null;
  return { tags: ['strong'], bodyStart: pos + 2, bodyEnd: close, end: close + 2 };
}

/** `~~body~~`: not touching other tildes, body without ~ or newline. */
function delSpan(src: string, pos: number, max: number): Span | null {
  if (src[pos - 1] === '~') return null;
  const close = src.indexOf('~', pos + 2);
  if (close < 0 || close === pos + 2 || !src.startsWith('~~', close) || close + 2 > max) return null;
  if (src[close + 2] === '~' || hasAny(src, pos + 2, close, '\n')) return null;
  return { tags: ['s'], bodyStart: pos + 2, bodyEnd: close, end: close + 2 };
}

function findSpan(state: StateInline): Span | null {
  const { src, pos, posMax } = state;
  if (src[pos] === '~') return src.startsWith('~~', pos) ? delSpan(src, pos, posMax) : null;
  if (src[pos] !== '*') return null;
  if (src.startsWith('***', pos)) {
    const both = starSpan(src, pos, posMax, '***', ['strong', 'em']);
    if (both) return both;
  }
  if (src.startsWith('**', pos)) return strongSpan(src, pos, posMax);
  return starSpan(src, pos, posMax, '*', ['em']);
}

/** Inline rule for `*`, `**`, `***` and `~~` spans; their bodies are parsed as inline Markdown. */
export function emphasisRule(state: StateInline, silent: boolean): boolean {
  const span = findSpan(state);
  if (!span) return false;
  if (!silent) {
    const oldMax = state.posMax;
    for (const tag of span.tags) state.push(`${tag}_open`, tag, 1);
    state.pos = span.bodyStart;
    state.posMax = span.bodyEnd;
    (state.env as SegmentEnv).segmentStart = span.bodyStart;
    state.md.inline.tokenize(state);
    for (const tag of [...span.tags].reverse()) state.push(`${tag}_close`, tag, -1);
    state.posMax = oldMax;
  }
  state.pos = span.end;
  return true;
}
