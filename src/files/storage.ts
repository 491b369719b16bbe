// Where file bytes live: a small backend interface, and the local-disk backend (below DATA_DIR/uploads).
import { createReadStream } from 'node:fs';
import { mkdir, open, readdir, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

export interface ByteRange {
  /** First and last byte, inclusive. */
  start: number;
  end: number;
}

/** A stored file as served: where its bytes are, how many, and the type and name it is served with. */
export interface StoredFile {
  key: string;
  size: number;
  contentType: string;
  name: string;
}

export interface FileStorage {
  /** Stores a new file from `chunks`, whole or not at all; its size. */
  put(key: string, chunks: AsyncIterable<Buffer>): Promise<number>;
  /** Appends `chunks` to a file whose size is `offset` (created when absent). What arrived before `chunks` failed is
   *  kept; the new size is returned either way, with the failure when there was one. */
  append(key: string, offset: number, chunks: AsyncIterable<Buffer>): Promise<{ size: number; error?: unknown }>;
  /** The file's size; null when there is none. */
  size(key: string): Promise<number | null>;
  read(key: string, range?: ByteRange): AsyncIterable<Buffer>;
  move(from: string, to: string): Promise<void>;
  /** Removes a file if it exists. */
  delete(key: string): Promise<void>;
  /** The names directly below a key prefix (a folder). */
  list(prefix: string): Promise<string[]>;
}

/** Keys are '/'-separated names the server made; anything that could leave the root is refused. */
function checkKey(key: string): void {
  if (key === '' || key.startsWith('/') || key.includes('\0') || key.split('/').some((p) => p === '' || p === '.' || p === '..')) {
    throw new Error(`invalid storage key ${JSON.stringify(key)}`);
  }
}

export class LocalDiskStorage implements FileStorage {
  constructor(readonly root: string) {}

  private file(key: string): string {
    checkKey(key);
    return path.join(this.root, ...key.split('/'));
  }

  async put(key: string, chunks: AsyncIterable<Buffer>): Promise<number> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const temp = `${target}.${randomBytes(6).toString('hex')}.part`;
    const fh = await open(temp, 'wx');
    let size = 0;
    try {
      for await (const chunk of chunks) {
        await fh.write(chunk, 0, chunk.length, size);
        size += chunk.length;
      }
      await fh.close();
      await rename(temp, target);
      return size;
    } catch (err) {
      await fh.close().catch(() => undefined);
      await rm(temp, { force: true });
      throw err;
    }
  }

  async append(key: string, offset: number, chunks: AsyncIterable<Buffer>): Promise<{ size: number; error?: unknown }> {
    const target = this.file(key);
    await mkdir(path.dirname(target), { recursive: true });
    const fh = await open(target, 'a+');
    let size = offset;
    try {
      size = (await fh.stat()).size;
      if (size !== offset) throw new Error(`append at ${offset} to a file of ${size} bytes`);
      for await (const chunk of chunks) {
        await fh.write(chunk, 0, chunk.length, null);
        size += chunk.length;
      }
      return { size };
    } catch (error) {
      return { size, error };
    } finally {
      await fh.close();
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.file(key))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  read(key: string, range?: ByteRange): AsyncIterable<Buffer> {
    return createReadStream(this.file(key), range ? { start: range.start, end: range.end } : {});
  }

  async move(from: string, to: string): Promise<void> {
    const target = this.file(to);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(this.file(from), target);
  }

  async delete(key: string): Promise<void> {
    await rm(this.file(key), { force: true });
  }

  async list(prefix: string): Promise<string[]> {
    try {
      return (await readdir(this.file(prefix), { withFileTypes: true })).filter((d) => d.isFile()).map((d) => d.name);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  }
}
