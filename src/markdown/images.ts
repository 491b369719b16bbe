// Inline image previews, as the reference renders them: which links are images, the preview markup for uploads
// (a placeholder while thumbnails are pending, the thumbnail once made) and for external images (through the
// signed /external_content/ proxy, so clients never contact third parties), and the rewrite of a stored
// rendering once an upload's thumbnails are done. Pure: every input arrives as data in the RenderContext.
import { createHmac } from 'node:crypto';
import { escapeAttr, isUploadUrl } from './urls.js';

/** What the renderer knows of one uploaded image (the reference's MarkdownImageMetadata). */
export interface UploadPreview {
  /** The default thumbnail's URL; null while its thumbnails are still being made. */
  url: string | null;
  animated: boolean;
  /** Dimensions of the original as displayed (after EXIF rotation). */
  width: number;
  height: number;
  contentType: string;
  /** Name of the large format made for types browsers cannot show (HEIC, TIFF, AVIF), e.g. `4032x3024.webp`. */
  transcoded?: string;
}

/** The image-preview data of one render, supplied by the caller. */
export interface ImageRenderData {
  /** The realm's inline_image_preview setting. */
  enabled: boolean;
  /** The server's secret for signing /external_content/ URLs. */
  proxyKey: string;
  /** The uploaded images the content may link, by path ID; an upload missing here gets no preview. */
  uploads: Record<string, UploadPreview>;
}

/** The reference's URL of the spinner shown while thumbnails are made. */
export const LOADING_IMAGE = '/static/images/loading/loader-black.svg';
export const PROXY_PREFIX = '/external_content/';
/** Above this many distinct previewable links, a message gets no previews at all (the reference's limit). */
export const INLINE_PREVIEW_LIMIT_PER_MESSAGE = 24;

const IMAGE_EXTENSIONS = ['.bmp', '.gif', '.jpe', '.jpeg', '.jpg', '.png', '.webp'];
const ABSOLUTE = /^https?:\/\//i;

/** HMAC-SHA1 of the URL, as camo signs it; hex. */
export function proxyDigest(key: string, url: string): string {
  return createHmac('sha1', key).update(url, 'utf8').digest('hex');
}

/** `/external_content/<hmac>/<hex of the URL>`: the reference's (and camo's) image proxy URL. */
export function proxyUrl(key: string, url: string): string {
  return `${PROXY_PREFIX}${proxyDigest(key, url)}/${Buffer.from(url, 'utf8').toString('hex')}`;
}

function pathOf(url: string): string {
  try {
    return new URL(url, 'http://relative.invalid').pathname;
  } catch {
    return '';
  }
}

/** The path ID an upload link names (`/user_uploads/<path_id>`), decoded. */
export function uploadPathId(href: string): string | null {
  if (!isUploadUrl(href)) return null;
  try {
    return decodeURIComponent(href.slice('/user_uploads/'.length).split(/[?#]/, 1)[0]!);
  } catch {
    return null;
  }
}

/** github.com blob pages show their image at raw.githubusercontent.com (the reference's get_actual_image_url). */
function actualImageUrl(url: string): string {
  const m = /^https?:\/\/(?:[^/]+\.)?github\.com\/([^/]+)\/([^/]+)\/blob\/(.+)$/i.exec(url);
  return m ? `https://raw.githubusercontent.com/${m[1]}/${m[2]}/${m[3]}` : url;
}

function imgTag(attrs: [string, string][]): string {
  return `<img${attrs.map(([k, v]) => ` ${k}="${escapeAttr(v)}"`).join('')}>`;
}

/** The `<img>` of an upload: the spinner while pending, else the thumbnail (attributes in the reference's order). */
export function uploadImg(p: UploadPreview): string {
  const dims = `${p.width}x${p.height}`;
  if (p.url === null) return imgTag([['class', 'image-loading-placeholder'], ['data-original-dimensions', dims], ['src', LOADING_IMAGE]]);
  const attrs: [string, string][] = [];
  if (p.animated) attrs.push(['data-animated', 'true']);
  attrs.push(['data-original-content-type', p.contentType], ['data-original-dimensions', dims]);
  if (p.transcoded) attrs.push(['data-transcoded-image', p.transcoded]);
  attrs.push(['src', p.url]);
  return imgTag(attrs);
}

function previewDiv(href: string, title: string | undefined, img: string): string {
  const t = title === undefined ? '' : ` title="${escapeAttr(title)}"`;
  return `<div class="message_inline_image"><a href="${escapeAttr(href)}"${t}>${img}</a></div>`;
}

/**
 * The preview of a link to `href` titled `title` (undefined for a bare URL), or null when it is no image. With
 * no image data (a context that has none), uploads keep the plain full-size preview and external images none.
 */
export function imagePreview(href: string, title: string | undefined, images: ImageRenderData | undefined): string | null {
  if (images && !images.enabled) return null;
  const pathId = uploadPathId(href);
  if (pathId !== null) {
    if (!images) return isImagePath(href) ? previewDiv(href, title, imgTag([['src', href]])) : null;
    // Like the reference: only uploads whose header read as an image have a row, and so a preview.
    const p = Object.hasOwn(images.uploads, pathId) ? images.uploads[pathId]! : undefined;
    return p ? previewDiv(href, title, uploadImg(p)) : null;
  }
  if (!isImagePath(href)) return null;
  if (ABSOLUTE.test(href)) {
    if (!images) return null;
    const host = hostOf(href);
    if (host === 'pasteboard.co') return null;
    return previewDiv(href, title, imgTag([['src', proxyUrl(images.proxyKey, actualImageUrl(href))]]));
  }
  // A path on this server (/static/...) is shown as it is.
  return href.startsWith('/') && !href.startsWith('//') ? previewDiv(href, title, imgTag([['src', href]])) : null;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return '';
  }
}

function isImagePath(url: string): boolean {
  const path = pathOf(url).toLowerCase();
  return IMAGE_EXTENSIONS.some((ext) => path.endsWith(ext));
}

const PLACEHOLDER = /<div class="message_inline_image"><a href="\/user_uploads\/([^"]*)"((?: title="[^"]*")?)><img class="image-loading-placeholder"[^>]*><\/a><\/div>/g;

function unescapeAttr(s: string): string {
  return s.replace(/&(amp|lt|gt|quot|#39);/g, (_m, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);
}

/**
 * A stored rendering with the placeholders of upload `pathId` replaced by its thumbnail, or removed when
 * `preview` is null (thumbnailing failed); null when nothing changed. Only markup the renderer made can match:
 * text from users is escaped, so it never holds a raw `<div`.
 */
export function rewriteUploadPreviews(html: string, pathId: string, preview: UploadPreview | null): string | null {
  if (preview?.url === null) return null;
  let changed = false;
  const out = html.replace(PLACEHOLDER, (whole, path: string, title: string) => {
    if (uploadPathId(`/user_uploads/${unescapeAttr(path)}`) !== pathId) return whole;
    changed = true;
    return preview ? `<div class="message_inline_image"><a href="/user_uploads/${path}"${title}>${uploadImg(preview)}</a></div>` : '';
  });
  return changed ? out : null;
}

/** Path IDs whose previews in `html` are still placeholders. */
export function pendingUploadPreviews(html: string): string[] {
  const out = new Set<string>();
  for (const m of html.matchAll(PLACEHOLDER)) {
    const id = uploadPathId(`/user_uploads/${unescapeAttr(m[1]!)}`);
    if (id !== null) out.add(id);
  }
  return [...out];
}
