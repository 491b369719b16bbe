// Core rule over inline text outside links: applies linkifiers, then turns unicode emoji into spans.
import type { StateCore, Token } from 'markdown-it';
import { findEmoticons, findUnicodeEmoji } from './emoji-rules.js';
import { findLinkifierMatch, type LinkifierMatch } from './linkifiers.js';
import { HTML_TOKEN } from './mentions.js';
import type { CompiledLinkifier, RenderEnv } from './types.js';

type Make = (type: string, tag: string, nesting: -1 | 0 | 1) => Token;

/** The leftmost match among all linkifiers (ties go to the earlier linkifier), from `from` on. */
function nextMatch(
  linkifiers: CompiledLinkifier[],
  cache: (LinkifierMatch | null | undefined)[],
  text: string,
  from: number,
): LinkifierMatch | null {
  let best: LinkifierMatch | null = null;
  for (let k = 0; k < linkifiers.length; k++) {
    let m = cache[k];
    if (m === undefined || (m !== null && m.index < from)) {
      m = findLinkifierMatch(linkifiers[k]!, text, from);
      cache[k] = m;
    }
    if (m && (best === null || m.index < best.index)) best = m;
  }
  return best;
}

function textToken(make: Make, content: string, level: number): Token {
  const t = make('text', '', 0);
  t.content = content;
  t.level = level;
  return t;
}

/** Splits one text token into text, emoji and linkifier-link tokens. */
function splitText(token: Token, env: RenderEnv, make: Make): Token[] | null {
  const text = token.content;
  const out: Token[] = [];
  const level = token.level;
  const pushPlain = (s: string): void => {
    let last = 0;
    const emoticons = findEmoticons(s, env.ctx);
    const unicode = findUnicodeEmoji(s).filter((u) => !emoticons.some((e) => u.index < e.index + e.length && e.index < u.index + u.length));
    for (const hit of [...emoticons, ...unicode].sort((a, b) => a.index - b.index)) {
      if (hit.index > last) out.push(textToken(make, s.slice(last, hit.index), level));
      const html = make(HTML_TOKEN, '', 0);
      html.content = hit.html;
      out.push(html);
      last = hit.index + hit.length;
    }
    if (last < s.length) out.push(textToken(make, s.slice(last), level));
  };

  const cache: (LinkifierMatch | null | undefined)[] = [];
  let pos = 0;
  for (let m = nextMatch(env.linkifiers, cache, text, 0); m; m = nextMatch(env.linkifiers, cache, text, pos)) {
    pushPlain(text.slice(pos, m.index));
    const open = make('link_open', 'a', 1);
    open.attrs = [['href', m.url]];
    open.level = level;
    open.info = 'linkifier';
    out.push(open, textToken(make, m.text, level + 1));
    const close = make('link_close', 'a', -1);
    close.level = level;
    close.info = 'linkifier';
    out.push(close);
    pos = m.index + m.text.length;
  }
  pushPlain(text.slice(pos));
  return out.length === 1 && out[0]!.type === 'text' ? null : out;
}

export function textPass(state: StateCore): void {
  const env = state.env as RenderEnv;
  const make: Make = (type, tag, nesting) => new state.Token(type, tag, nesting);
  for (const block of state.tokens) {
    if (block.type !== 'inline' || !block.children) continue;
    const children: Token[] = [];
    let linkDepth = 0;
    for (const child of block.children) {
      if (child.type === 'link_open') linkDepth++;
      if (child.type === 'link_close') linkDepth--;
      const parts = child.type === 'text' && linkDepth === 0 && child.content !== '' ? splitText(child, env, make) : null;
      if (parts) children.push(...parts);
      else children.push(child);
    }
    block.children = children;
  }
}
