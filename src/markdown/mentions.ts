// Inline rules for @-mentions (users, groups, wildcards) and #**channel**, #**channel>topic**, #**channel>topic@id** links.
import type { StateCore, StateInline } from 'markdown-it';
import { topicKey, type MentionableUser, type RenderEnv } from './types.js';
import { DEFAULT_EMPTY_TOPIC_DISPLAY_NAME } from '../model/messages.js';
import { channelNarrowUrl, escapeAttr, escapeText } from './urls.js';

/** Token type whose `content` is finished HTML built (and escaped) at parse time. */
export const HTML_TOKEN = 'palaver_html';
/** A mention: loud and silent HTML and its effect on the result, settled once its quote depth is known. */
const MENTION_TOKEN = 'palaver_mention';

const STREAM_WILDCARDS = new Set(['all', 'everyone', 'stream', 'channel']);
// The reference's BEFORE_MENTION_ALLOWED_REGEX: what may precede a mention or a channel link.
const BEFORE_MENTION = /[\s'"({[/<]/u;

// System groups are shown by the names the reference's clients give them.
const SYSTEM_GROUP_NAMES: Record<string, string> = {
  'role:internet': 'Everyone on the internet',
  'role:everyone': 'Everyone including guests',
  'role:members': 'Everyone except guests',
  'role:fullmembers': 'Full members',
  'role:moderators': 'Moderators',
  'role:administrators': 'Administrators',
  'role:owners': 'Owners',
  'role:nobody': 'Nobody',
};

interface Found {
  html: string;
  /** The same mention made silent (inside a quote); absent for links. */
  silentHtml?: string;
  /** Applied only to a loud mention outside quotes. */
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

function span(cls: string, attrs: string, text: string, silent: boolean): string {
  return `<span class="${cls}${silent ? ' silent' : ''}"${attrs}>${silent ? '' : '@'}${escapeText(text)}</span>`;
}

function mentionOf(cls: string, attrs: string, text: string, silent: boolean, effect: (env: RenderEnv) => void): Found {
  return {
    html: span(cls, attrs, text, silent),
    silentHtml: span(cls, attrs, text, true),
    effect: silent ? undefined : effect,
  };
}

function userMention(name: string, silent: boolean, env: RenderEnv): Found | null {
  if (STREAM_WILDCARDS.has(name)) {
    return mentionOf('user-mention channel-wildcard-mention', ' data-user-id="*"', name, silent, (e) => void (e.result.wildcards.stream = true));
  }
  if (name === 'topic') return mentionOf('topic-mention', '', 'topic', silent, (e) => void (e.result.wildcards.topic = true));
  let user: MentionableUser | undefined;
  const byId = /^(.*)\|(\d+)$/s.exec(name);
  if (byId) {
    user = env.ctx.userById(Number(byId[2]));
    if (user && byId[1] !== '' && user.fullName !== byId[1]) user = undefined;
  } else {
    user = env.ctx.userByName(name);
  }
  if (!user) return null;
  const id = user.id;
  const attrs = ` data-user-id="${escapeAttr(String(id))}"`;
  // Mentions of deactivated users are silent, as the reference renders them.
  return mentionOf('user-mention', attrs, user.fullName, silent || user.isActive === false, (e) => addOnce(e.result.mentionedUserIds, id));
}

function groupMention(name: string, silent: boolean, env: RenderEnv): Found | null {
  const group = env.ctx.groupByName(name);
  if (!group) return null;
  const id = group.id;
  const attrs = ` data-user-group-id="${escapeAttr(String(id))}"`;
  const shown = SYSTEM_GROUP_NAMES[group.name] ?? group.name;
  return mentionOf('user-group-mention', attrs, shown, silent || group.deactivated === true, (e) => addOnce(e.result.mentionedGroupIds, id));
}

function addOnce(ids: number[], id: number): void {
  if (!ids.includes(id)) ids.push(id);
}

/** `#**channel>topic@123**`, `#**channel>topic**` or `#**channel**`, tried in the reference's order. */
function channelLink(body: string, env: RenderEnv): Found | null {
  const message = /^([^>]+)>(.+)@(\d+)$/s.exec(body);
  const inMessage = message ? env.ctx.channelByName(message[1]!) : undefined;
  if (message && inMessage) {
    const href = escapeAttr(`${channelNarrowUrl(inMessage.id, inMessage.name, message[2]!)}/near/${message[3]}`);
    return { html: `<a class="message-link" href="${href}">#${escapeText(inMessage.name)} &gt; ${topicText(message[2]!, env)} @ 💬</a>` };
  }
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

function topicText(topic: string, env: RenderEnv): string {
  return topic === '' ? `<em>${escapeText(env.ctx.emptyTopicDisplayName ?? DEFAULT_EMPTY_TOPIC_DISPLAY_NAME)}</em>` : escapeText(topic);
}

function topicLinkHtml(channel: { id: number; name: string }, topic: string, env: RenderEnv): Found {
  const latest = env.ctx.topicLatestMessageId?.(topicKey(channel.id, topic));
  const href = escapeAttr(channelNarrowUrl(channel.id, channel.name, topic) + (latest === undefined ? '' : `/with/${latest}`));
  const id = escapeAttr(String(channel.id));
  return { html: `<a class="stream-topic" data-stream-id="${id}" href="${href}">#${escapeText(channel.name)} &gt; ${topicText(topic, env)}</a>` };
}

function emit(state: StateInline, silent: boolean, found: Found, end: number): boolean {
  if (!silent) {
    const token = state.push(found.silentHtml === undefined ? HTML_TOKEN : MENTION_TOKEN, '', 0);
    token.content = found.html;
    token.meta = found;
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

/** `#**channel**`, `#**channel>topic**` and `#**channel>topic@message**`. */
export function channelRule(state: StateInline, silent: boolean): boolean {
  const src = state.src;
  const start = state.pos;
  if (src.charCodeAt(start) !== 0x23 /* # */) return false;
  if (start > 0 && !BEFORE_MENTION.test(src[start - 1]!)) return false;
  const link = delimited(src, start + 1, '**', '**');
  if (!link) return false;
  const found = channelLink(link.body, state.env as RenderEnv);
  return found ? emit(state, silent, found, link.end) : false;
}

/**
 * Core rule: mentions inside quotes (`>` and ```quote) are silent, as the reference rewrites them; the others
 * count towards the result's mentions.
 */
export function settleMentions(state: StateCore): void {
  const env = state.env as RenderEnv;
  let quoteDepth = 0;
  for (const block of state.tokens) {
    if (block.type === 'blockquote_open') quoteDepth++;
    if (block.type === 'blockquote_close') quoteDepth--;
    for (const token of block.children ?? []) {
      if (token.type !== MENTION_TOKEN) continue;
      const found = token.meta as Found;
      token.type = HTML_TOKEN;
      if (quoteDepth > 0) token.content = found.silentHtml!;
      else found.effect?.(env);
    }
  }
}
