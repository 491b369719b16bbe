// Emoji rendering: the inline `:name:` rule, and finding literal unicode emoji in text.
import type { StateInline } from 'markdown-it';
import { emojiCodes, emojiCodeToText } from './emoji.js';
import { HTML_TOKEN } from './mentions.js';
import type { RenderContext, RenderEnv } from './types.js';
import { escapeAttr, escapeText, isSafeUrl } from './urls.js';

const NAME_SYNTAX = /^:([\p{L}\p{N}_+-]+):/u;
/** Longest `:name:` looked at; longer runs are not emoji. */
const MAX_NAME = 100;

/** `:zulip:`, the reference's built-in extra emoji (a realm emoji of that name comes first). */
const ZULIP_EMOJI = { code: 'zulip', type: 'realm_emoji', url: '/static/generated/emoji/images/emoji/unicode/zulip.png' } as const;

// The reference's emoticon conversions (its emoji_codes.json), applied when the author turned
// translate_emoticons on; an emoticon stands between terminal symbols (or the text's ends).
const EMOTICONS: Record<string, string> = {
  ':)': 'smile', '(:': 'smile', ':(': 'frown', '<3': 'heart', ':|': 'neutral', ':/': 'confused',
  ';)': 'wink', ':D': 'grinning', ':o': 'open_mouth', ':O': 'open_mouth', ':p': 'stuck_out_tongue',
  ':P': 'stuck_out_tongue',
};
const TERMINAL = `,.;?!()\\[\\] "'\n\t`; // as a character-class body
const EMOTICON_RE = new RegExp(
  `(?<![^${TERMINAL}])(?:${Object.keys(EMOTICONS).map(escapeRegExp).join('|')})(?![^${TERMINAL}])`,
  'g',
);

function escapeRegExp(s: string): string {
  return s.replace(/[\\^$.*+?()[\]{}|/]/g, '\\$&');
}

/** Emoticons in `text` as emoji hits (for authors with translate_emoticons). */
export function findEmoticons(text: string, ctx: RenderContext): EmojiHit[] {
  if (!ctx.translateEmoticons) return [];
  const hits: EmojiHit[] = [];
  for (const m of text.matchAll(EMOTICON_RE)) {
    const name = EMOTICONS[m[0]]!;
    const e = ctx.emoji(name);
    if (e?.type === 'unicode_emoji') hits.push({ index: m.index!, length: m[0].length, html: unicodeEmojiHtml(name, e.code) });
  }
  return hits;
}

/** Zulip's markup for a unicode emoji shown under `name`. */
export function unicodeEmojiHtml(name: string, code: string): string {
  const label = escapeAttr(name.replace(/_/g, ' '));
  return `<span aria-label="${label}" class="emoji emoji-${escapeAttr(code)}" role="img" title="${label}">:${escapeText(name)}:</span>`;
}

/** The HTML for `:name:`, or null when the name is unknown (or its image URL unsafe). */
export function emojiHtml(name: string, ctx: RenderContext): string | null {
  const e = ctx.emoji(name) ?? (name === 'zulip' ? ZULIP_EMOJI : undefined);
  if (!e) return null;
  if (e.type === 'realm_emoji') {
    if (!e.url || !isSafeUrl(e.url)) return null;
    const title = escapeAttr(name.replace(/_/g, ' '));
    return `<img alt=":${escapeAttr(name)}:" class="emoji" src="${escapeAttr(e.url)}" title="${title}">`;
  }
  if (!/^[0-9a-f]{4,6}(?:-[0-9a-f]{4,6})*$/.test(e.code)) return null;
  return unicodeEmojiHtml(name, e.code);
}

/** Inline rule for `:name:`. */
export function emojiNameRule(state: StateInline, silent: boolean): boolean {
  if (state.src.charCodeAt(state.pos) !== 0x3a /* : */) return false;
  const m = NAME_SYNTAX.exec(state.src.slice(state.pos, state.pos + MAX_NAME + 2));
  if (!m) return false;
  const html = emojiHtml(m[1]!, (state.env as RenderEnv).ctx);
  if (html === null) return false;
  if (!silent) state.push(HTML_TOKEN, '', 0).content = html;
  state.pos += m[0].length;
  return true;
}

// ---- literal unicode emoji ------------------------------------------------------------------

const VS16 = '\ufe0f';
const byText = new Map<string, [code: string, name: string]>();

function buildUnicodeRegex(): RegExp {
  const alternatives: string[] = [];
  for (const [code, name] of emojiCodes()) {
    const text = emojiCodeToText(code);
    byText.set(text, [code, name]);
    const chars = [...text];
    const escaped = chars.map(escapeRegExp);
    // A text-presentation character (like ™ or ↔) is only an emoji with VS16 after it.
    const single = chars.length === 1 && !/\p{Emoji_Presentation}/u.test(text);
    alternatives.push(single ? `${escaped[0]}${VS16}` : escaped.join(`${VS16}?`) + `${VS16}?`);
  }
  alternatives.sort((a, b) => b.length - a.length);
  return new RegExp(alternatives.join('|'), 'gu');
}

const UNICODE_EMOJI = buildUnicodeRegex();
const JOINERS = /^[\u200d\u{1f3fb}-\u{1f3ff}\u20e3\ufe0f]/u;

export interface EmojiHit {
  index: number;
  length: number;
  html: string;
}

/**
 * Unicode emoji from the table found in `text`. Characters that are part of a longer
 * sequence the table does not know (ZWJ sequences, skin tones) are left alone.
 */
export function findUnicodeEmoji(text: string): EmojiHit[] {
  if (!/[^\u0000-\u00ff]/.test(text)) return [];
  const hits: EmojiHit[] = [];
  UNICODE_EMOJI.lastIndex = 0;
  for (let m = UNICODE_EMOJI.exec(text); m; m = UNICODE_EMOJI.exec(text)) {
    const end = m.index + m[0].length;
    const prev = text[m.index - 1];
    if (prev === '\u200d' || JOINERS.test(text.slice(end, end + 2))) continue;
    const entry = byText.get(m[0].replace(/\ufe0f/g, '')) ?? byText.get(m[0]);
    if (!entry) continue;
    hits.push({ index: m.index, length: m[0].length, html: unicodeEmojiHtml(entry[1], entry[0]) });
  }
  return hits;
}
