// Inline rules for @-mentions (users, groups, wildcards) and #**channel** / #**channel>topic** links.
import type { StateInline } from 'markdown-it';
import type { RenderEnv } from './types.js';
import { channelNarrowUrl, escapeAttr, escapeText } from './urls.js';

/** Token type whose `content` is finished HTML built (and escaped) at parse time. */
export const HTML_TOKEN = 'palaver_html';

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
// Zulip's lookbehinds: what may precede a mention / a channel link.
const BEFORE_MENTION = /[\s'"({[/<]/u;
const BEFORE_CHANNEL = /[\s'"(,:<]/u;

interface Found {
  html: string;
  /** Applied only when the rule really consumes the text (not in silent/lookahead mode). */
  effect?: (env: RenderEnv) => void;
}

/** `[^*]+` between `open` (at `from`) and the next `close`; returns the body and end index. */
function delimited(src: string, from: number, open: string, close: string): { body: string; end: number } | null {
  if (!src.startsWith(open, from)) return null;
  const bodyStart = from + open.length;
  const star = src.indexOf('*', bodyStart);
  if (star <= bodyStart || !src.startsWith(close, star)) return null;
  return { body: src.slice(bodyStart, star), end: star + close.length };
}

function userMention(name: string, silent: boolean, env: RenderEnv): Found | null {
  const cls = silent ? ' silent' : '';
  const at = silent ? '' : '@';
  if (STREAM_WILDCARDS.has(name)) {
    return {
      html: `<span class="user-mention channel-wildcard-mention${cls}" data-user-id="*">${at}${escapeText(name)}</span>`,
      effect: silent ? undefined : (e) => void (e.result.wildcards.stream = true),
    };
  }
  if (name === 'topic') {
    return {
      html: `<span class="topic-mention${cls}">${at}topic</span>`,
      effect: silent ? undefined : (e) => void (e.result.wildcards.topic = true),
    };
  }
  let user: { id: number; fullName: string } | undefined;
  const byId = /^(.*)\|(\d+)$/s.exec(name);
  if (byId) {
    user = env.ctx.userById(Number(byId[2]));
    if (user && byId[1] !== '' && user.fullName !== byId[1]) user = undefined;
  } else {
    user = env.ctx.userByName(name);
  }
  if (!user) return null;
  const id = user.id;
  return {
    html: `<span class="user-mention${cls}" data-user-id="${escapeAttr(String(id))}">${at}${escapeText(user.fullName)}</span>`,
    effect: silent ? undefined : (e) => void e.result.mentionedUserIds.add(id),
  };
}

function groupMention(name: string, silent: boolean, env: RenderEnv): Found | null {
  const group = env.ctx.groupByName(name);
  if (!group) return null;
  const id = group.id;
  const cls = silent ? ' silent' : '';
  return {
    html: `<span class="user-group-mention${cls}" data-user-group-id="${escapeAttr(String(id))}">${silent ? '' : '@'}${escapeText(group.name)}</span>`,
    effect: silent ? undefined : (e) => void e.result.mentionedGroupIds.add(id),
  };
}

function channelLink(body: string, env: RenderEnv): Found | null {
  // Like Zulip, try `channel>topic` first, then the whole text as a channel name.
  const gt = body.indexOf('>');
  const channel = gt > 0 ? env.ctx.channelByName(body.slice(0, gt)) : undefined;
  if (channel) return topicLinkHtml(channel, body.slice(gt + 1), env);
  const plain = env.ctx.channelByName(body);
  if (!plain) return null;
  const href = escapeAttr(channelNarrowUrl(plain.id, plain.name));
  return {
    html: `<a class="stream" data-stream-id="${escapeAttr(String(plain.id))}" href="${href}">#${escapeText(plain.name)}</a>`,
  };
}

function topicLinkHtml(channel: { id: number; name: string }, topic: string, env: RenderEnv): Found {
  const href = escapeAttr(channelNarrowUrl(channel.id, channel.name, topic));
  const shown = topic === '' ? `<em>${escapeText(env.ctx.emptyTopicDisplayName ?? 'general chat')}</em>` : escapeText(topic);
  const id = escapeAttr(String(channel.id));
  return { html: `<a class="stream-topic" data-stream-id="${id}" href="${href}">#${escapeText(channel.name)} &gt; ${shown}</a>` };
}

function emit(state: StateInline, silent: boolean, found: Found, end: number): boolean {
  if (!silent) {
    const token = state.push(HTML_TOKEN, '', 0);
    token.content = found.html;
    found.effect?.(state.env as RenderEnv);
  }
  state.pos = end;
  return true;
}

/** `@**Name**`, `@**Name|id**`, `@_**Name**` (silent), `@*group*`, `@_*group*`, wildcards. */
export function mentionRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x40 /* @ */) return false;
  if (start > 0 && !BEFORE_MENTION.test(src[start - 1]!)) return false;
  const isSilent = src[start + 1] === '_';
  const from = start + 1 + (isSilent ? 1 : 0);
  const env = state.env as RenderEnv;
  const user = delimited(src, from, '**', '**');
  if (user) {
    const found = userMention(user.body, isSilent, env);
    return found ? emit(state, silent, found, user.end) : false;
  }
  const group = delimited(src, from, '*', '*');
  if (group) {
    const found = groupMention(group.body, isSilent, env);
    return found ? emit(state, silent, found, group.end) : false;
  }
  return false;
}

/** `#**channel**` and `#**channel>topic**`. */
export function channelRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x23 /* # */) return false;
  if (start > 0 && !BEFORE_CHANNEL.test(src[start - 1]!)) return false;
  const link = delimited(src, start + 1, '**', '**');
  if (!link) return false;
  const found = channelLink(link.body, state.env as RenderEnv);
  return found ? emit(state, silent, found, link.end) : false;
}
