// TeX math with KaTeX, as the reference renders it: `$$…$$` inline and ```math blocks (display mode, one
// rendering per blank-line-separated paragraph); TeX KaTeX refuses becomes a `tex-error` span with the source.
// KaTeX is loaded on the first formula, not at import (a process or render worker that renders none is spared it).
import { createRequire } from 'node:module';
import type { StateInline } from 'markdown-it';
import { HTML_TOKEN } from './mentions.js';
import type { RenderEnv, TexBudget } from './types.js';
import { escapeAttr, escapeText } from './urls.js';

const require = createRequire(import.meta.url);
let katex: typeof import('katex').default | null = null;

/**
 * KaTeX work allowed per message (its cost grows with the TeX: a 2,000-character matrix takes tens of
 * milliseconds): formulas past these are shown as errors, with their source.
 */
export const TEX_LIMITS = { formulas: 100, chars: 2000 };

export function texBudget(): TexBudget {
  return { ...TEX_LIMITS };
}

/** KaTeX's HTML for `tex`, or null when KaTeX refuses it. `trust` stays off: no \href or \url links. */
export function renderTex(tex: string, display: boolean, budget: TexBudget): string | null {
  budget.formulas--;
  budget.chars -= tex.length;
  if (budget.formulas < 0 || budget.chars < 0) return null;
  katex ??= require('katex') as typeof import('katex').default;
  try {
    return katex.renderToString(tex, { displayMode: display, throwOnError: true, trust: false, maxExpand: 1000 });
  } catch {
    return null;
  }
}

const isWordChar = (c: string | undefined): boolean => c !== undefined && /[\p{L}\p{N}\p{M}_]/u.test(c);

/**
 * The reference's TEX_RE: `$$body$$` not touching a word character or a third `$` on either side; the body
 * is on one line, does not start with `_` or `$`, and may hold `\$`. Returns the body's end or -1.
 */
function texEnd(src: string, pos: number, max: number): number {
  if (src[pos - 1] === '$' || isWordChar(src[pos - 1])) return -1;
  const bodyStart = pos + 2;
  const first = src[bodyStart];
  if (first === undefined || bodyStart >= max || first === '\n' || first === '_' || first === '$') return -1;
  let i = bodyStart + 1;
  let lastEscape = -1;
  while (i < max && src[i] !== '$' && src[i] !== '\n') {
    if (src[i] === '\\' && src[i + 1] === '$' && i + 1 < max) {
      lastEscape = i;
      i += 2;
    } else {
      i++;
    }
  }
  const closes = (at: number): boolean =>
    at + 2 <= max && src.startsWith('$$', at) && src[at + 2] !== '$' && !isWordChar(src[at + 2]);
  if (closes(i)) return i;
  // The regex may give back a final `\$` escape and read its `$` as the closing delimiter.
  if (lastEscape >= 0 && closes(lastEscape + 1)) return lastEscape + 1;
  return -1;
}

/** Inline rule for `$$TeX$$`. */
export function texInlineRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (!src.startsWith('$$', pos)) return false;
  const end = texEnd(src, pos, state.posMax);
  if (end < 0) return false;
  if (!silent) {
    const body = src.slice(pos + 2, end);
    const html = renderTex(body, false, (state.env as RenderEnv).tex);
    state.push(HTML_TOKEN, '', 0).content = html ?? `<span class="tex-error">${escapeText(`$$${body}$$`)}</span>`;
  }
  state.pos = end + 2;
  return true;
}

/** A ```math block: each paragraph rendered in display mode, each in its own <p>. */
export function mathBlockHtml(content: string, budget: TexBudget): string {
  const lines = content.split('\n').map((l) => l.trimEnd());
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  if (lines.length === 0) return '';
  return lines
    .join('\n')
    .split('\n\n')
    .map((paragraph) => `<p>${renderTex(paragraph, true, budget) ?? `<span class="tex-error">${escapeAttr(paragraph)}</span>`}</p>\n`)
    .join('');
}
