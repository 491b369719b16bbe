// URL helpers for rendering: the link allow-list, realm-relative rewriting and Zulip narrow URLs.
import { escapeHtml } from './escape.js';

const SCHEME = /^([a-zA-Z][a-zA-Z0-9+.-]*):/;
const ALLOWED_SCHEMES = new Set(['http', 'https', 'mailto']);

/** Escapes text placed between tags (quotes stay as they are, like Zulip's output). */
export function escapeText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

/** Attribute-value escaping (all of & < > " '). */
export const escapeAttr = escapeHtml;

/**
 * Only http, https and mailto URLs and relative references may become links.
 * Control characters and spaces are stripped first, as browsers ignore them
 * when reading a scheme ("java\tscript:" is "javascript:").
 */
export function isSafeUrl(url: string): boolean {
  const s = url.replace(/[\u0000-\u0020\u007f-\u009f]/g, '');
  if (s === '') return false;
  const m = SCHEME.exec(s);
  if (m) return ALLOWED_SCHEMES.has(m[1]!.toLowerCase());
  // A relative reference must not have a ':' in its first segment (RFC 3986 4.2);
  // this also refuses anything a browser could still read as a scheme.
  const firstSegment = s.split(/[/?#]/, 1)[0]!;
  return !firstSegment.includes(':') && !s.startsWith('\\') && !s.startsWith('/\\');
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
