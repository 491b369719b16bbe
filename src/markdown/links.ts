// Links after parsing: realm-relative hrefs, empty link text, result flags, inline image previews (src/markdown/images.ts).
import type { StateCore, Token } from 'markdown-it';
import { imagePreview, INLINE_PREVIEW_LIMIT_PER_MESSAGE } from './images.js';
import type { RenderEnv } from './types.js';
import { escapeAttr, isUploadedImage, isUploadUrl, relativizeRealmUrl, sanitizeUrl } from './urls.js';

/** Block token holding inline-image preview markup. */
export const PREVIEW_TOKEN = 'palaver_preview';

/** Index of the link_close matching the link_open at `open`. */
function closeOf(kids: Token[], open: number): number {
  let depth = 0;
  for (let k = open; k < kids.length; k++) {
    if (kids[k]!.type === 'link_open') depth++;
    if (kids[k]!.type === 'link_close' && --depth === 0) return k;
  }
  return kids.length;
}

/** Whether a paragraph's content is nothing but one auto-linked URL. */
function onlyAutoLink(kids: Token[]): boolean {
  const solid = kids.filter((t) => !(t.type === 'softbreak' || (t.type === 'text' && t.content.trim() === '')));
  return solid.length === 3 && solid[0]!.type === 'link_open' && solid[0]!.markup === 'autolink';
}

/** Processes the links of one inline token; returns preview markup for its images, and whether a bare link's
 *  paragraph gives way to its preview (the link's text is its href, like the reference's url == text). */
function processInline(block: Token, env: RenderEnv, make: (type: string) => Token, preview: boolean): { previews: string[]; bare: boolean } {
  const previews: string[] = [];
  let bare = false;
  const kids = block.children!;
  for (let k = 0; k < kids.length; k++) {
    const open = kids[k]!;
    if (open.type !== 'link_open') continue;
    let original = open.attrGet('href') ?? '';
    // Explicit links get the reference's sanitized form (scheme-less ones http://, addresses mailto:).
    if (open.markup !== 'autolink' && open.info !== 'linkifier') original = sanitizeUrl(original) ?? original;
    const href = relativizeRealmUrl(original, env.ctx.realmUrl);
    open.attrSet('href', href);
    const close = closeOf(kids, k);
    const inner = kids.slice(k + 1, close);
    if (inner.every((t) => t.type === 'text' && t.content.trim() === '')) {
      // [](url) and [  ](url) show the URL, like Zulip.
      const text = make('text');
      text.content = href;
      text.level = open.level + 1;
      kids.splice(k + 1, inner.length, text);
    }
    env.result.hasLink = true;
    if (isUploadUrl(href)) env.result.hasAttachment = true;
    if (isUploadedImage(href)) env.result.hasImage = true;
    if (preview && !env.previewed.has(href)) {
      const label = inner.map((t) => (t.type === 'text' ? t.content : '')).join('').trim();
      const named = label !== '' && label !== href;
      const html = imagePreview(href, named ? label : undefined, env.ctx.images);
      if (html !== null) {
        env.previewed.add(href);
        env.result.hasImage = true;
        previews.push(html);
        if (!named) bare = true;
      }
    }
  }
  return { previews, bare };
}

/** Distinct links outside quotes: above the reference's limit, a message gets no previews. */
function tooManyPreviewable(tokens: Token[], realmUrl: string): boolean {
  const hrefs = new Set<string>();
  let quoteDepth = 0;
  for (const block of tokens) {
    if (block.type === 'blockquote_open') quoteDepth++;
    if (block.type === 'blockquote_close') quoteDepth--;
    if (block.type !== 'inline' || !block.children || quoteDepth > 0) continue;
    for (const t of block.children) if (t.type === 'link_open') hrefs.add(relativizeRealmUrl(t.attrGet('href') ?? '', realmUrl));
  }
  return hrefs.size > INLINE_PREVIEW_LIMIT_PER_MESSAGE;
}

export function linkPass(state: StateCore): void {
  const env = state.env as RenderEnv;
  const make = (type: string): Token => new state.Token(type, '', 0);
  const out: Token[] = [];
  const tokens = state.tokens;
  let quoteDepth = 0;
  const previewing = !tooManyPreviewable(tokens, env.ctx.realmUrl);
  for (let i = 0; i < tokens.length; i++) {
    const block = tokens[i]!;
    out.push(block);
    if (block.type === 'blockquote_open') quoteDepth++;
    if (block.type === 'blockquote_close') quoteDepth--;
    if (block.type !== 'inline' || !block.children) continue;
    // Like Zulip: previews for paragraphs, but not for quoted ones.
    const inParagraph = tokens[i - 1]?.type === 'paragraph_open' && tokens[i + 1]?.type === 'paragraph_close';
    const { previews, bare } = processInline(block, env, make, previewing && inParagraph && quoteDepth === 0);
    if (previews.length === 0) continue;
    const preview = new state.Token(PREVIEW_TOKEN, 'div', 0);
    preview.block = true;
    preview.content = previews.join('');
    preview.level = block.level - 1;
    if (bare && onlyAutoLink(block.children)) {
      out.splice(out.length - 2, 2, preview); // a bare image URL: the preview replaces the paragraph
    } else {
      out.push(tokens[i + 1]!, preview);
    }
    i++; // the paragraph_close is already placed
  }
  state.tokens = out;
}

/** Links carry only their href: the reference's server emits no rel/target/title (clients add their own). */
export function renderLinkOpen(tokens: Token[], idx: number): string {
  return `<a href="${escapeAttr(tokens[idx]!.attrGet('href') ?? '')}">`;
}

export function renderPreview(tokens: Token[], idx: number): string {
  // Inside a tight list item the paragraph is hidden; the preview then sits inline in the <li>.
  const hiddenBefore = idx > 0 && tokens[idx - 1]!.hidden;
  return tokens[idx]!.content + (hiddenBefore ? '' : '\n');
}
