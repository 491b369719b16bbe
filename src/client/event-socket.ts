// A small client of event queues over WebSocket (GET /api/v1/events/socket), for Node.js programs: the tests and the
// bench use it, and it shows what any client does. It opens the socket with HTTP Basic (or a ticket), hands over each
// frame's events in order, acknowledges them (by default after each frame), and reads error frames and close codes.
// Nothing of the server is imported: it speaks only the wire protocol.
import WebSocket from 'ws';

export interface EventFrame {
  events: ({ id: number; type: string } & Record<string, unknown>)[];
  queue_id: string;
}

/** An error frame: the server's error envelope, sent just before it closes the socket. */
export interface ErrorFrame {
  result: 'error';
  code: string;
  msg: string;
}

export interface EventSocketOptions {
  /** The server's base URL (`http://host:port`); ws: or wss: is derived from it. */
  base: string;
  queueId: string;
  /** Events up to this id are acknowledged already (the last id of the previous connection, or -1). */
  lastEventId?: number;
  /** HTTP Basic credentials, or a ticket from POST /api/v1/events/socket/ticket (what a browser uses). */
  auth?: { email: string; apiKey: string };
  ticket?: string;
  /** A Host header naming the realm, when the base URL's host does not. */
  host?: string;
  /** Acknowledge each frame once its events are handed over (default true); otherwise call ack() yourself. */
  autoAck?: boolean;
  /** Called with each frame's events, in id order. */
  onEvents?: (events: EventFrame['events'], frame: EventFrame) => void;
}

export interface Closed {
  code: number;
  reason: string;
  /** The error frame that came before the close, if any. */
  error: ErrorFrame | null;
  /** What broke the connection on this side, if anything (a frame it could not read, a reset): the close is then 1006. */
  failure: string | null;
}

export class EventSocket {
  /** The newest event id received (the client's resume point once acknowledged). */
  lastEventId: number;
  /** The newest id acknowledged to the server. */
  acked: number;
  /** Settles when the socket closes, with its code and any error frame. */
  readonly closed: Promise<Closed>;
  private error: ErrorFrame | null = null;
  private failure: string | null = null;
  private readonly frames: EventFrame[] = [];
  private waiter: (() => void) | null = null;

  private constructor(
    readonly ws: WebSocket,
    private readonly opts: EventSocketOptions,
  ) {
    this.lastEventId = this.acked = opts.lastEventId ?? -1;
    this.closed = new Promise((resolve) => {
      ws.on('close', (code, reason) => {
        resolve({ code, reason: reason.toString(), error: this.error, failure: this.failure });
        this.wake();
      });
    });
    ws.on('error', (err) => (this.failure ??= err.message));
    ws.on('message', (data, isBinary) => this.receive(isBinary ? '' : data.toString()));
  }

  /** Opens the socket; rejects with the HTTP status and envelope when the upgrade is refused (a wrong key, say). */
  static connect(opts: EventSocketOptions): Promise<EventSocket> {
    const url = new URL('/api/v1/events/socket', opts.base.replace(/^http/, 'ws'));
    url.searchParams.set('queue_id', opts.queueId);
    url.searchParams.set('last_event_id', String(opts.lastEventId ?? -1));
    if (opts.ticket) url.searchParams.set('ticket', opts.ticket);
    const headers: Record<string, string> = {};
    if (opts.auth) headers.authorization = 'Basic ' + Buffer.from(`${opts.auth.email}:${opts.auth.apiKey}`).toString('base64');
    if (opts.host) headers.host = opts.host;
    const ws = new WebSocket(url, { headers, perMessageDeflate: false });
    return new Promise((resolve, reject) => {
      const client = new EventSocket(ws, opts);
      ws.once('open', () => resolve(client));
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) => {
        let body = '';
        res.on('data', (c: Buffer) => (body += c.toString()));
        res.on('end', () => reject(Object.assign(new Error(`upgrade refused: ${res.statusCode} ${body}`), { status: res.statusCode, body })));
      });
    });
  }

  /**
   * Acknowledges events up to `id` (default: every event received). Acknowledgements only move forward: one at or
   * below what was acknowledged already is not sent (the server prunes on each one, and refuses an id older than
   * what it pruned with an error frame and a close).
   */
  ack(id = this.lastEventId): void {
    if (id <= this.acked || this.ws.readyState !== WebSocket.OPEN) return;
    this.ws.send(JSON.stringify({ last_event_id: id }));
    this.acked = Math.max(this.acked, id);
  }

  /** The next frame not yet taken, waiting for one up to `timeoutMs`; null when the socket closed or time ran out. */
  async next(timeoutMs = 30_000): Promise<EventFrame | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) {
      if (this.ws.readyState >= WebSocket.CLOSING || Date.now() >= deadline) return null;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, deadline - Date.now());
        this.waiter = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
    return this.frames.shift()!;
  }

  /** Frames until `count` events have arrived (or the socket closed / time ran out); their events in order. */
  async take(count: number, timeoutMs = 30_000): Promise<EventFrame['events']> {
    const out: EventFrame['events'] = [];
    const deadline = Date.now() + timeoutMs;
    while (out.length < count) {
      const frame = await this.next(deadline - Date.now());
      if (!frame) break;
      out.push(...frame.events);
    }
    return out;
  }

  close(): Promise<Closed> {
    this.ws.close(1000);
    return this.closed;
  }

  private receive(text: string): void {
    let m: unknown;
    try {
      m = JSON.parse(text);
    } catch {
      return;
    }
    const frame = m as Record<string, unknown>;
    if (frame.result === 'error') {
      this.error = frame as unknown as ErrorFrame;
      return;
    }
    const f = frame as unknown as EventFrame;
    for (const e of f.events) this.lastEventId = Math.max(this.lastEventId, e.id);
    if (this.opts.onEvents) this.opts.onEvents(f.events, f);
    else this.frames.push(f);
    if (this.opts.autoAck !== false) this.ack();
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }
}
