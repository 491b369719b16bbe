// Linkifiers: validation of user patterns and URL templates, compilation on RE2 (linear-time matching, as the
// reference does) and bounded matching.
import { RE2JS, RE2JSSyntaxException } from 're2js';
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

// RE2's own words for its parse errors (what the reference reports), by the description re2js gives.
const RE2_ERROR_TEXT: Record<string, string> = {
  'invalid character class range': 'invalid character class range',
  'invalid escape sequence': 'invalid escape sequence',
  'invalid named capture': 'invalid named capture group',
  'duplicate capture group name': 'invalid named capture group',
  'invalid or unsupported Perl syntax': 'invalid perl operator',
  'invalid nested repetition operator': 'bad repetition operator',
  'invalid repeat count': 'bad repetition operator',
  'missing closing ]': 'missing ]',
  'missing closing )': 'missing )',
  'missing argument to repetition operator': 'no argument for repetition operator',
  'trailing backslash at end of expression': 'trailing \\',
  'unexpected )': 'unexpected )',
  'expression too large': 'pattern too large - compile failed',
  'expression nests too deeply': 'pattern too large - compile failed',
};

/** Zulip's text for a pattern RE2 refuses: "Bad regular expression: <RE2's error>". */
function re2Error(e: unknown): string {
  if (!(e instanceof RE2JSSyntaxException)) return 'Unknown regular expression error';
  const description = e.getDescription();
  let text = RE2_ERROR_TEXT[description] ?? description;
  let arg = e.getPattern();
  // RE2 names lookbehinds as such; re2js takes them for a named group.
  if (arg && /^\(\?<[=!]/.test(arg)) [text, arg] = ['invalid perl operator', arg.slice(0, 4)];
  return `Bad regular expression: ${arg ? `${text}: ${arg}` : text}`;
}

interface Checked {
  re: RE2JS;
  /** The pattern's named groups. */
  names: string[];
}

/** Compiles a pattern as RE2 does (Python's `(?P<name>…)` is RE2 syntax); lookarounds and backreferences are refused. */
function compileOrError(pattern: string): Checked | { error: string } {
  if (pattern.length === 0) return { error: 'Pattern is empty.' };
  if (pattern.length > MAX_PATTERN_LENGTH) {
    return { error: `Pattern is too long (at most ${MAX_PATTERN_LENGTH} characters).` };
  }
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch (e) {
    return { error: re2Error(e) };
  }
  if (re.matcher('').find()) return { error: 'Pattern must not match an empty string.' };
  return { re, names: Object.keys(re.namedGroups()) };
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

/** Validation outcome per (pattern, template): the compiled pattern, or why it is refused. */
const checked = new Map<string, Checked | { error: string }>();
const MAX_CHECKED = 2_000;

function checkLinkifier(pattern: string, urlTemplate: string): Checked | { error: string } {
  const key = `${pattern}\u0000${urlTemplate}`;
  let outcome = checked.get(key);
  if (!outcome) {
    const r = compileOrError(pattern);
    const err = 'error' in r ? r.error : validateUrlTemplate(urlTemplate, pattern);
    outcome = err !== null ? { error: err } : r;
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
    compiled.push({
      id: l.id,
      re: outcome.re,
      groupNames: outcome.names,
      urlTemplate: l.urlTemplate,
      budget: { chars: MAX_SCAN_CHARS_PER_MESSAGE, matches: MAX_MATCHES_PER_MESSAGE },
    });
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
 * RE2 finds each match in time linear in the text; the budget bounds the searches a message may start.
 */
export function findLinkifierMatch(l: CompiledLinkifier, text: string, from: number): LinkifierMatch | null {
  const limit = Math.min(text.length, MAX_TEXT_PER_APPLICATION);
  const matcher = l.re.matcher(limit === text.length ? text : text.slice(0, limit));
  let start = from;
  while (start < limit && l.budget.matches > 0 && l.budget.chars > 0) {
    const found = matcher.find(start);
    const index = found ? matcher.start() : limit;
    const end = found ? matcher.end() : limit;
    l.budget.chars -= Math.max(1, end - start);
    if (!found) return null;
    const before = index === 0 ? '' : text[index - 1]!;
    const after = end < text.length ? String.fromCodePoint(text.codePointAt(end)!) : '';
    const bounded = (before === '' || BEFORE_OK.test(before)) && !AFTER_BAD.test(after);
    if (end > index && bounded) {
      const groups: Record<string, string | undefined> = {};
      for (const name of l.groupNames) groups[name] = matcher.group(name) ?? undefined;
      const url = expandUrlTemplate(l.urlTemplate, groups);
      if (isSafeUrl(url)) {
        l.budget.matches--;
        return { index, text: text.slice(index, end), url };
      }
    }
    start = index + 1;
  }
  return null;
}
