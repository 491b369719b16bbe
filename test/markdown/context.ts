// Test fixtures for the Markdown renderer: a small realm context and an HTML safety checker.
import { defaultEmojiLookup } from '../../src/markdown/emoji.js';
import { topicKey } from '../../src/markdown/types.js';
import type { RenderContext } from '../../src/markdown/index.js';

export const REALM_URL = 'http://127.0.0.1:9991';

const users = [
  { id: 5, fullName: 'Iago' },
  { id: 6, fullName: 'King Hamlet' },
  { id: 7, fullName: 'Evil" onmouseover="alert(1)' },
  { id: 8, fullName: 'Former Colleague', isActive: false },
];
const groups = [
  { id: 3, name: 'support' },
  { id: 4, name: 'hax"or<b>' },
  { id: 5, name: 'old team', deactivated: true },
  { id: 6, name: 'role:administrators' },
];
const channels = [
  { id: 9, name: 'Verona' },
  { id: 10, name: 'core team' },
  { id: 11, name: 'bad"chan<script>' },
];

export const DEFAULT_LINKIFIERS = [
  { id: 1, pattern: '#(?P<id>[0-9]+)', urlTemplate: 'https://github.com/zulip/zulip/issues/{id}' },
  { id: 2, pattern: '(?P<proj>[A-Z]+)-(?P<num>[0-9]+)', urlTemplate: 'https://jira.example.com/browse/{proj}-{num}' },
];

export function makeContext(overrides: Partial<RenderContext> = {}): RenderContext {
  return {
    userByName: (name) => users.find((u) => u.fullName === name),
    userById: (id) => users.find((u) => u.id === id),
    groupByName: (name) => groups.find((g) => g.name === name),
    channelByName: (name) => channels.find((c) => c.name === name),
    emoji: (name) => {
      if (name === 'zulip') return { code: '1', type: 'realm_emoji', url: '/user_avatars/2/emoji/images/1.png' };
      if (name === 'evil') return { code: '2', type: 'realm_emoji', url: 'javascript:alert(1)' };
      if (name === 'quoted') return { code: '3', type: 'realm_emoji', url: '/e/a"onerror="alert(1).png' };
      return defaultEmojiLookup(name);
    },
    topicLatestMessageId: (key) => (key === topicKey(9, 'permalinked') ? 42 : undefined),
    linkifiers: DEFAULT_LINKIFIERS,
    realmUrl: REALM_URL,
    ...overrides,
  };
}

const TAGS = new Set([
  'p', 'br', 'strong', 'em', 'del', 'a', 'span', 'img', 'code', 'pre', 'div', 'ul', 'ol', 'li',
  'blockquote', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'time',
  // KaTeX's MathML and SVG (no script-capable elements among them).
  'math', 'semantics', 'mrow', 'mi', 'mn', 'mo', 'ms', 'mtext', 'mspace', 'msup', 'msub', 'msubsup', 'mfrac', 'msqrt',
  'mroot', 'mover', 'munder', 'munderover', 'mtable', 'mtr', 'mtd', 'mstyle', 'mpadded', 'mphantom', 'menclose',
  'annotation', 'svg', 'path', 'line',
]);
const ATTRS = new Set([
  'href', 'rel', 'target', 'title', 'class', 'data-user-id', 'data-user-group-id', 'data-stream-id',
  'data-code-language', 'aria-label', 'aria-hidden', 'role', 'alt', 'src', 'start', 'style', 'datetime',
  'xmlns', 'display', 'encoding', 'mathvariant', 'stretchy', 'lspace', 'rspace', 'separator', 'fence', 'accent',
  'width', 'height', 'viewbox', 'preserveaspectratio', 'd', 'x1', 'x2', 'y1', 'y2', 'stroke-width', 'columnalign',
  'rowspacing', 'columnspacing', 'mathcolor', 'minsize', 'maxsize', 'movablelimits', 'scriptlevel', 'displaystyle', 'notation',
]);
/** The link schemes the reference allows (never javascript:, data:, vbscript:). */
const SAFE_SCHEME = /^\s*(?:https?|ftp|file|mailto|tel|sms|smsto|irc|ircs|xmpp|sip|geo|magnet|webcal|ssh|news|nntp|urn|matrix|bitcoin|im|mms|openpgp4fpr|wtai):/i;
const TAG = /^<\/?([a-z0-9]+)((?:\s+[a-zA-Z0-9-]+="[^"<>]*")*)\s*>$/;
const ATTR = /\s+([a-zA-Z0-9-]+)="([^"<>]*)"/g;

/**
 * Why `html` is not made only of known tags with known, double-quoted attributes and safe
 * URLs (text may contain no raw '<' or '>'), or null when it is.
 */
export function unsafeHtmlReason(html: string): string | null {
  const parts = html.split(/(<[^<>]*>)/);
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!;
    if (i % 2 === 0) {
      if (/[<>]/.test(part)) return `raw angle bracket in text: ${JSON.stringify(part.slice(0, 80))}`;
      continue;
    }
    const m = TAG.exec(part);
    if (!m || !TAGS.has(m[1]!)) return `unexpected tag: ${part.slice(0, 80)}`;
    for (const [, name, value] of m[2]!.matchAll(ATTR)) {
      if (!ATTRS.has(name!.toLowerCase()) || name!.startsWith('on')) return `unexpected attribute ${name} in ${part.slice(0, 80)}`;
      if (name === 'style' && /url\(|expression|javascript|[<>\\]/i.test(value!)) return `unsafe style in ${part.slice(0, 80)}`;
      if ((name === 'href' || name === 'src') && /^\s*[a-z][a-z0-9+.-]*:/i.test(value!) && !SAFE_SCHEME.test(value!)) {
        return `unsafe URL in ${part.slice(0, 80)}`;
      }
    }
  }
  return null;
}
