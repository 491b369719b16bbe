// Plain text that no Markdown rule touches: short words and sentence punctuation render as one paragraph of the
// same text, so the renderer's answer is known without running it (cheap enough for the event loop).
import { resultOf, type RenderContext, type RenderResult } from './types.js';

/** Longest content answered here; anything longer goes to the renderer. */
export const PLAIN_TEXT_MAX_LENGTH = 1_000;

/**
 * Letters, digits, single spaces and , ? ! ' - within a line; a letter first (no list, heading or code block can
 * start), no space last (no hard break), and a '.' only before a space or at the end (no domain, no "1." list).
 * None of these characters starts a mention, emoji, emoticon, link, escape, entity or any block.
 */
const PLAIN_CHARS = /^[A-Za-z][A-Za-z0-9 ,.?!'-]*$/;
const NOT_PLAIN = / {2}| $|\.[^ ]/;

/**
 * The renderer's result for `content` when it is plain text (as above) and the realm has no linkifiers (the
 * context's `linkifiers`: all a plain text needs of it, so callers need not build the rest); else undefined.
 */
export function renderPlainText(content: string, linkifiers: RenderContext['linkifiers']): RenderResult | undefined {
  if (content.length > PLAIN_TEXT_MAX_LENGTH || linkifiers.length > 0) return undefined;
  if (!PLAIN_CHARS.test(content) || NOT_PLAIN.test(content)) return undefined;
  return resultOf(`<p>${content}</p>`);
}
