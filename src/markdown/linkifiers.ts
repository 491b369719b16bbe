// Linkifiers: validation of user patterns and URL templates, guarded compilation and bounded matching.
import { analyzeRegex } from './regex-safety.js';
import type { CompiledLinkifier } from './types.js';
import { encodeTemplateValue, isSafeUrl } from './urls.js';

export const MAX_PATTERN_LENGTH = 1000;
export const MAX_TEMPLATE_LENGTH = 1000;
/** Text scanned per linkifier per message; text past this is left unlinkified. */
export const MAX_SCAN_CHARS_PER_MESSAGE = 20_000;
/** Longest text run a linkifier is applied to; longer runs are scanned up to here only. */
export const MAX_TEXT_PER_APPLICATION = 5_000;
/** Links one linkifier may produce per message. */
export const MAX_MATCHES_PER_MESSAGE = 100;

const SYNTAX_CHARS = '^$\\.*+?()[]{}|/';

/**
 * Zulip stores patterns in Python syntax; rewrites `(?P<name>` to JS `(?<name>`.
 * Returns an error text for Python-only constructs JS would misread.
 */
export function toJsPattern(pattern: string): { js: string } | { error: string } {
  let out = '';
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '\\') {
      // Python accepts escapes like \# or \- that JS's 'u' mode refuses; they mean the bare character.
      const next = pattern[i + 1] ?? '';
      const keep = /[A-Za-z0-9_]/.test(next) || SYNTAX_CHARS.includes(next) || (inClass && next === '-');
      out += keep || next === '' ? c + next : next;
      i++;
      continue;
    }
    if (inClass) {
      if (c === ']') inClass = false;
    } else if (c === '[') {
      inClass = true;
    } else if (pattern.startsWith('(?P<', i)) {
      out += '(?<';
      i += 3;
      continue;
    } else if (pattern.startsWith('(?P=', i)) {
      return { error: 'Backreferences are not allowed.' };
    }
    out += c;
  }
  return { js: out };
}

function compileOrError(pattern: string): { js: string; names: string[] } | { error: string } {
  if (pattern.length === 0) return { error: 'Pattern is empty.' };
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return { error: `Pattern is too long (at most ${MAX_PATTERN_LENGTH} characters).` };
  }
  const converted = toJsPattern(pattern);
  if ('error' in converted) return converted;
  let re: RegExp;
  try {
    re = new RegExp(converted.js, 'u');
  } catch (e) {
    return { error: (e as Error).message };
  }
  const shape = analyzeRegex(converted.js);
  if (shape.error) return { error: `Pattern refused: ${shape.error}.` };
  // Safe to run now: the shape check passed.
  if (re.test('') || new RegExp(`^(?:${converted.js})$`, 'u').test('')) {
    return { error: 'Pattern must not match an empty string.' };
  }
  return { js: converted.js, names: shape.names };
}

/** Checks a linkifier pattern; returns an error text, or null when acceptable. */
export function validateLinkifierPattern(pattern: string): string | null {
  const r = compileOrError(pattern);
  return 'error' in r ? r.error : null;
}

type TemplatePart = { lit: string } | { name: string };

function parseTemplate(template: string): TemplatePart[] | string {
  const parts: TemplatePart[] = [];
  let i = 0;
  while (i < template.length) {
    const c = template[i]!;
    if (c === '{') {
      const end = template.indexOf('}', i);
      if (end < 0) return 'Unclosed "{" in URL template.';
      const expr = template.slice(i + 1, end);
      if (/^[+#./;?&=,!@|]/.test(expr)) {
        return `Only simple {variable} expansions are supported, not "{${expr}}".`;
      }
      if (!/^[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*$/.test(expr)) {
        return `Invalid variable "{${expr}}" in URL template.`;
      }
      parts.push({ name: expr });
      i = end + 1;
    } else if (c === '}') {
      return 'Unmatched "}" in URL template.';
    } else if (c === '%' && !/^%[0-9A-Fa-f]{2}/.test(template.slice(i, i + 3))) {
      return 'Invalid percent-encoding in URL template.';
    } else if (/[\u0000-\u0020\u007f"'<>\\^`|]/.test(c)) {
      return `Character ${JSON.stringify(c)} is not allowed in a URL template.`;
    } else {
      parts.push({ lit: c });
      i++;
    }
  }
  return parts;
}

/**
 * Checks an RFC 6570 level-1 URL template ("https://example.com/{id}") against its pattern:
 * the syntax, an allowed URL scheme, and that every {var} is a named group of the pattern.
 */
export function validateUrlTemplate(template: string, pattern: string): string | null {
  if (template.length === 0) return 'URL template is empty.';
  if (template.length > MAX_TEMPLATE_LENGTH) {
    return `URL template is too long (at most ${MAX_TEMPLATE_LENGTH} characters).`;
  }
  const parts = parseTemplate(template);
  if (typeof parts === 'string') return parts;
  if (!/^(?:https?:\/\/[^/{]|mailto:|\/)/i.test(template)) {
    return 'URL template must start with http://, https://, mailto: or /.';
  }
  const compiled = compileOrError(pattern);
  if ('error' in compiled) return `Invalid pattern: ${compiled.error}`;
  for (const part of parts) {
    if ('name' in part && !compiled.names.includes(part.name)) {
      return `Group "${part.name}" in URL template is not present in linkifier pattern.`;
    }
  }
  return null;
}

/** Expands `{name}` variables with percent-encoded values of the match's named groups. */
export function expandUrlTemplate(template: string, groups: Record<string, string | undefined>): string {
  return template.replace(/\{([^}]*)\}/g, (_, name: string) => encodeTemplateValue(groups[name] ?? ''));
}

/** Validation outcome per (pattern, template): the JS source to run, or why it is refused. */
const checked = new Map<string, { js: string } | { error: string }>();
const MAX_CHECKED = 2_000;

function checkLinkifier(pattern: string, urlTemplate: string): { js: string } | { error: string } {
  const key = `${pattern}\u0000${urlTemplate}`;
  let outcome = checked.get(key);
  if (!outcome) {
    const r = compileOrError(pattern);
    const err = 'error' in r ? r.error : validateUrlTemplate(urlTemplate, pattern);
    outcome = err !== null ? { error: err } : { js: (r as { js: string }).js };
    if (checked.size >= MAX_CHECKED) checked.clear();
    checked.set(key, outcome);
  }
  return outcome;
}

/** Compiles the realm's linkifiers, skipping (and reporting) any that fail validation. */
export function compileLinkifiers(
  linkifiers: { id: number; pattern: string; urlTemplate: string }[],
): { compiled: CompiledLinkifier[]; errors: string[] } {
  const compiled: CompiledLinkifier[] = [];
  const errors: string[] = [];
  for (const l of linkifiers) {
    const outcome = checkLinkifier(l.pattern, l.urlTemplate);
    if ('error' in outcome) {
      errors.push(`linkifier ${l.id}: ${outcome.error}`);
      continue;
    }
    try {
      compiled.push({
        id: l.id,
        re: new RegExp(outcome.js, 'gu'),
        urlTemplate: l.urlTemplate,
        budget: { chars: MAX_SCAN_CHARS_PER_MESSAGE, matches: MAX_MATCHES_PER_MESSAGE },
      });
    } catch (e) {
      errors.push(`linkifier ${l.id}: ${(e as Error).message}`);
    }
  }
  return { compiled, errors };
}

// Zulip's boundaries: a match must start the text or follow whitespace or one of '"(,:<,
// and must end the text or be followed by something other than a letter or digit.
const BEFORE_OK = /[\s\p{Z}'"(,:<]/u;
const AFTER_BAD = /[\p{L}\p{N}]/u;

export interface LinkifierMatch {
  index: number;
  text: string;
  url: string;
}

/**
 * The first acceptable match of `l` in `text` at or after `from`, charging the linkifier's
 * per-message budget. Matches failing the boundary rule or producing an unsafe URL are skipped.
 */
export function findLinkifierMatch(l: CompiledLinkifier, text: string, from: number): LinkifierMatch | null {
  const limit = Math.min(text.length, MAX_TEXT_PER_APPLICATION);
  const scanned = limit === text.length ? text : text.slice(0, limit);
  let start = from;
  while (start < limit && l.budget.matches > 0 && l.budget.chars > 0) {
    l.re.lastIndex = start;
    const m = l.re.exec(scanned);
    const end = m ? m.index + m[0].length : limit;
    // Charge the text this search went over (patterns passed the backtracking checks).
    l.budget.chars -= Math.max(1, end - start);
    if (!m) return null;
    const before = m.index === 0 ? '' : text[m.index - 1]!;
    const after = end < text.length ? String.fromCodePoint(text.codePointAt(end)!) : '';
    const bounded = (before === '' || BEFORE_OK.test(before)) && !AFTER_BAD.test(after);
    if (m[0].length > 0 && bounded) {
      const url = expandUrlTemplate(l.urlTemplate, m.groups ?? {});
      if (isSafeUrl(url)) {
        l.budget.matches--;
        return { index: m.index, text: m[0], url };
      }
    }
    start = m.index + 1;
  }
  return null;
}
