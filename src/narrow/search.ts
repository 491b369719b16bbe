// Full-text search rules shared by the predicate, the SQL compiler and highlighting: words, folding, matching.
//
// Model: a message's searchable words are the words of its topic and of the text of its rendered HTML
// (tags and entities act as separators). A search matches when every query word is a prefix of one of
// those words (case-insensitive) and every "quoted phrase" occurs in the Markdown content or topic.
// In SQL this is `search_vector @@ to_tsquery('simple', 'w1:* & w2:*')` over a vector built by
// searchVectorSql(), which replaces ASCII punctuation with spaces so that PostgreSQL's parser sees the same
// words this module cuts. Known differences from PostgreSQL (none for ASCII text):
//  - Which non-ASCII characters end a word is decided here by Unicode categories (letters, combining marks,
//    decimal and letter numbers are word characters) but in PostgreSQL by the database's locale (under the C
//    locale every non-ASCII character is a letter, so "a😀b" is one word there, two here; some builds keep
//    format characters like U+200B inside words).
//  - Case folding is JavaScript's toLowerCase() against PostgreSQL's lower(); they differ on a few characters
//    (final sigma "ΑΣ" → "ας" vs "ασ", dotted "İ"), and under the C locale PostgreSQL folds ASCII only.

/** A word starts with a letter or digit; combining marks continue it. */
const WORD = /[\p{L}\p{Nd}\p{Nl}][\p{L}\p{M}\p{Nd}\p{Nl}]*/gu;

/** Tags and entities of rendered HTML: never searched, never highlighted into. Same text in JS and PostgreSQL. */
export const TAG_OR_ENTITY_PATTERN = '<[^>]*>|&#?[A-Za-z0-9]+;';
const TAG_OR_ENTITY = new RegExp(TAG_OR_ENTITY_PATTERN, 'g');

/** ASCII characters other than letters and digits, as a PostgreSQL regular expression. */
const ASCII_NON_ALNUM_PG = '[\\x01-\\x2F\\x3A-\\x40\\x5B-\\x60\\x7B-\\x7F]+';

/** PostgreSQL's text-search parser ignores words of 2047 bytes or more, in documents and queries alike. */
const MAX_WORD_BYTES = 2046;

export function foldCase(s: string): string {
  return s.toLowerCase();
}

/** The case-folded words of a text, as the search vector would hold them. */
export function textWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(WORD)) {
    const w = foldCase(m[0]);
    if (Buffer.byteLength(w, 'utf8') <= MAX_WORD_BYTES) out.push(w);
  }
  return out;
}

/** Rendered HTML with tags and entities replaced by spaces. */
export function htmlText(html: string): string {
  return html.replace(TAG_OR_ENTITY, ' ');
}

/** The distinct words a message can be found by. */
export function messageWords(topic: string, renderedContent: string): Set<string> {
  return new Set([...textWords(topic), ...textWords(htmlText(renderedContent))]);
}

export interface SearchQuery {
  /** Distinct case-folded words, each a required prefix. */
  words: string[];
  /** Quoted phrases, each required verbatim (case-insensitively) in the content or topic. */
  phrases: string[];
}

/** Splits a search operand as Zulip does: all words are required; "quoted phrases" also as substrings. */
export function parseSearch(operand: string): SearchQuery {
  const phrases: string[] = [];
  for (const m of operand.matchAll(/"[^"]+"|\S+/g)) {
    const t = m[0];
    // A lone `"` would be an empty phrase, which matches everything: skipping it changes nothing.
    if (t.length > 2 && t.startsWith('"') && t.endsWith('"')) phrases.push(t.slice(1, -1));
  }
  return { words: [...new Set(textWords(operand))], phrases: [...new Set(phrases)] };
}

/** True when every word prefixes a message word and every phrase occurs in the content or topic. */
export function matchesSearch(
  query: SearchQuery,
  msg: { topic: string; content: string; renderedContent: string },
): boolean {
  // Like plainto_tsquery, a query without any word matches nothing.
  if (query.words.length === 0) return false;
  const have = [...messageWords(msg.topic, msg.renderedContent)];
  if (!query.words.every((w) => have.some((h) => h.startsWith(w)))) return false;
  const content = foldCase(msg.content);
  const topic = foldCase(msg.topic);
  return query.phrases.every((p) => {
    const f = foldCase(p);
    return content.includes(f) || topic.includes(f);
  });
}

/** The to_tsquery('simple', …) text for the words: `w1:* & w2:*`. Words hold no tsquery syntax characters. */
export function tsQueryText(words: readonly string[]): string {
  return words.map((w) => `${w}:*`).join(' & ');
}

/** An ILIKE pattern matching the phrase anywhere (backslash is the escape character). */
export function containsPattern(phrase: string): string {
  return `%${phrase.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The SQL expression of the search vector that compileSql's `search` is meant to run against, e.g. for a
 * generated column: `search_tsv tsvector GENERATED ALWAYS AS (${searchVectorSql('topic', 'rendered_content')}) STORED`.
 * The arguments are SQL expressions written by the caller (never user input). Needs standard_conforming_strings.
 */
export function searchVectorSql(topicExpr: string, renderedContentExpr: string): string {
  const text = `regexp_replace((${renderedContentExpr}), '${TAG_OR_ENTITY_PATTERN}', ' ', 'g')`;
  return `to_tsvector('simple', regexp_replace((${topicExpr}) || ' ' || ${text}, '${ASCII_NON_ALNUM_PG}', ' ', 'g'))`;
}

export interface WordSpan {
  start: number;
  end: number;
  word: string;
}

/** Positions of the words of a plain text, for highlighting. */
export function wordSpans(text: string): WordSpan[] {
  return [...text.matchAll(WORD)].map((m) => ({ start: m.index!, end: m.index! + m[0].length, word: foldCase(m[0]) }));
}
