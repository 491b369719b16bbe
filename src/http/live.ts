// The dashboard's server push: a WebSocket on the same uWebSockets.js app, with respond.ts's lifetime rules for
// sockets — the upgrade request is read synchronously, nothing is written to a closed socket, writes are corked, and
// a reader that falls behind skips updates instead of growing a buffer. Browsers cannot send an Authorization
// header on a WebSocket, so the first message carries the operator token.
import type { TemplatedApp, WebSocket } from 'uWebSockets.js';
import type { Logger } from '../log.js';
import type { ActorFilter } from '../operators/actor-directory.js';
import type { LiveFeed, LiveSession } from '../operators/live-feed.js';
import { operatorTokenMatches } from './operator-auth.js';
import type { RateLimiter } from './rate-limit.js';

export const LIVE_PATH = '/operators/live';

/** Close codes (4000–4999 are the application's). */
const CLOSE_UNAUTHORIZED = 4401;
const CLOSE_GOING_AWAY = 1001;
const AUTH_TIMEOUT_MS = 10_000;
/** Updates are skipped while more than this is waiting to be sent to one dashboard. */
const MAX_BUFFERED = 512 * 1024;

interface SocketData {
  session: LiveSession | null;
  closed: boolean;
  authTimer: NodeJS.Timeout | null;
}

export interface LiveOptions {
  feed: LiveFeed;
  operatorToken: string | undefined;
  log: Logger;
  /** Wrong tokens spend the address's password attempts, as on the HTTP endpoints. */
  rateLimiter: RateLimiter;
}

export interface LiveEndpoint {
  /** Closes every dashboard connection (shutdown). */
  close(): void;
}

function send(ws: WebSocket<SocketData>, text: string): void {
  const data = ws.getUserData();
  if (data.closed || ws.getBufferedAmount() > MAX_BUFFERED) return;
  ws.cork(() => ws.send(text, false));
}

function parseFilter(m: Record<string, unknown>): ActorFilter {
  const text = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 200) : undefined);
  const realm = typeof m.realm === 'number' ? m.realm : typeof m.realm === 'string' && /^\d+$/.test(m.realm) ? Number(m.realm) : undefined;
  return { kind: text(m.kind), state: text(m.state), q: text(m.q), realm };
}

export function serveLive(app: TemplatedApp, opts: LiveOptions): LiveEndpoint {
  const sockets = new Set<WebSocket<SocketData>>();
  app.ws<SocketData>(LIVE_PATH, {
    maxPayloadLength: 4096,
    idleTimeout: 120,
    sendPingsAutomatically: true,
    maxBackpressure: 4 * MAX_BUFFERED,
    upgrade: (res, req, context) => {
      const key = req.getHeader('sec-websocket-key');
      const protocol = req.getHeader('sec-websocket-protocol');
      const extensions = req.getHeader('sec-websocket-extensions');
      const origin = req.getHeader('origin');
      const host = req.getHeader('host');
      // Only pages of this server may open it (a browser always sends Origin on a WebSocket).
      let sameOrigin = origin === '';
      try {
        sameOrigin ||= new URL(origin).host === host;
      } catch {
        sameOrigin = false;
      }
      if (!opts.operatorToken || !sameOrigin) {
        res.cork(() => res.writeStatus('403 Forbidden').end());
        return;
      }
      res.cork(() => res.upgrade<SocketData>({ session: null, closed: false, authTimer: null }, key, protocol, extensions, context));
    },
    open: (ws) => {
      sockets.add(ws);
      const data = ws.getUserData();
      data.authTimer = setTimeout(() => {
        if (!data.closed && !data.session) ws.end(CLOSE_UNAUTHORIZED, 'operator token required');
      }, AUTH_TIMEOUT_MS);
      data.authTimer.unref();
    },
    message: (ws, message) => {
      const data = ws.getUserData();
      let m: Record<string, unknown>;
      try {
        // The ArrayBuffer is valid only during this call: decoded (copied) now.
        m = JSON.parse(Buffer.from(message).toString('utf8'));
        if (typeof m !== 'object' || m === null) throw new Error('not an object');
      } catch {
        ws.end(1003, 'expected JSON');
        return;
      }
      if (!data.session) {
        const address = Buffer.from(ws.getRemoteAddressAsText()).toString();
        try {
          opts.rateLimiter.credentialCheck(address);
        } catch {
          ws.end(CLOSE_UNAUTHORIZED, 'too many failed attempts');
          return;
        }
        if (m.type !== 'auth' || typeof m.token !== 'string' || !operatorTokenMatches(opts.operatorToken, m.token)) {
          opts.rateLimiter.credentialFailed(address);
          opts.log.warn('dashboard connection refused: invalid operator token');
          ws.end(CLOSE_UNAUTHORIZED, 'invalid operator token');
          return;
        }
        if (data.authTimer) clearTimeout(data.authTimer);
        send(ws, JSON.stringify({ type: 'hello' }));
        data.session = opts.feed.open({ send: (text) => send(ws, text) });
        return;
      }
      if (m.type === 'filter') data.session.setFilter(parseFilter(m));
    },
    close: (ws) => {
      const data = ws.getUserData();
      data.closed = true;
      if (data.authTimer) clearTimeout(data.authTimer);
      data.session?.close();
      sockets.delete(ws);
    },
  });
  return {
    close() {
      for (const ws of [...sockets]) {
        if (!ws.getUserData().closed) ws.end(CLOSE_GOING_AWAY, 'server shutting down');
      }
    },
  };
}
