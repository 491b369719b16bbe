// Event queues over WebSocket, the transport: every uWebSockets.js lifetime rule for these sockets in one place. The
// upgrade request goes through the request pipeline (authentication, parameters, the request log) by respond.ts's
// serveUpgrade; nothing is written to a socket once it is closing; frames go out as UTF-8 bytes (uWS corks each send
// itself); a client that lets more than maxBufferedBytes wait is closed (its queue kept); pings keep quiet sockets
// alive. Frames and acknowledgements are src/events/queue-sockets.ts's (the frames' bytes: socket-frames.ts).
import type { HttpResponse, TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { ApiError } from '../errors.js';
import type { QueueSocket, QueueSockets } from '../events/queue-sockets.js';
import { toErrorReply } from './error-reply.js';
import { serveUpgrade, type Handler } from './respond.js';

export const EVENTS_SOCKET_PATH = '/api/v1/events/socket';

/** The close codes (documented in the README): 1000–1015 are WebSocket's, 4000–4999 the application's. */
export const CLOSE = {
  /** The server is shutting down: reconnect (with last_event_id) once it is back. */
  shutdown: 1001,
  /** After an error frame BAD_REQUEST: a last_event_id the queue cannot honour, or a frame that is not an acknowledgement. */
  badRequest: 4400,
  /** After an error frame INVALID_API_KEY, USER_DEACTIVATED or REALM_DEACTIVATED: the credentials the socket opened
   *  with no longer hold (the key was regenerated, say). The queue is kept. */
  unauthorized: 4401,
  /** After an error frame BAD_EVENT_QUEUE_ID: no such queue for this user, or it expired or was deleted. */
  badEventQueueId: 4404,
  /** A newer socket or a GET /events took the queue over. */
  replaced: 4409,
  /** More than the server's bound of bytes waited for this client: reconnect with last_event_id to resume. */
  slowReader: 4413,
} as const;

/** What an accepted upgrade carries into the socket (the upgrade endpoint returns it). */
export interface SocketStart {
  queueId: string;
  userId: number;
  lastEventId: number;
  /** Cluster mode: the queue is held by another process; the socket is relayed from it (src/cluster/socket-relay.ts). */
  relayed?: boolean;
  /** The error the socket's credentials would get now (a regenerated key, a deactivation), or null while they hold. */
  revoked?: () => ApiError | null;
}

/** Where a socket's queue side lives: this process's queues (QueueSockets), or a relay from the holder. */
export interface SocketTarget {
  attach(queueId: string, userId: number, lastEventId: number, socket: QueueSocket): string | null;
  ack(handle: string, lastEventId: number): void;
  protocolError(handle: string, msg: string): void;
  gone(handle: string): void;
}

/** An acknowledgement frame is `{"last_event_id": N}`; anything longer is not one. */
const MAX_CLIENT_FRAME = 256;
/** What uWS's send answers when the frame went out whole (0: some of it waits; 2: dropped past maxBackpressure). */
const SENT = 1;

/** One open socket: its uWS handle and the queue-side handle. */
class Socket implements QueueSocket {
  ws: WebSocket<UserData> | null = null;
  handle: string | null = null;
  target: SocketTarget | null = null;
  closing = false;
  /** The last acknowledgement passed on: one repeating it changes nothing and is not (see `message`). */
  lastAck: number;
  /** The last send left bytes waiting (uWS's send answered other than SENT). */
  private pressed = false;

  constructor(
    readonly start: SocketStart,
    private readonly maxBuffered: number,
    private readonly onUnexpected: (err: unknown) => void,
  ) {
    this.lastAck = start.lastEventId;
  }

  send(frame: Uint8Array): boolean {
    const ws = this.ws;
    if (!ws || this.closing) return false;
    // Refused past the bound: QueueSockets then closes it as 'slow'. A frame (64 KiB at most unless one event is
    // larger, see socket-frames.ts) into an empty buffer is always taken, so that a client can make progress even under
    // a bound smaller than a frame. The buffered amount is asked only after a send left bytes waiting.
    if (this.pressed) {
      const buffered = ws.getBufferedAmount();
      if (buffered > 0 && buffered + frame.length > this.maxBuffered) return false;
    }
    // Not corked by hand: uWS corks a send itself when no other socket is corked, and writes at once otherwise.
    this.pressed = ws.send(frame, false) !== SENT;
    return true;
  }

  fail(err: ApiError): void {
    const ws = this.ws;
    if (!ws || this.closing) return;
    const e = toErrorReply(err, this.onUnexpected);
    ws.cork(() => ws.send(JSON.stringify(e.body), false));
    this.end(err.status === 401 ? CLOSE.unauthorized : err.code === 'BAD_EVENT_QUEUE_ID' ? CLOSE.badEventQueueId : CLOSE.badRequest, err.code);
  }

  revoked(): ApiError | null {
    return this.start.revoked?.() ?? null;
  }

  close(reason: 'replaced' | 'shutdown' | 'slow'): void {
    if (reason === 'slow') this.end(CLOSE.slowReader, 'too many unread bytes; reconnect with last_event_id');
    else this.end(reason === 'replaced' ? CLOSE.replaced : CLOSE.shutdown, reason);
  }

  private end(code: number, reason: string): void {
    if (!this.ws || this.closing) return;
    this.closing = true;
    this.ws.end(code, reason);
  }
}

/** uWS copies the user data's own properties (not its prototype): the Socket travels as one of them. */
interface UserData {
  socket: Socket;
}

export interface EventsSocketOptions {
  sockets: QueueSockets;
  /** Cluster mode: sockets on queues held elsewhere. */
  relays?: SocketTarget;
  maxBufferedBytes: number;
  idleTimeoutS: number;
  maxBodyBytes: number;
  onUnexpected: (err: unknown) => void;
}

/** Serves GET /api/v1/events/socket on the app; `handler` is the request pipeline that accepts or refuses upgrades. */
export function serveEventsSocket(app: TemplatedApp, handler: Handler, opts: EventsSocketOptions): void {
  const { sockets } = opts;
  app.ws<UserData>(EVENTS_SOCKET_PATH, {
    maxPayloadLength: MAX_CLIENT_FRAME,
    idleTimeout: opts.idleTimeoutS,
    sendPingsAutomatically: true,
    // Our own bound (Socket.send) decides; uWS's is a backstop above it for the error frame.
    maxBackpressure: opts.maxBufferedBytes + 64 * 1024,
    closeOnBackpressureLimit: 1,
    upgrade: (res, req, context) =>
      serveUpgrade(res, req, handler, opts, (r: HttpResponse, data, hs) =>
        r.upgrade<UserData>({ socket: new Socket(data as SocketStart, opts.maxBufferedBytes, opts.onUnexpected) }, hs.key, hs.protocol, hs.extensions, context),
      ),
    open: (ws) => {
      const s = ws.getUserData().socket;
      s.ws = ws;
      s.target = s.start.relayed && opts.relays ? opts.relays : sockets;
      s.handle = s.target.attach(s.start.queueId, s.start.userId, s.start.lastEventId, s);
    },
    message: (ws, message, isBinary) => {
      const s = ws.getUserData().socket;
      if (s.handle === null || s.closing) return;
      const lastEventId = isBinary ? undefined : ackOf(message);
      if (lastEventId === undefined) s.target!.protocolError(s.handle, 'Expected a frame {"last_event_id": <integer>}');
      // A repeated acknowledgement is dropped here: the queue actor's work per socket is bounded by what it sent (a
      // newer id prunes, an older one is refused and ends the socket), whatever the number of frames a client sends.
      else if (lastEventId !== s.lastAck) {
        s.lastAck = lastEventId;
        s.target!.ack(s.handle, lastEventId);
      }
    },
    close: (ws) => {
      const s = ws.getUserData().socket;
      s.closing = true;
      s.ws = null;
      if (s.handle !== null) s.target!.gone(s.handle);
    },
  });
}

const ACK_START = Buffer.from('{"last_event_id":');

/**
 * The last_event_id of an acknowledgement frame, or undefined when the frame is not one. The frame clients send,
 * `{"last_event_id":N}` (spaces allowed around N), is read from its bytes; any other JSON is parsed.
 */
export function ackOf(message: ArrayBuffer): number | undefined {
  const bytes = new Uint8Array(message);
  const n = bytes.length;
  let i = ACK_START.length;
  let plain = n > i;
  for (let k = 0; plain && k < i; k++) plain = bytes[k] === ACK_START[k];
  if (plain) {
    while (bytes[i] === SPACE) i++;
    const first = i;
    let id = 0;
    for (; i < n && bytes[i]! >= DIGIT_0 && bytes[i]! <= DIGIT_9; i++) id = id * 10 + bytes[i]! - DIGIT_0;
    const digits = i - first;
    while (bytes[i] === SPACE) i++;
    // 1 to 15 digits, no leading zero: a safe integer as JSON writes it; anything else goes through JSON.parse.
    if (digits > 0 && digits <= 15 && (digits === 1 || bytes[first] !== DIGIT_0) && i === n - 1 && bytes[i] === CLOSE_BRACE) return id;
  }
  let m: unknown;
  try {
    m = JSON.parse(Buffer.from(message).toString('utf8'));
  } catch {
    return undefined;
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return undefined;
  const id = (m as Record<string, unknown>).last_event_id;
  return Number.isSafeInteger(id) && (id as number) >= -1 ? (id as number) : undefined;
}

const [SPACE, DIGIT_0, DIGIT_9, CLOSE_BRACE] = [0x20, 0x30, 0x39, 0x7d];
