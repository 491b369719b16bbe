// Lists as the reference nests them: a line indented two or more spaces past a list item belongs to that
// item (the reference's list processors use a 2-space tab), where CommonMark wants the item's content column
// (3 for "1. "). A pre-pass re-indents such lines to the column markdown-it expects; a core rule joins the
// lists markdown-it splits when the bullet changes (`*`, `-`, `+` make one list in the reference).
import type { StateBlock, StateCore, Token } from 'markdown-it';

const ITEM = /^( *)([*+-]|\d{1,9}\.)( +)(?=\S)/;
// A fence opening code (quote and spoiler fences hold Markdown, so their lines are followed).
const CODE_FENCE = /^(`{3,}|~{3,})(?!\s*(?:quote|quoted|spoiler)\b)/;
/** Deepest nesting the pre-pass follows; deeper items stay siblings of the deepest. */
const MAX_DEPTH = 20;

interface OpenItem {
  /** Indentation of the item's marker in the original text. */
  indent: number;
  /** Column markdown-it reads the item's content from, after re-indenting. */
  contentCol: number;
}

function leadingSpaces(line: string): number {
  let n = 0;
  while (line.charCodeAt(n) === 0x20) n++;
  return n;
}

/** Re-indents list items and their continuation lines (outside fenced code) for markdown-it. */
export function normalizeListIndent(src: string): string {
  if (!/^ *(?:[*+-]|\d{1,9}\.) /m.test(src)) return src;
  const lines = src.split('\n');
  const stack: OpenItem[] = [];
  let fence: string | null = null;
  let prevBlank = true;
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n]!;
    if (fence !== null) {
      const trimmed = line.trim();
      if (trimmed.startsWith(fence) && /^[`~]+$/.test(trimmed)) fence = null;
      continue;
    }
    const blank = line.trim() === '';
    if (blank) {
      prevBlank = true;
      continue;
    }
    const indent = leadingSpaces(line);
    const item = ITEM.exec(line);
    // The innermost open item this line is indented under (two spaces or more past its marker).
    while (stack.length > 0 && indent < stack[stack.length - 1]!.indent + 2) stack.pop();
    const parent = stack[stack.length - 1];
    if (item && (parent || indent < 2)) {
      const newIndent = parent ? parent.contentCol : indent;
      const spaces = item[3]!.length;
      const contentCol = newIndent + item[2]!.length + (spaces <= 4 ? spaces : 1);
      lines[n] = ' '.repeat(newIndent) + line.slice(indent);
      if (stack.length < MAX_DEPTH) stack.push({ indent, contentCol });
    } else if (parent) {
      lines[n] = ' '.repeat(parent.contentCol) + line.slice(indent);
    } else if (prevBlank) {
      stack.length = 0;
    }
    const f = CODE_FENCE.exec(line.slice(indent));
    if (f) fence = f[1]!;
    prevBlank = false;
  }
  return lines.join('\n');
}

/** Core rule: a list closed and another of the same kind opened right after it become one list. */
export function joinAdjacentLists(state: StateCore): void {
  const out: Token[] = [];
  for (const token of state.tokens) {
    const last = out[out.length - 1];
    if (token.type === 'bullet_list_open' && last?.type === 'bullet_list_close' && last.level === token.level) {
      out.pop();
      continue;
    }
    out.push(token);
  }
  state.tokens = out;
}

export type BlockRule = (state: StateBlock, startLine: number, endLine: number, silent: boolean) => boolean;

/**
 * Wraps markdown-it's list rule so an ordered list may interrupt a paragraph whatever its first number
 * (CommonMark insists on 1; the reference lets "text\n3. item" and nested "2. item" lines start lists).
 */
export function listsInterruptParagraphs(list: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    if (!silent || state.parentType !== 'paragraph') return list(state, startLine, endLine, silent);
    state.parentType = 'list';
    try {
      return list(state, startLine, endLine, silent);
    } finally {
      state.parentType = 'paragraph';
    }
  };
}

/**
 * Wraps markdown-it's paragraph rule to keep trailing spaces, as the reference does (it strips only leading
 * whitespace from a paragraph).
 */
export function keepTrailingSpaces(paragraph: BlockRule): BlockRule {
  return (state, startLine, endLine, silent) => {
    const before = state.tokens.length;
    if (!paragraph(state, startLine, endLine, silent)) return false;
    const inline = state.tokens[before + 1];
    if (inline?.type === 'inline') {
      const raw = state.getLines(startLine, state.line, state.blkIndent, false);
      let end = raw.length;
      while (end > 0 && raw[end - 1] === ' ') end--;
      if (end > 0 && raw.slice(0, end).trim() !== '') inline.content += raw.slice(end);
    }
    return true;
  };
}
