// Search highlighting for match_content/match_subject: wraps matching words without touching tags or entities.
import { escapeHtml } from '../markdown/escape.js';
import { TAG_OR_ENTITY_PATTERN, textWords, wordSpans } from './search.js';

const OPEN = '<span class="highlight">';
const CLOSE = '</span>';

/** Wraps each word of `text` that one of `words` prefixes; `escape` is applied to everything else. */
function markWords(text: string, words: readonly string[], escape: (s: string) => string): string {
  let out = '';
  let at = 0;
  for (const span of wordSpans(text)) {
    if (!words.some((w) => span.word.startsWith(w))) continue;
    out += escape(text.slice(at, span.start)) + OPEN + escape(text.slice(span.start, span.end)) + CLOSE;
    at = span.end;
  }
  return out + escape(text.slice(at));
}

/**
 * Highlights the words a search matched, the way the search matches them (a query word prefixes a text word,
 * case-insensitively). With `isHtml` the text is rendered HTML: only text between tags is changed and
 * entities are left whole. Otherwise the text is plain (a topic) and the result is HTML-escaped.
 */
export function highlight(text: string, words: readonly string[], isHtml: boolean): string {
  const query = [...new Set(words.flatMap((w) => textWords(w)))];
  const keep = (s: string) => s;
  if (!isHtml) return query.length === 0 ? escapeHtml(text) : markWords(text, query, escapeHtml);
  if (query.length === 0) return text;
  let out = '';
  let at = 0;
  for (const m of text.matchAll(new RegExp(TAG_OR_ENTITY_PATTERN, 'g'))) {
    out += markWords(text.slice(at, m.index), query, keep) + m[0];
    at = m.index! + m[0].length;
  }
  return out + markWords(text.slice(at), query, keep);
}
