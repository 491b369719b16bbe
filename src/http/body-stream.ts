// A request body as it arrives: read whole (small bodies) or chunk by chunk (uploads), with a byte limit and flow control.
import type { ApiError } from './errors.js';

/** How the transport is slowed down while the reader is behind (respond.ts maps these to uWS pause/resume). */
export interface BodyFlow {
  pause(): void;
  resume(): void;
}

export interface BodyLimit {
  bytes: number;
  error: () => ApiError;
}

/** Chunks buffered before the transport is paused. */
const HIGH_WATER = 1024 * 1024;

export class BodyStream implements AsyncIterable<Buffer> {
  private queue: Buffer[] = [];
  private queued = 0;
  private received = 0;
  private ended = false;
  private failure: unknown = null;
  private paused = false;
  private wake: (() => void) | null = null;
  private reading = false;

  constructor(
    /** Content-Length when the client declared one. */
    readonly declaredLength: number | undefined,
    private limitBy: BodyLimit,
    private flow: BodyFlow = { pause() {}, resume() {} },
  ) {}

  /** A body with nothing in it (no Content-Length, or 0, and not chunked). */
  static empty(limit: BodyLimit): BodyStream {
    const b = new BodyStream(0, limit);
    b.ended = true;
    return b;
  }

  /** True once the last byte has arrived (or there was no body). */
  get complete(): boolean {
    return this.ended;
  }

  /** Replaces the limit (an upload endpoint's own); throws at once when the declared length is already over it. */
  limit(bytes: number, error: () => ApiError): void {
    this.limitBy = { bytes, error };
    if (this.declaredLength !== undefined && this.declaredLength > bytes) throw error();
    if (this.received > bytes) this.overLimit();
  }

  /** Transport side: one copied chunk. */
  push(chunk: Buffer, isLast: boolean): void {
    if (this.failure !== null || this.ended) return;
    this.received += chunk.length;
    if (this.received > this.limitBy.bytes) {
      this.overLimit();
      return;
    }
    if (chunk.length > 0) {
      this.queue.push(chunk);
      this.queued += chunk.length;
    }
    if (isLast) this.ended = true;
    else if (this.queued >= HIGH_WATER && !this.paused) {
      this.paused = true;
      this.flow.pause();
    }
    this.notify();
  }

  /** Transport side: the client went away, or the body broke a rule. Chunks already received are still read
   *  (a resumable upload keeps them); the failure comes after them. */
  fail(err: unknown): void {
    if (this.failure !== null || this.ended) return;
    this.failure = err;
    this.notify();
  }

  /** More arrived than the limit allows: what is buffered is dropped and the reader gets the limit's error. */
  private overLimit(): void {
    this.queue = [];
    this.queued = 0;
    this.fail(this.limitBy.error());
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private take(): Buffer | undefined {
    const chunk = this.queue.shift();
    if (chunk) this.queued -= chunk.length;
    if (this.paused && this.queued < HIGH_WATER / 2) {
      this.paused = false;
      this.flow.resume();
    }
    return chunk;
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Buffer> {
    if (this.reading) throw new Error('a request body can be read only once');
    this.reading = true;
    for (;;) {
      const chunk = this.take();
      if (chunk) {
        yield chunk;
        continue;
      }
      if (this.failure !== null) throw this.failure;
      if (this.ended) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  /** The whole body, within the limit. */
  async readAll(): Promise<Buffer> {
    const { bytes, error } = this.limitBy;
    if (this.declaredLength !== undefined && this.declaredLength > bytes) throw error();
    const chunks: Buffer[] = [];
    for await (const c of this) chunks.push(c);
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }
}
