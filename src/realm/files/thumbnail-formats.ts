// The reference's thumbnail formats: which are made for each upload, their names (`840x560.webp`,
// `840x560-anim.webp`), the stored list of what was made, and the URL written into a message's rendering.
import type { UploadPreview } from '../../markdown/index.js';
import type { ImageAttachment, ThumbnailFormat } from '../../model/files.js';

/** Made for every image; the first animated and the first still one are the defaults written into messages. */
export const THUMBNAIL_OUTPUT_FORMATS: ThumbnailFormat[] = [
  { extension: 'webp', maxWidth: 840, maxHeight: 560, animated: true },
  { extension: 'webp', maxWidth: 840, maxHeight: 560, animated: false },
];

/** Also made for types browsers cannot show inline (HEIC, TIFF, AVIF): a large still, turned for portraits. */
const TRANSCODED_FORMAT: ThumbnailFormat = { extension: 'webp', maxWidth: 4032, maxHeight: 3024, animated: false };

/** Upload types whose bytes are read as images at all (the reference's THUMBNAIL_ACCEPT_IMAGE_TYPES). */
export const THUMBNAIL_ACCEPT_IMAGE_TYPES = new Set([
  'image/avif', 'image/gif', 'image/heic', 'image/jpeg', 'image/png', 'image/tiff', 'image/webp', 'image/svg+xml',
]);

/** Image types browsers show inline, so no transcoded copy is needed (the reference's INLINE_MIME_TYPES, images). */
const INLINE_IMAGE_TYPES = new Set(['image/apng', 'image/avif', 'image/gif', 'image/jpeg', 'image/png', 'image/webp']);

export function formatName(f: ThumbnailFormat): string {
  return `${f.maxWidth}x${f.maxHeight}${f.animated ? '-anim' : ''}.${f.extension}`;
}

export function parseFormatName(name: string): ThumbnailFormat | null {
  const m = /^(\d{1,5})x(\d{1,5})(-anim)?\.(webp)$/.exec(name);
  return m ? { maxWidth: Number(m[1]), maxHeight: Number(m[2]), animated: m[3] !== undefined, extension: 'webp' } : null;
}

export const sameFormat = (a: ThumbnailFormat, b: ThumbnailFormat) => formatName(a) === formatName(b);

/** The formats an image should have: animated ones only for animations, a transcoded one for non-inline types. */
export function wantedFormats(img: Pick<ImageAttachment, 'width' | 'height' | 'frames' | 'contentType'>): ThumbnailFormat[] {
  const out = THUMBNAIL_OUTPUT_FORMATS.filter((f) => !f.animated || img.frames > 1);
  if (!INLINE_IMAGE_TYPES.has(img.contentType)) {
    const t = TRANSCODED_FORMAT;
    out.push(img.width >= img.height ? t : { ...t, maxWidth: t.maxHeight, maxHeight: t.maxWidth });
  }
  return out;
}

export function missingFormats(img: ImageAttachment): ThumbnailFormat[] {
  return wantedFormats(img).filter((f) => !img.thumbnails.some((s) => sameFormat(s, f)));
}

/** The storage key of one thumbnail, below the file storage's root. */
export const thumbnailKey = (pathId: string, format: ThumbnailFormat) => `thumbnail/${pathId}/${formatName(format)}`;

/** The reference's default thumbnail: the first output format whose animation matches the image's. */
export function defaultFormat(img: Pick<ImageAttachment, 'frames'>): ThumbnailFormat {
  return THUMBNAIL_OUTPUT_FORMATS.find((f) => f.animated === img.frames > 1) ?? THUMBNAIL_OUTPUT_FORMATS[0]!;
}

/** The renderer's view of an image: its default thumbnail's URL once any thumbnail exists, else a placeholder. */
export function uploadPreview(img: ImageAttachment): UploadPreview {
  const base = { width: img.width, height: img.height, contentType: img.contentType };
  if (img.thumbnails.length === 0) return { ...base, url: null, animated: false };
  const f = defaultFormat(img);
  const preview: UploadPreview = { ...base, url: `/user_uploads/${thumbnailKey(img.pathId, f)}`, animated: f.animated };
  if (!INLINE_IMAGE_TYPES.has(img.contentType)) {
    const largest = [...img.thumbnails].sort((a, b) => b.width * b.height - a.width * a.height)[0];
    if (largest) preview.transcoded = formatName(largest);
  }
  return preview;
}

/** The register's server_thumbnail_formats. */
export function serverThumbnailFormats(): { name: string; max_width: number; max_height: number; format: string; animated: boolean }[] {
  return THUMBNAIL_OUTPUT_FORMATS.map((f) => ({ name: formatName(f), max_width: f.maxWidth, max_height: f.maxHeight, format: f.extension, animated: f.animated }));
}
