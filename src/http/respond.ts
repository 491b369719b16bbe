// The one place that knows uWebSockets.js's lifetime rules: read the request synchronously, register
// onAborted before any await, copy body chunks, write corked and only if the client is still there,
// pause the body while its reader is behind, and write large replies with backpressure (tryEnd/onWritable) within a
// budget of bytes that slow clients may keep waiting.
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { Config } from '../config.js';
import { BodyBudget, BodyStream } from './body-stream.js';
import { errors, type ApiError } from '../errors.js';
import { toErrorReply } from './error-reply.js';

export interface IncomingRequest {
  method: string;
  url: string;
  query: string;
  headers: Record<string, string>;
  remoteAddress: string;
  /** Read it whole (`readAll`, within MAX_BODY_BYTES) or as chunks (upload endpoints, with their own `limit`). */
  body: BodyStream;
}

/** What a handler sees of its connection: whether the client went away, and a hook for when it does. */
export interface Connection {
  readonly aborted: boolean;
  onAbort(cb: () => void): void;
}

/** A reply body written chunk by chunk as the client takes it (files): exactly `length` bytes. */
export interface StreamedBody {
  length: number;
  /** Opened only when the reply is about to be written; iteration is stopped early if the client goes away. */
  open(): AsyncIterable<Buffer>;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  /** Written as the X-Request-Id header (kept apart from `headers` so that tagging a reply copies no header object). */
  requestId?: string;
  contentType?: string;
  /** Parts (an array of buffers) are written one after the other, uncopied when the reply is large. */
  body: string | Buffer | readonly Buffer[] | StreamedBody;
  /** A WebSocket upgrade the handler accepted, with what the socket starts with (only on serveUpgrade's requests). */
  upgrade?: object;
}

export type Handler = (req: IncomingRequest, conn: Connection) => Promise<Reply>;

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 204: '204 No Content', 206: '206 Partial Content', 400: '400 Bad Request',
  408: '408 Request Timeout', 410: '410 Gone', 412: '412 Precondition Failed', 414: '414 URI Too Long',
  416: '416 Range Not Satisfiable', 431: '431 Request Header Fields Too Large',
  401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed',
  409: '409 Conflict', 413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

function statusLine(status: number): string {
  return STATUS_TEXT[status] ?? `${status} Status`;
}

/** One request's connection: whether the client went away or was answered, and what its end gives back (its body's
 *  budget, its place in flight). Held for as long as a request waits (a parked poll), so kept small: no listener list
 *  until someone listens, no closures. */
class ConnectionState implements Connection {
  aborted = false;
  done = false;
  private listeners: (() => void) | (() => void)[] | null = null;
  private left = false;
  constructor(
    private readonly body: BodyStream | null = null,
    private readonly inFlight: InFlight | null = null,
  ) {
    inFlight?.enter();
  }
  onAbort(cb: () => void): void {
    if (this.aborted) cb();
    else if (this.listeners === null) this.listeners = cb;
    else if (typeof this.listeners === 'function') this.listeners = [this.listeners, cb];
    else this.listeners.push(cb);
  }
  abort(): void {
    this.aborted = true;
    const ls = this.listeners;
    this.listeners = null;
    if (typeof ls === 'function') ls();
    else if (ls) for (const l of ls) l();
    if (this.body) {
      this.body.fail(errors.clientClosedRequest());
      this.leave();
    }
  }
  /** The request is over (answered or gone): its body's budget given back, its place in flight left; once. */
  leave(): void {
    if (this.left) return;
    this.left = true;
    this.body?.release();
    this.inFlight?.leave();
  }
}

export interface ServeOptions {
  maxBodyBytes: number;
  onUnexpected: (err: unknown) => void;
  /** Bytes of large replies that may wait at once for clients to take them (default PENDING_REPLY_BYTES). */
  maxPendingReplyBytes?: number;
  /** A client that takes no bytes of a reply for this long is disconnected (default WRITE_STALL_MS). */
  writeStallMs?: number;
  /** Bytes of request bodies in flight across the server and the part of them unauthenticated requests may hold
   *  (beyond them a body is refused, 503), and how long a body may receive nothing before it is abandoned (408).
   *  Unset: bodies are neither budgeted nor timed (a listener that takes no bodies). */
  bodies?: Config['bodies'];
}

/** A client that takes no bytes of a reply for this long is disconnected. What counts as taking bytes is the kernel's
 *  writable wake-up, which comes once about a third of the socket's send buffer is free again: with a send buffer that
 *  has grown to megabytes (loopback, fast links) a client must take in the order of a megabyte per period. */
export const WRITE_STALL_MS = 10_000;
/** How often a reply waiting for its client renews uWS's own HTTP idle timeout (10 s), well within it. */
const UWS_IDLE_RENEW_MS = 4000;
/** Replies at least this large are written with backpressure and count against the pending-reply budget. */
export const LARGE_REPLY_BYTES = 64 * 1024;
/** How many bytes of large replies may wait for slow clients at once; beyond it large replies are refused (503). */
export const PENDING_REPLY_BYTES = 64 * 1024 * 1024;

/** The longest request URL (path and query string; 414 beyond it) and the most bytes of headers (431 beyond it).
 *  uWebSockets.js itself closes the connection without an answer on a head it cannot take in: one that arrives split
 *  over several reads and is longer than 4 KiB, one longer than a single read (about 64 to 512 KiB), or one with more
 *  than 48 headers (closed after its 10 s idle timeout). Heads it passes on are checked here. */
export const MAX_URL_BYTES = 64 * 1024;
export const MAX_HEADER_BYTES = 64 * 1024;

/** What is wrong with a request's head, if anything: two Host headers (RFC 9112 section 3.2: 400), a URL or headers
 *  past their limits. */
function headError(urlBytes: number, headerBytes: number, hosts: number): ApiError | null {
  if (hosts > 1) return errors.duplicateHost();
  if (urlBytes > MAX_URL_BYTES) return errors.uriTooLong(MAX_URL_BYTES);
  if (headerBytes > MAX_HEADER_BYTES) return errors.headersTooLarge(MAX_HEADER_BYTES);
  return null;
}

/** Bytes of large replies written but not yet taken by their clients, across every connection. A client that reads
 *  slowly (or not at all) keeps its reply in memory until it reads it or uWS's write timeout closes the connection;
 *  the budget bounds how much memory such clients can hold together. */
export class ReplyBudget {
  used = 0;
  constructor(readonly limit: number) {}
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** Tracks requests in flight so shutdown can wait for them. */
export class InFlight {
  count = 0;
  private waiters: (() => void)[] = [];
  enter(): void {
    this.count++;
  }
  leave(): void {
    if (--this.count === 0) for (const w of this.waiters.splice(0)) w();
  }
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
}

function isStreamed(body: Reply['body']): body is StreamedBody {
  return typeof body === 'object' && !Buffer.isBuffer(body) && !Array.isArray(body);
}

type HeldBody = string | Buffer | readonly Buffer[];

function heldBytes(body: HeldBody): number {
  return Array.isArray(body) ? body.reduce((n, b) => n + b.length, 0) : Buffer.byteLength(body as string | Buffer);
}

/** Whether a reply held in memory is written with backpressure: a string of n UTF-16 units is at most 3n bytes, so one
 *  clearly short of LARGE_REPLY_BYTES is not counted (counting is a pass over every answer to a poll). */
function isLarge(body: HeldBody): boolean {
  if (typeof body === 'string' && body.length * 3 < LARGE_REPLY_BYTES) return false;
  return heldBytes(body) >= LARGE_REPLY_BYTES;
}

/** The constant header names and the default type as bytes: uWS copies a string argument (to UTF-8, in a buffer of
 *  its own) on every call and reads a Buffer in place. */
const CONTENT_TYPE = Buffer.from('Content-Type');
const JSON_TYPE = Buffer.from('application/json');
const REQUEST_ID = Buffer.from('X-Request-Id');

function writeHead(res: HttpResponse, reply: Reply): void {
  // uWS writes 200 OK itself when no status was written.
  if (reply.status !== 200) res.writeStatus(statusLine(reply.status));
  res.writeHeader(CONTENT_TYPE, reply.contentType ?? JSON_TYPE);
  const headers = reply.headers;
  if (headers) for (const k in headers) res.writeHeader(k, headers[k]!);
  if (reply.requestId !== undefined) res.writeHeader(REQUEST_ID, reply.requestId);
}

/** What `corkedWrite` writes: set just before the synchronous res.cork call that runs it, so that a reply costs no
 *  closure. */
const pending: { res: HttpResponse | null; reply: Reply | null; close: boolean; head: boolean } = { res: null, reply: null, close: false, head: false };

function corkedWrite(): void {
  const { res, reply, close, head } = pending;
  pending.res = pending.reply = null;
  const held = reply!.body as HeldBody;
  const body = Array.isArray(held) ? Buffer.concat(held) : (held as string | Buffer);
  writeHead(res!, reply!);
  // HEAD: the length is announced by hand and the argument-less endWithoutBody() used: in this uWS build
  // endWithoutBody(length) breaks keep-alive, and any explicit argument writes a second Content-Length.
  if (head) res!.writeHeader('Content-Length', String(Buffer.byteLength(body))).endWithoutBody();
  else res!.end(body, close);
}

/**
 * Which response's uWS callback the code is running in. uWS corks a connection while it hands that connection's request
 * (or body chunk) to JavaScript, microtasks included, and while one connection is corked no other can be: `res.cork` on
 * another response then runs its writes uncorked, and each part of the reply (status line, every header name, ": ",
 * value and line end, the body) becomes a system call of its own, 23 for a poll answer instead of one (seen with strace:
 * a parked poll answered by another request, such as a typing notification or a queue deletion). Such a reply waits
 * until the turn's end (setImmediate: after the poll phase's callbacks, outside every uWS callback) and is then written
 * corked.
 *
 * uWebSockets.js calls JavaScript through node::MakeCallback, which on its way out drains the microtasks and then runs
 * the nextTick queue and the microtasks alternately until both are empty; uWS uncorks after that. `enter` queues a
 * microtask (ahead of the request's own) that queues a tick, `leave`: a tick runs only once the microtask queue is
 * empty, so the handling of the request, up to its first real wait, is over. Every reply made outside a uWS callback
 * (from a database answer, a timer, an actor's commit) is written at once. (The turn used to last until the end of the
 * loop iteration, setImmediate, and such replies waited for every callback after them: on a loaded server one reply in
 * ten waited, 8–27 ms on average, a quarter of a second at p99. The two hops cost about 0.2 µs per uWS callback.)
 */
export class CorkTurn {
  private current: HttpResponse | null = null;
  private entered = false;
  private waiting: { res: HttpResponse; conn: ConnectionState; reply: Reply; close: boolean; head: boolean }[] = [];
  private readonly afterMicrotasks = () => process.nextTick(this.leave);
  private readonly leave = () => {
    this.entered = false;
    this.current = null;
  };
  private readonly flush = () => {
    const waiting = this.waiting;
    this.waiting = [];
    for (const w of waiting) if (!w.conn.aborted) this.writeCorked(w.res, w.reply, w.close, w.head);
  };

  constructor(private readonly writeCorked: (res: HttpResponse, reply: Reply, close: boolean, head: boolean) => void) {}

  /** A uWS callback of `res` begins (its request, a chunk of its body). */
  enter(res: HttpResponse): void {
    this.current = res;
    if (!this.entered) {
      this.entered = true;
      queueMicrotask(this.afterMicrotasks);
    }
  }

  /** Whether a uWS callback of `res` itself is running (its socket corked by uWS until the callback's microtasks end). */
  inside(res: HttpResponse): boolean {
    return this.current === res;
  }

  /** Writes now if `res` can be corked here, else once the callback is over. */
  write(res: HttpResponse, conn: ConnectionState, reply: Reply, close: boolean, head: boolean): void {
    if (this.current === null || res === this.current) {
      this.writeCorked(res, reply, close, head);
      return;
    }
    if (this.waiting.length === 0) setImmediate(this.flush);
    this.waiting.push({ res, conn, reply, close, head });
  }
}

const turn = new CorkTurn(writeCorked);

function writeCorked(res: HttpResponse, reply: Reply, close: boolean, head: boolean): void {
  pending.res = res;
  pending.reply = reply;
  pending.close = close;
  pending.head = head;
  res.cork(corkedWrite);
}

/** Writes a reply held in memory in one corked write; `head` answers a HEAD request (headers and length, no body). */
function write(res: HttpResponse, conn: ConnectionState, reply: Reply, close = false, head = false): void {
  if (conn.aborted || conn.done) return;
  conn.done = true;
  turn.write(res, conn, reply, close, head);
}

/** Where a streamed reply waits for the client: settled with false if the client goes away meanwhile. */
interface Waiting {
  wake: ((more: boolean) => void) | null;
}

/** Offers one chunk; resolves true when it was taken whole and more is expected, false when the reply is over. */
function offer(res: HttpResponse, conn: ConnectionState, chunk: Buffer, total: number, waiting: Waiting, stallMs: number): Promise<boolean> {
  const start = res.getWriteOffset();
  let ok = false;
  let done = false;
  res.cork(() => {
    [ok, done] = res.tryEnd(chunk, total);
  });
  if (done) return Promise.resolve(false);
  if (ok) return Promise.resolve(true);
  return new Promise((resolve) => {
    // A client that takes nothing for stallMs is disconnected: it would otherwise keep its reply in memory for as
    // long as it keeps the connection open.
    const stalled = () => {
      if (!conn.aborted) res.close();
    };
    let timer = setTimeout(stalled, stallMs);
    // uWS itself closes a connection whose write has made no progress for its HTTP idle timeout (10 s), whatever
    // stallMs says; offering the rest again restarts that timeout, so stallMs alone decides.
    const keepalive = setInterval(() => {
      if (!conn.aborted) res.cork(() => retry(res.getWriteOffset()));
    }, UWS_IDLE_RENEW_MS);
    let settled = false;
    const settle = (more: boolean) => {
      settled = true;
      clearTimeout(timer);
      clearInterval(keepalive);
      waiting.wake = null;
      resolve(more);
    };
    waiting.wake = settle;
    /** Offers what the client has not taken yet, from `offset`; true when it was taken whole. */
    const retry = (offset: number): boolean => {
      if (settled) return true;
      const [ok2, done2] = res.tryEnd(chunk.subarray(offset - start), total);
      if (done2) settle(false);
      else if (ok2) settle(true);
      return ok2;
    };
    res.onWritable((offset) => {
      if (conn.aborted) return true;
      clearTimeout(timer);
      timer = setTimeout(stalled, stallMs);
      return retry(offset);
    });
  });
}

/** Writes a streamed reply with backpressure; a source that fails or comes up short closes the connection. */
async function writeStreamed(res: HttpResponse, conn: ConnectionState, reply: Reply, body: StreamedBody, stallMs: number): Promise<void> {
  if (conn.aborted || conn.done) return;
  conn.done = true;
  if (body.length === 0) {
    res.cork(() => {
      writeHead(res, reply);
      res.end();
    });
    return;
  }
  res.cork(() => writeHead(res, reply));
  const waiting: Waiting = { wake: null };
  conn.onAbort(() => waiting.wake?.(false));
  let finished = false;
  try {
    for await (const chunk of body.open()) {
      if (conn.aborted || !(await offer(res, conn, chunk, body.length, waiting, stallMs))) {
        finished = !conn.aborted;
        break;
      }
    }
  } catch {
    finished = false;
  }
  if (!finished && !conn.aborted) res.close();
}

/** Parts shorter than this are joined with their small neighbours before they are offered: one write each for the
 *  large ones, uncopied, and no write for a few bytes of punctuation. */
const SMALL_PART_BYTES = 16 * 1024;

/** The parts to offer in order: large parts as they are, runs of small ones joined. */
function* offeredParts(parts: readonly Buffer[]): Generator<Buffer> {
  let small: Buffer[] = [];
  for (const part of parts) {
    if (part.length >= SMALL_PART_BYTES) {
      if (small.length > 0) yield Buffer.concat(small);
      small = [];
      yield part;
    } else if (part.length > 0) small.push(part);
  }
  if (small.length > 0) yield Buffer.concat(small);
}

/** A large reply held in memory (one buffer, a string, or parts written one after the other without being joined),
 *  written as the client takes it (tryEnd does not copy what the socket refuses), within the budget; over budget the
 *  client gets a 503 instead, with Retry-After. */
async function writeLarge(res: HttpResponse, conn: ConnectionState, reply: Reply, budget: ReplyBudget, opts: ServeOptions): Promise<void> {
  const raw = reply.body as HeldBody;
  const bytes = heldBytes(raw);
  if (!budget.take(bytes)) {
    write(res, conn, errorReply(errors.busy('The server is busy sending large replies; try again shortly', 5), opts.onUnexpected));
    return;
  }
  // A string is encoded (tryEnd takes byte offsets) only once admitted: a refused reply costs no copy.
  const parts: readonly Buffer[] = Array.isArray(raw) ? raw : [Buffer.isBuffer(raw) ? raw : Buffer.from(raw as string)];
  try {
    await writeStreamed(
      res,
      conn,
      reply,
      {
        length: bytes,
        async *open() {
          yield* offeredParts(parts);
        },
      },
      opts.writeStallMs ?? WRITE_STALL_MS,
    );
  } finally {
    budget.give(bytes);
  }
}

/** The error envelope of any thrown value as a reply (unexpected errors reported through `onUnexpected`). */
export function errorReply(err: unknown, onUnexpected: (err: unknown) => void): Reply {
  const e = toErrorReply(err, onUnexpected);
  return { status: e.status, headers: e.headers, body: JSON.stringify(e.body) };
}

/** Everything of a request's head, read synchronously (uWS's `req` is valid only during its callback). */
function readHead(req: HttpRequest) {
  const headers: Record<string, string> = {};
  let headerBytes = 0;
  let hosts = 0;
  req.forEach((k, v) => {
    headers[k] = v;
    headerBytes += k.length + v.length + 4;
    if (k === 'host') hosts++;
  });
  return { headers, headerBytes, hosts, method: req.getCaseSensitiveMethod().toUpperCase(), url: req.getUrl(), query: req.getQuery() ?? '' };
}

const ADDRESS_TEXT = new TextDecoder();

/** The client's address as text: decoded straight from uWS's bytes (no Buffer made for them, every request). */
function remoteAddress(res: HttpResponse): string {
  return ADDRESS_TEXT.decode(res.getRemoteAddressAsText());
}

/** Where an accepted upgrade goes: called while the request is still open (corked when that is safe, see serveUpgrade),
 *  with the reply's upgrade data and the WebSocket handshake headers; the transport calls res.upgrade. */
export type Upgrader = (res: HttpResponse, data: object, handshake: { key: string; protocol: string; extensions: string }) => void;

/**
 * A WebSocket upgrade request (from a `ws` route's `upgrade`) through the same pipeline as every request: read
 * synchronously, onAborted registered first, the handler's reply written as HTTP unless it carries `upgrade`, in which
 * case `upgrade` is called. Upgrade requests have no body.
 */
export function serveUpgrade(res: HttpResponse, req: HttpRequest, handler: Handler, opts: Pick<ServeOptions, 'onUnexpected' | 'maxBodyBytes'>, upgrade: Upgrader): void {
  turn.enter(res);
  const { headers, headerBytes, hosts, method, url, query } = readHead(req);
  const conn = new ConnectionState();
  res.onAborted(() => conn.abort());
  const refusal = headError(url.length + query.length, headerBytes, hosts);
  if (refusal) {
    write(res, conn, errorReply(refusal, opts.onUnexpected), true);
    return;
  }
  const body = BodyStream.empty({ bytes: opts.maxBodyBytes, error: () => errors.bodyTooLarge(opts.maxBodyBytes) });
  const request: IncomingRequest = { method, url, query, headers, remoteAddress: remoteAddress(res), body };
  const handshake = { key: headers['sec-websocket-key'] ?? '', protocol: headers['sec-websocket-protocol'] ?? '', extensions: headers['sec-websocket-extensions'] ?? '' };
  handler(request, conn)
    .catch((err) => (conn.aborted ? null : errorReply(err, opts.onUnexpected)))
    .then((reply) => {
      if (!reply || conn.aborted || conn.done) return;
      if (reply.upgrade === undefined) {
        write(res, conn, reply, true);
        return;
      }
      conn.done = true;
      const data = reply.upgrade;
      // Within the request's own callback uWS has the socket corked already: cork() only runs the upgrade. Later (a
      // ticket redeemed from PostgreSQL, a cluster process waiting to catch up) the upgrade goes uncorked: in this
      // uWebSockets.js build, cork() checks the HTTP response's state after its handler even when the handler upgraded
      // the socket in place, reads the new WebSocket's memory as that state, and now and then closes the socket just
      // opened (1006; fixed upstream in uNetworking/uWebSockets#1929, in no npm build yet). uWS prints a warning that
      // writes must be corked for each such upgrade; the socket works.
      if (turn.inside(res)) res.cork(() => upgrade(res, data, handshake));
      else upgrade(res, data, handshake);
    })
    .catch((err) => opts.onUnexpected(err));
}

/** What every request of one `serve` shares. */
interface Server {
  handler: Handler;
  opts: ServeOptions;
  budget: ReplyBudget;
}

/** Runs the handler and writes its reply (or the envelope of its failure); then the request is over. One async function
 *  rather than a chain of promise callbacks: a parked request holds one frame. */
async function answer(res: HttpResponse, conn: ConnectionState, request: IncomingRequest, server: Server): Promise<void> {
  const { opts } = server;
  try {
    let reply: Reply | null;
    try {
      reply = await server.handler(request, conn);
    } catch (err) {
      // A handler that failed because its client went away has no one to answer.
      reply = conn.aborted ? null : errorReply(err, opts.onUnexpected);
    }
    if (!reply) return;
    const { body, method } = request;
    // A reply sent before the whole body arrived ends the connection: the rest of the body is not wanted.
    const close = !body.complete;
    if (isStreamed(reply.body)) await writeStreamed(res, conn, reply, reply.body, opts.writeStallMs ?? WRITE_STALL_MS);
    else if (!close && method !== 'HEAD' && isLarge(reply.body)) await writeLarge(res, conn, reply, server.budget, opts);
    else write(res, conn, reply, close, method === 'HEAD');
  } catch (err) {
    opts.onUnexpected(err);
  } finally {
    conn.leave();
  }
}

/** Routes every request on the app to `handler`; bodies are read through a BodyStream limited to maxBodyBytes
 *  unless the endpoint sets its own limit. */
export function serve(app: TemplatedApp, handler: Handler, opts: ServeOptions, inFlight: InFlight): void {
  const defaultLimit = { bytes: opts.maxBodyBytes, error: () => errors.bodyTooLarge(opts.maxBodyBytes) };
  const server: Server = { handler, opts, budget: new ReplyBudget(opts.maxPendingReplyBytes ?? PENDING_REPLY_BYTES) };
  const bodies = opts.bodies;
  const bodyBudget = bodies ? new BodyBudget(bodies.bytesInFlight, bodies.anonymousBytesInFlight) : null;
  app.any('/*', (res: HttpResponse, req: HttpRequest) => {
    turn.enter(res);
    const { headers, headerBytes, hosts, method, url, query } = readHead(req);
    const lengthHeader = headers['content-length'];
    const declared = lengthHeader === undefined || lengthHeader === '' ? undefined : Number(lengthHeader);
    const hasBody = (declared ?? 0) !== 0 || headers['transfer-encoding'] !== undefined;
    let body: BodyStream;
    let conn: ConnectionState;
    if (hasBody) {
      // Bodies of requests without credentials start on the unauthenticated budget; the pipeline moves a body there
      // later when the credentials it carries are not checked (BodyStream.anonymous).
      const accounting = bodyBudget && bodies ? { budget: bodyBudget, anonymous: headers.authorization === undefined, stallMs: bodies.stallMs } : null;
      body = new BodyStream(declared, defaultLimit, { pause: () => res.pause(), resume: () => !conn.aborted && !conn.done && res.resume() }, accounting);
    } else body = BodyStream.empty(defaultLimit);
    conn = new ConnectionState(body, inFlight);
    const request: IncomingRequest = {
      method,
      url,
      query,
      headers,
      remoteAddress: remoteAddress(res),
      body,
    };
    res.onAborted(() => conn.abort());
    const refusal =
      headError(url.length + query.length, headerBytes, hosts) ??
      (declared !== undefined && !Number.isFinite(declared) ? errors.bodyTooLarge(opts.maxBodyBytes) : null);
    if (refusal) {
      write(res, conn, errorReply(refusal, opts.onUnexpected), true);
      conn.leave();
      return;
    }
    // Data may arrive as soon as this handler returns: take it now, whoever reads it later.
    if (hasBody)
      res.onData((chunk, isLast) => {
        turn.enter(res);
        body.push(Buffer.from(chunk.slice(0)), isLast);
      });
    void answer(res, conn, request, server);
  });
}
