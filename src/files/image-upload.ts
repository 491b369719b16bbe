// Storing an uploaded image whose type is told by its first bytes (custom emoji, the organization's icon and logos).
import { errors } from '../http/errors.js';
import type { FileStorage } from './storage.js';

/** The image formats accepted, by their first bytes; null for anything else. */
export function imageExtension(head: Buffer): string | null {
  if (head.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'png';
  if (head.subarray(0, 4).toString('latin1') === 'GIF8') return 'gif';
  if (head[0] === 0xff && head[1] === 0xd8 && head[2] === 0xff) return 'jpg';
  if (head.subarray(0, 4).toString('latin1') === 'RIFF' && head.subarray(8, 12).toString('latin1') === 'WEBP') return 'webp';
  return null;
}

/**
 * Streams the chunks to `tempKey`, then moves them to `finalKey(extension)`; a file that is not an image is removed
 * and refused with "Invalid image format". Returns the extension.
 */
export async function storeImage(storage: FileStorage, chunks: AsyncIterable<Buffer>, tempKey: string, finalKey: (extension: string) => string): Promise<string> {
  let head = Buffer.alloc(0);
  const tapped = (async function* () {
    for await (const c of chunks) {
      if (head.length < 12) head = Buffer.concat([head, c.subarray(0, 12 - head.length)]);
      yield c;
    }
  })();
  await storage.put(tempKey, tapped);
  const ext = imageExtension(head);
  if (!ext) {
    await storage.delete(tempKey);
    throw errors.badRequest('Invalid image format');
  }
  await storage.move(tempKey, finalKey(ext));
  return ext;
}
