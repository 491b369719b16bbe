// `<time:…>` global times, as the reference renders them: a <time datetime="…Z"> carrying the author's text,
// or a `timestamp-error` span. The text is read the way the reference's dateutil parser reads the common
// shapes (ISO 8601, "Jun 5th 2017, 10:30PM", "31 Dec 2017 5:30 am IST", weekday names, UTC offsets, zone
// abbreviations); failing that, as UNIX seconds. Parts left out default to today, midnight, UTC.
import type { StateInline } from 'markdown-it';
import { HTML_TOKEN } from './mentions.js';
import { escapeAttr, escapeText } from './urls.js';

/** Longest `<time:…>` body looked at. */
const MAX_TIME_TEXT = 200;

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
// Zone abbreviations (minutes east of UTC), as the reference's common_timezones resolves them.
const ZONES: Record<string, number> = {
  utc: 0, gmt: 0, z: 0, ut: 0, wet: 0, bst: 60, ist: 330, cet: 60, cest: 120, eet: 120, eest: 180, msk: 180,
  est: -300, edt: -240, cst: -360, cdt: -300, mst: -420, mdt: -360, pst: -480, pdt: -420, akst: -540,
  akdt: -480, hst: -600, jst: 540, kst: 540, hkt: 480, sgt: 480, awst: 480, acst: 570, aest: 600, aedt: 660,
  nzst: 720, nzdt: 780, wib: 420, pkt: 300, brt: -180, art: -180,
};

interface Parts {
  year?: number;
  month?: number;
  day?: number;
  hour?: number;
  minute?: number;
  second?: number;
  micro?: number;
  offset?: number;
  pm?: boolean;
  /** The month came from a bare number, so a month name may still take its place. */
  numericMonth?: boolean;
}

function monthOf(word: string): number | undefined {
  const i = MONTHS.indexOf(word.slice(0, 3));
  return i >= 0 && (word.length === 3 || 'january february march april may june july august september october november december'.split(' ')[i]!.startsWith(word) || word === 'sept') ? i + 1 : undefined;
}

function isWeekday(word: string): boolean {
  const i = WEEKDAYS.indexOf(word.slice(0, 3));
  return i >= 0 && (word.length === 3 || 'monday tuesday wednesday thursday friday saturday sunday'.split(' ')[i]!.startsWith(word));
}

/** Assigns a bare number to the first free date field, like dateutil (month before day for "6/5"). */
function placeNumber(p: Parts, token: string): boolean {
  const n = Number(token);
  if (token.length === 4 || n > 31) {
    if (p.year !== undefined) return false;
    p.year = n;
  } else if (p.day === undefined && p.month !== undefined) {
    p.day = n;
  } else if (p.month === undefined && p.day === undefined && n <= 12 && p.year === undefined) {
    p.month = n;
    p.numericMonth = true;
  } else if (p.day === undefined) {
    p.day = n;
  } else if (p.year === undefined) {
    p.year = token.length <= 2 ? 2000 + n - (n >= 69 ? 100 : 0) : n;
  } else {
    return false;
  }
  return true;
}

/** An instant: whole milliseconds since the epoch and the microseconds within its second. */
interface Instant {
  ms: number;
  micro: number;
}

function parseDate(text: string, now: Date): Instant | null {
  const p: Parts = {};
  const iso = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?)?\s*(Z|[+-]\d{2}:?\d{2})?$/i.exec(text);
  if (iso) {
    [p.year, p.month, p.day] = [Number(iso[1]), Number(iso[2]), Number(iso[3])];
    if (iso[4] !== undefined) [p.hour, p.minute, p.second] = [Number(iso[4]), Number(iso[5]), Number(iso[6] ?? 0)];
    if (iso[7] !== undefined) p.micro = Number(iso[7].padEnd(6, '0'));
    if (iso[8] !== undefined) p.offset = offsetMinutes(iso[8]);
    return build(p, now);
  }
  const tokens = text.toLowerCase().match(/\d+(?:st|nd|rd|th)\b|\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?|[+-]\d{2}:?\d{2}|\d+|[a-z]+|[^\s\da-z]/g);
  if (!tokens) return null;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (/^[,./-]$/.test(t) || t === 'at' || t === 'of' || t === 'on') continue;
    let m: RegExpExecArray | null;
    if ((m = /^(\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/.exec(t))) {
      if (p.hour !== undefined) return null;
      [p.hour, p.minute, p.second] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
      if (m[4] !== undefined) p.micro = Number(m[4].padEnd(6, '0'));
    } else if ((m = /^(\d+)(?:st|nd|rd|th)$/.exec(t))) {
      if (p.day !== undefined) return null;
      p.day = Number(m[1]);
    } else if (/^[+-]\d{2}:?\d{2}$/.test(t) && p.hour !== undefined) {
      p.offset = offsetMinutes(t);
    } else if (/^\d+$/.test(t)) {
      const next = tokens[i + 1];
      if ((next === 'am' || next === 'pm' || next === 'a' || next === 'p') && p.hour === undefined && Number(t) <= 12) {
        [p.hour, p.minute, p.second] = [Number(t), 0, 0];
      } else if (!placeNumber(p, t)) {
        return null;
      }
    } else if (t === 'am' || t === 'pm' || ((t === 'a' || t === 'p') && tokens[i + 1] === '.')) {
      if (p.hour === undefined || p.hour > 12) return null;
      p.pm = t[0] === 'p';
      if (t.length === 1) i += 3; // "p.m."
    } else if (monthOf(t) !== undefined && (p.month === undefined || (p.numericMonth && p.day === undefined))) {
      // A named month makes an earlier bare number ("05 Jun") the day.
      if (p.month !== undefined) p.day = p.month;
      p.month = monthOf(t);
      p.numericMonth = false;
    } else if (isWeekday(t)) {
      continue;
    } else if (ZONES[t] !== undefined && p.offset === undefined) {
      p.offset = ZONES[t];
    } else {
      return null;
    }
  }
  if (p.pm !== undefined && p.hour !== undefined) p.hour = (p.hour % 12) + (p.pm ? 12 : 0);
  return build(p, now);
}

function offsetMinutes(s: string): number {
  if (s.toLowerCase() === 'z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(s)!;
  return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3]));
}

function build(p: Parts, now: Date): Instant | null {
  if (p.year === undefined && p.month === undefined && p.day === undefined && p.hour === undefined) return null;
  const year = p.year ?? now.getUTCFullYear();
  const month = p.month ?? now.getUTCMonth() + 1;
  const day = p.day ?? now.getUTCDate();
  const [hour, minute, second] = [p.hour ?? 0, p.minute ?? 0, p.second ?? 0];
  if (year < 1 || year > 9999 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null;
  if (day < 1 || new Date(Date.UTC(year, month - 1, day)).getUTCDate() !== day) return null;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second) - (p.offset ?? 0) * 60_000;
  return { ms, micro: p.micro ?? 0 };
}

/** The reference's `isoformat()` of a UTC time, with `Z` for `+00:00`. */
function isoUtc({ ms, micro }: Instant): string {
  const base = new Date(ms).toISOString().slice(0, 19);
  return `${base}${micro === 0 ? '' : '.' + String(micro).padStart(6, '0')}Z`;
}

/** The UTC instant a `<time:…>` text names, or null. */
export function parseTimestamp(text: string, now = new Date()): string | null {
  const trimmed = text.trim();
  const date = parseDate(trimmed, now);
  if (date) return isoUtc(date);
  if (/^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i.test(trimmed)) {
    const ms = Number(trimmed) * 1000;
    if (Number.isFinite(ms) && ms >= -62135596800000 && ms <= 253402300799000) {
      const whole = Math.floor(ms / 1000) * 1000;
      return isoUtc({ ms: whole, micro: Math.round((ms - whole) * 1000) % 1_000_000 });
    }
  }
  return null;
}

/** Inline rule for `<time:…>` (body up to the first `>`). */
export function timestampRule(state: StateInline, silent: boolean): boolean {
  const { src, pos } = state;
  if (!src.startsWith('<time:', pos)) return false;
  const limit = Math.min(state.posMax, pos + 6 + MAX_TIME_TEXT + 1);
  let close = pos + 6;
  while (close < limit && src[close] !== '>') close++;
  if (close >= limit) return false;
  if (!silent) {
    const text = src.slice(pos + 6, close);
    const iso = parseTimestamp(text);
    state.push(HTML_TOKEN, '', 0).content =
      iso === null
        ? `<span class="timestamp-error">Invalid time format: ${escapeText(text)}</span>`
        : `<time datetime="${escapeAttr(iso)}">${escapeText(text)}</time>`;
  }
  state.pos = close + 1;
  return true;
}
