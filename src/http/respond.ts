// The one place that knows uWebSockets.js's lifetime rules: read the request synchronously, register
// onAborted before any await, copy body chunks, write corked and only if the client is still there.
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { errors, toErrorReply } from './errors.js';

export interface IncomingRequest {
  method: string;
  url: string;
  query: string;
  headers: Record<string, string>;
  remoteAddress: string;
  body: Buffer;
}

/** What a handler sees of its connection: whether the client went away, and a hook for when it does. */
export interface Connection {
  readonly aborted: boolean;
  onAbort(cb: () => void): void;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  contentType?: string;
  body: string | Buffer;
}

export type Handler = (req: IncomingRequest, conn: Connection) => Promise<Reply>;

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK', 201: '201 Created', 204: '204 No Content', 206: '206 Partial Content', 400: '400 Bad Request',
  401: '401 Unauthorized', 403: '403 Forbidden', 404: '404 Not Found', 405: '405 Method Not Allowed',
  409: '409 Conflict', 413: '413 Payload Too Large', 415: '415 Unsupported Media Type', 429: '429 Too Many Requests',
  500: '500 Internal Server Error', 503: '503 Service Unavailable',
};

function statusLine(status: number): string {
  return STATUS_TEXT[status] ?? `${status} Status`;
}

class ConnectionState implements Connection {
  aborted = false;
  done = false;
  private listeners: (() => void)[] = [];
  onAbort(cb: () => void): void {
    if (this.aborted) cb();
    else this.listeners.push(cb);
  }
  abort(): void {
    this.aborted = true;
    const ls = this.listeners;
    this.listeners = [];
    for (const l of ls) l();
  }
}

export interface ServeOptions {
  maxBodyBytes: number;
  onUnexpected: (err: unknown) => void;
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

function write(res: HttpResponse, conn: ConnectionState, reply: Reply, close = false): void {
  if (conn.aborted || conn.done) return;
  conn.done = true;
  res.cork(() => {
    res.writeStatus(statusLine(reply.status));
    res.writeHeader('Content-Type', reply.contentType ?? 'application/json');
    for (const [k, v] of Object.entries(reply.headers ?? {})) res.writeHeader(k, v);
    res.end(reply.body, close);
  });
}

function errorReply(err: unknown, opts: ServeOptions): Reply {
  const e = toErrorReply(err, opts.onUnexpected);
  return { status: e.status, headers: e.headers, body: JSON.stringify(e.body) };
}

/** Routes every request on the app to `handler`, enforcing the body limit. */
export function serve(app: TemplatedApp, handler: Handler, opts: ServeOptions, inFlight: InFlight): void {
  app.any('/*', (res: HttpResponse, req: HttpRequest) => {
    const headers: Record<string, string> = {};
    req.forEach((k, v) => {
      headers[k] = v;
    });
    const request: IncomingRequest = {
      method: req.getCaseSensitiveMethod().toUpperCase(),
      url: req.getUrl(),
      query: req.getQuery() ?? '',
      headers,
      remoteAddress: Buffer.from(res.getRemoteAddressAsText()).toString(),
      body: Buffer.alloc(0),
    };
    const conn = new ConnectionState();
    inFlight.enter();
    let left = false;
    const leave = () => {
      if (!left) {
        left = true;
        inFlight.leave();
      }
    };
    res.onAborted(() => {
      conn.abort();
      leave();
    });

    const run = () => {
      handler(request, conn)
        .catch((err) => errorReply(err, opts))
        .then((reply) => {
          write(res, conn, reply);
          leave();
        });
    };

    const lengthHeader = headers['content-length'];
    const declared = lengthHeader === undefined ? undefined : Number(lengthHeader);
    if (declared !== undefined && (!Number.isFinite(declared) || declared > opts.maxBodyBytes)) {
      write(res, conn, errorReply(errors.bodyTooLarge(opts.maxBodyBytes), opts), true);
      leave();
      return;
    }
    if ((declared ?? 0) === 0 && headers['transfer-encoding'] === undefined) {
      run();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let rejected = false;
    res.onData((chunk, isLast) => {
      if (rejected) return;
      size += chunk.byteLength;
      if (size > opts.maxBodyBytes) {
        rejected = true;
        write(res, conn, errorReply(errors.bodyTooLarge(opts.maxBodyBytes), opts), true);
        leave();
        return;
      }
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) {
        request.body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
        run();
      }
    });
  });
}
