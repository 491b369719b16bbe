// Reading and thumbnailing uploaded images with sharp (libvips): only the reference's loaders are enabled, image
// bombs are refused from the header before any pixel is decoded, and all work runs on libvips' own threads, never
// on the event loop. sharp (libvips) is loaded on the first image, not at import: about 0.1 s of CPU that a process
// which never reads an image (most test files) would spend.
import type sharp from 'sharp';
import type { Metadata, Sharp, SharpOptions } from 'sharp';
import type { StoredThumbnail, ThumbnailFormat } from '../model/files.js';

/** The reference's IMAGE_BOMB_TOTAL_PIXELS: about a quarter gigabyte of 24-bit pixels. */
export const IMAGE_BOMB_TOTAL_PIXELS = 90_000_000;
/** Animations: at least three frames must fit in a third of that budget (the reference's IMAGE_MAX_ANIMATED_PIXELS). */
export const IMAGE_MAX_ANIMATED_PIXELS = IMAGE_BOMB_TOTAL_PIXELS / 3;

let loaded: Promise<typeof sharp> | null = null;

/** sharp for `bytes`, loaded and configured on the first call. */
async function openImage(bytes: Buffer, options: SharpOptions): Promise<Sharp> {
  loaded ??= import('sharp').then(({ default: lib }) => {
    // Like the reference: every loader off, then only those of the accepted types on (no PDF, no ImageMagick, ...).
    lib.cache(false);
    lib.concurrency(1);
    lib.block({ operation: ['VipsForeignLoad'] });
    lib.unblock({
      operation: [
        'VipsForeignLoadHeif', // image/avif, image/heic
        'VipsForeignLoadNsgif', // image/gif
        'VipsForeignLoadJpeg',
        'VipsForeignLoadPng',
        'VipsForeignLoadTiff',
        'VipsForeignLoadWebp',
        'VipsForeignLoadSvg',
      ],
    });
    return lib;
  });
  return (await loaded)(bytes, options);
}

/** What an image's header says, as displayed (after EXIF rotation). */
export interface ImageHeader {
  width: number;
  height: number;
  frames: number;
}

/** The header of `bytes`, or null when they are no image we read or the image is too large to decode. */
export async function readHeader(bytes: Buffer): Promise<ImageHeader | null> {
  let meta: Metadata;
  try {
    meta = await (await openImage(bytes, { limitInputPixels: false })).metadata();
  } catch {
    return null;
  }
  const frames = meta.pages ?? 1;
  const width = meta.width;
  const height = meta.pageHeight ?? meta.height;
  if (!width || !height) return null;
  const limit = frames === 1 ? width * height > IMAGE_BOMB_TOTAL_PIXELS : width * height * Math.min(3, frames) > IMAGE_MAX_ANIMATED_PIXELS;
  if (limit) return null;
  const turned = (meta.orientation ?? 1) >= 5 && (meta.orientation ?? 1) <= 8;
  return turned ? { width: height, height: width, frames } : { width, height, frames };
}

/** One thumbnail of an image whose header passed readHeader: scaled down (never up) to fit `format`. */
export async function makeThumbnail(bytes: Buffer, header: ImageHeader, format: ThumbnailFormat): Promise<{ data: Buffer; stored: StoredThumbnail }> {
  let pages = 1;
  if (header.frames > 1 && format.animated) {
    // As many frames as fit the animation budget.
    const perFrame = header.width * header.height;
    pages = perFrame * header.frames < IMAGE_MAX_ANIMATED_PIXELS ? -1 : Math.max(1, Math.floor(IMAGE_MAX_ANIMATED_PIXELS / perFrame));
  }
  let img = await openImage(bytes, { limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS, pages });
  if (pages === 1) img = img.autoOrient();
  const { data, info } = await img
    .resize({ width: format.maxWidth, height: format.maxHeight, fit: 'inside', withoutEnlargement: true })
    .webp()
    .toBuffer({ resolveWithObject: true });
  const height = format.animated ? (info.pageHeight ?? info.height) : info.height;
  return { data, stored: { ...format, width: info.width, height, byteSize: data.length, contentType: 'image/webp' } };
}

/** The organization's icon (the reference's 100×100, cropped to fill) or logo (within 800×100): a still PNG; null
 *  when `bytes` are no image we read or too large to decode. */
export async function realmImage(bytes: Buffer, kind: 'icon' | 'logo'): Promise<Buffer | null> {
  if (!(await readHeader(bytes))) return null;
  const img = (await openImage(bytes, { limitInputPixels: IMAGE_BOMB_TOTAL_PIXELS })).autoOrient();
  const sized = kind === 'icon' ? img.resize(100, 100, { fit: 'cover' }) : img.resize({ width: 800, height: 100, fit: 'inside', withoutEnlargement: true });
  try {
    return await sized.png().toBuffer();
  } catch {
    return null;
  }
}
