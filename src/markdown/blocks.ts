// Small adjustments of markdown-it's own rules to the reference's output: inline code keeps its text exactly
// (no trimmed spaces, no newline folding), and a quote made only of empty `>` lines is plain text.
import type { StateBlock, StateInline } from 'markdown-it';
import type { BlockRule } from './lists.js';

export type InlineRule = (state: StateInline, silent: boolean) => boolean;

/** Wraps markdown-it's backtick rule: the code's text is exactly what stands between the backtick runs. */
export function exactInlineCode(backticks: InlineRule): InlineRule {
  return (state, silent) => {
    const start = state.pos;
    const before = state.tokens.length;
    if (!backticks(state, silent)) return false;
    // (pending text is flushed into a token first, so the code span is the last token pushed)
    const token = state.tokens.length > before ? state.tokens[state.tokens.length - 1] : undefined;
    if (!silent && token?.type === 'code_inline') {
      token.content = state.src.slice(start + token.markup.length, state.pos - token.markup.length);
    }
    return true;
  };
}

const EMPTY_QUOTE_LINE = /^>\s*$/;

/**
 * Wraps markdown-it's blockquote rule: like the reference, lines of nothing but `>` up to the end of the
 * block (a blank line or the end) are not a quote. Each line's answer is computed once per block state.
 */
export function emptyQuotesAreText(blockquote: BlockRule): BlockRule {
  const memo = new WeakMap<StateBlock, Map<number, boolean>>();
  const onlyEmptyQuotes = (state: StateBlock, startLine: number, endLine: number): boolean => {
    let known = memo.get(state);
    if (!known) memo.set(state, (known = new Map()));
    const cached = known.get(startLine);
    if (cached !== undefined) return cached;
    let line = startLine;
    const lineText = (n: number): string => state.src.slice(state.bMarks[n]! + state.tShift[n]!, state.eMarks[n]);
    while (line < endLine && !state.isEmpty(line) && EMPTY_QUOTE_LINE.test(lineText(line)) && !known.has(line)) line++;
    const result = line < endLine && known.has(line) ? known.get(line)! : line >= endLine || state.isEmpty(line);
    for (let n = startLine; n < line; n++) known.set(n, result);
    return result;
  };
  return (state, startLine, endLine, silent) => {
    if (state.sCount[startLine]! - state.blkIndent < 4 && onlyEmptyQuotes(state, startLine, endLine)) return false;
    return blockquote(state, startLine, endLine, silent);
  };
}
