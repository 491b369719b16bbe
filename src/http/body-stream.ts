// A request body as it arrives: read whole (small bodies) or chunk by chunk (uploads), with a byte limit, flow control,
// a server-wide budget of bytes in flight and a stall timeout.
import { errors, type ApiError } from '../errors.js';

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

/** Bytes of request bodies received and not yet released (a body is released when its request is answered), across
 *  the server; bodies of unauthenticated requests also count against a smaller budget of their own, so clients
 *  without credentials cannot hold the memory that authenticated uploads need. */
export class BodyBudget {
  used = 0;
  anonymousUsed = 0;
  constructor(
    readonly limit: number,
    readonly anonymousLimit: number,
  ) {}
  take(bytes: number, anonymous: boolean): boolean {
    if (this.used + bytes > this.limit || (anonymous && this.anonymousUsed + bytes > this.anonymousLimit)) return false;
    this.used += bytes;
    if (anonymous) this.anonymousUsed += bytes;
    return true;
  }
  give(bytes: number, anonymous: boolean): void {
    this.used -= bytes;
    if (anonymous) this.anonymousUsed -= bytes;
  }
}

/** A body is answered 503 (Retry-After this many seconds) when the budget is spent. */
const BUDGET_RETRY_AFTER_SECONDS = 5;

/** How a body is charged and timed: the budget, whether its sender has shown no credentials (an Authorization header)
 *  so far, and how long it may go without a byte before it is abandoned. */
export interface BodyAccounting {
  budget: BodyBudget;
  anonymous: boolean;
  stallMs: number;
}

/** The flow of a body that has nothing to pause (shared: every request without a body has one). */
const NO_FLOW: BodyFlow = Object.freeze({ pause() {}, resume() {} });

export class BodyStream implements AsyncIterable<Buffer> {
  private queue: Buffer[] = [];
  private queued = 0;
  private received = 0;
  private ended = false;
  private failure: unknown = null;
  private paused = false;
  private wake: (() => void) | null = null;
  private reading = false;
  /** Bytes charged to the budget, given back by release(). */
  private charged = 0;
  /** Read whole (readAll): its chunks stay in memory until the request is over. */
  private whole = false;
  private stallTimer: NodeJS.Timeout | undefined;
  /** The request is over (release()): what still arrives is dropped, never charged to the budget. */
  private released = false;

  constructor(
    /** Content-Length when the client declared one. */
    readonly declaredLength: number | undefined,
    private limitBy: BodyLimit,
    private flow: BodyFlow = NO_FLOW,
    private accounting: BodyAccounting | null = null,
  ) {
    this.armStallTimer();
  }

  /** A body with nothing in it (no Content-Length, or 0, and not chunked). */
  static empty(limit: BodyLimit): BodyStream {
    const b = new BodyStream(0, limit);
    b.ended = true;
    return b;
  }

  /** A request without a body (BodyStream.empty): nothing to read. */
  get empty(): boolean {
    return this.declaredLength === 0 && this.ended;
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

  /** The request turned out to be unauthenticated (an endpoint without credentials, or credentials it does not
   *  check): what it holds and what it receives count against the unauthenticated budget from now on. */
  anonymous(): void {
    const a = this.accounting;
    if (!a || a.anonymous) return;
    a.budget.give(this.charged, false);
    a.anonymous = true;
    if (!a.budget.take(this.charged, true)) {
      this.charged = 0;
      this.overBudget();
    }
  }

  /** Gives the body's bytes back to the budget and stops its timer (the request is over). */
  release(): void {
    this.released = true;
    this.clearStallTimer();
    if (this.accounting) this.accounting.budget.give(this.charged, this.accounting.anonymous);
    this.charged = 0;
  }

  /** Transport side: one copied chunk. */
  push(chunk: Buffer, isLast: boolean): void {
    if (this.failure !== null || this.ended || this.released) return;
    this.received += chunk.length;
    if (this.received > this.limitBy.bytes) {
      this.overLimit();
      return;
    }
    const a = this.accounting;
    if (a) {
      if (!a.budget.take(chunk.length, a.anonymous)) {
        this.overBudget();
        return;
      }
      this.charged += chunk.length;
    }
    if (chunk.length > 0) {
      this.queue.push(chunk);
      this.queued += chunk.length;
    }
    if (isLast) {
      this.ended = true;
      this.clearStallTimer();
    } else if (this.queued >= HIGH_WATER && !this.paused) {
      this.paused = true;
      this.clearStallTimer();
      this.flow.pause();
    } else this.armStallTimer();
    this.notify();
  }

  /** Transport side: the client went away, or the body broke a rule. Chunks already received are still read
   *  (a resumable upload keeps them); the failure comes after them. */
  fail(err: unknown): void {
    if (this.failure !== null || this.ended) return;
    this.failure = err;
    this.clearStallTimer();
    this.notify();
  }

  /** More arrived than the limit allows: what is buffered is dropped and the reader gets the limit's error. */
  private overLimit(): void {
    this.queue = [];
    this.queued = 0;
    this.fail(this.limitBy.error());
  }

  /** The server's budget of body bytes is spent: the same, with a 503 the client may retry. */
  private overBudget(): void {
    this.queue = [];
    this.queued = 0;
    this.fail(errors.busy('The server is busy receiving request bodies; try again shortly', BUDGET_RETRY_AFTER_SECONDS));
  }

  /** (Re)starts the stall timer: a body that receives nothing for stallMs while the transport is not paused by us is
   *  abandoned (a client that stops sending would otherwise hold its connection and budget for as long as it likes). */
  private armStallTimer(): void {
    if (!this.accounting || this.ended || this.failure !== null) return;
    clearTimeout(this.stallTimer);
    const stallMs = this.accounting.stallMs;
    this.stallTimer = setTimeout(() => this.fail(errors.bodyStalled(stallMs)), stallMs);
    this.stallTimer.unref();
  }

  private clearStallTimer(): void {
    clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }

  private notify(): void {
    const w = this.wake;
    this.wake = null;
    w?.();
  }

  private take(): Buffer | undefined {
    const chunk = this.queue.shift();
    if (chunk) {
      this.queued -= chunk.length;
      // A body read chunk by chunk (an upload going to storage) holds only what is queued: what its reader took is
      // given back to the budget. A body read whole keeps its bytes until the request is over.
      if (!this.whole && this.accounting) {
        this.accounting.budget.give(chunk.length, this.accounting.anonymous);
        this.charged -= chunk.length;
      }
    }
    if (this.paused && this.queued < HIGH_WATER / 2) {
      this.paused = false;
      this.armStallTimer();
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
    this.whole = true;
    const chunks: Buffer[] = [];
    for await (const c of this) chunks.push(c);
    return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  }
}
