// URL helpers for rendering: the link allow-list, realm-relative rewriting and Zulip narrow URLs.
import { escapeHtml } from './escape.js';

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
// The reference's allowed link schemes: http, https, ftp, file and the HTML standard's safelisted schemes.
const ALLOWED_SCHEMES = new Set([
  'http', 'https', 'ftp', 'file', 'bitcoin', 'geo', 'im', 'irc', 'ircs', 'magnet', 'mailto', 'matrix', 'mms',
  'news', 'nntp', 'openpgp4fpr', 'sip', 'sms', 'smsto', 'ssh', 'tel', 'urn', 'webcal', 'wtai', 'xmpp',
]);

/** Escapes text placed between tags (quotes stay as they are, like Zulip's output). */
export function escapeText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Attribute-value escaping (all of & < > " '). */
export const escapeAttr = escapeHtml;

/**
 * The reference's `sanitize_url`: the href a link to `url` gets, or null when it may not be a link.
 * Allowed schemes only (never javascript:, data:, vbscript:); "a@b.c" becomes mailto:, a bare "host/path"
 * http://; "/path" and "#fragment" stay relative. Control characters and spaces are ignored when reading
 * the scheme, as browsers do ("java\tscript:" is "javascript:").
 */
export function sanitizeUrl(url: string): string | null {
  const s = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (s === '') return null;
  const m = SCHEME.exec(s);
  if (m) return ALLOWED_SCHEMES.has(m[1]!.toLowerCase()) ? url : null;
  if (s.startsWith('\\') || s.startsWith('/\\')) return null;
  if (s.startsWith('/') && !s.startsWith('//')) return url;
  if (s.startsWith('#')) return url;
  const firstSegment = s.split(/[/?#]/, 1)[0]!;
  if (firstSegment.includes(':')) return null;
  if (!s.startsWith('//') && s.split(/[?#]/, 1)[0]!.includes('@')) return `mailto:${url}`;
  return `http://${url.replace(/^\/\//, '')}`;
}

/** Whether `url` may be a link or image source at all (see sanitizeUrl). */
export function isSafeUrl(url: string): boolean {
  return sanitizeUrl(url) !== null;
}

/** The realm's own URL without a trailing slash. */
export function realmBase(realmUrl: string): string {
  return realmUrl.replace(/\/+$/, '');
}

/**
 * Links into the realm are made relative like Zulip does:
 * `REALM/#narrow/...` becomes `#narrow/...` and `REALM/user_uploads/...` becomes `/user_uploads/...`.
 */
export function relativizeRealmUrl(href: string, realmUrl: string): string {
  const base = realmBase(realmUrl);
  if (base === '' || !href.toLowerCase().startsWith(base.toLowerCase())) return href;
  const rest = href.slice(base.length);
  if (rest.startsWith('/#')) return rest.slice(1);
  if (rest.startsWith('/user_uploads/')) return rest;
  return href;
}

export function isUploadUrl(href: string): boolean {
  return href.startsWith('/user_uploads/');
}

const IMAGE_EXT = /\.(?:bmp|gif|jpe?g|png|webp|tiff?)$/i;

export function isUploadedImage(href: string): boolean {
  const path = href.split(/[?#]/, 1)[0]!;
  return isUploadUrl(href) && IMAGE_EXT.test(path);
}

/**
 * Zulip's hash-component encoding: percent-encode (keeping A-Z a-z 0-9 _ - ~ *),
 * then write '%' as '.' and '.' as '.2E'.
 */
export function encodeHashComponent(s: string): string {
  let out = '';
  for (const byte of new TextEncoder().encode(s)) {
    const c = String.fromCharCode(byte);
    if (/[A-Za-z0-9_~*-]/.test(c)) out += c;
    else if (c === '.') out += '.2E';
    else out += '.' + byte.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

/** `/#narrow/channel/ID-name`, with the topic appended when given. */
export function channelNarrowUrl(channelId: number, channelName: string, topic?: string): string {
  const url = `/#narrow/channel/${channelId}-${encodeHashComponent(channelName.replace(/ /g, '-'))}`;
  return topic === undefined ? url : `${url}/topic/${encodeHashComponent(topic)}`;
}

/** RFC 6570 simple-string expansion of one value: everything but unreserved characters is encoded. */
export function encodeTemplateValue(value: string): string {
  return encodeURIComponent(value).replace(
    /[!'()*]/g,
    (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}
