// `palaver check`: an end-to-end self-check against a running server over its HTTP API — a recipient registers an
// event queue, a sender sends it a direct message, and the message must arrive through GET /events; each step timed.
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';

export interface CheckCredentials {
  email: string;
  apiKey: string;
}

export interface CheckOptions {
  url: string;
  /** Host header naming the realm (`<sub>.<root domain>`); the URL's host when unset. */
  host?: string;
  sender: CheckCredentials;
  recipient: CheckCredentials;
  /** The whole check fails after this long. */
  timeoutMs: number;
}

export interface CheckResult {
  message_id: number;
  queue_id: string;
  timings_ms: { register: number; send: number; delivery: number; total: number };
}

/** Which step failed, for the operator reading the output. */
export class CheckFailed extends Error {
  constructor(readonly step: string, message: string) {
    super(message);
  }
}

interface ApiResponse {
  status: number;
  json: any;
}

function call(o: CheckOptions, as: CheckCredentials, method: string, path: string, form: Record<string, string>, timeoutMs: number): Promise<ApiResponse> {
  const base = new URL(o.url);
  const body = new URLSearchParams(form).toString();
  const isGet = method === 'GET';
  const target = new URL(base.pathname.replace(/\/$/, '') + '/api/v1' + path + (isGet && body ? `?${body}` : ''), base);
  const headers: Record<string, string> = {
    authorization: 'Basic ' + Buffer.from(`${as.email}:${as.apiKey}`).toString('base64'),
    'user-agent': 'palaver-check',
  };
  if (o.host) headers.host = o.host;
  if (!isGet) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  const lib = target.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(target, { method, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c) => (text += c));
      res.on('end', () => {
        try {
          resolve({ status: res.statusCode ?? 0, json: JSON.parse(text) });
        } catch {
          reject(new Error(`${method} ${path}: HTTP ${res.statusCode}, not JSON`));
        }
      });
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`${method} ${path}: no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    if (!isGet) req.write(body);
    req.end();
  });
}

async function step<T>(name: string, f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (err) {
    if (err instanceof CheckFailed) throw err;
    throw new CheckFailed(name, (err as Error).message);
  }
}

function ok(name: string, r: ApiResponse): any {
  if (r.status !== 200 || r.json?.result !== 'success') throw new CheckFailed(name, `HTTP ${r.status}: ${r.json?.msg ?? 'no message'}`);
  return r.json;
}

const RETRY_PAUSE_MS = 100;
/** The least time worth giving a retried authentication for its answer. */
const RETRY_ANSWER_MS = 1000;

export async function runCheck(o: CheckOptions): Promise<CheckResult> {
  const started = performance.now();
  const deadline = started + o.timeoutMs;
  const left = () => Math.max(1, Math.round(deadline - performance.now()));
  const since = (t: number) => Math.round((performance.now() - t) * 100) / 100;

  // Users the CLI has just created reach the server within its change-poll interval: retry a 401 meanwhile, while
  // a retry still has time for its answer (otherwise the last try would end as a timeout, hiding the 401).
  const authenticate = (who: CheckCredentials) =>
    step('authenticate', async () => {
      for (;;) {
        const r = await call(o, who, 'GET', '/users/me', {}, left());
        if (r.status !== 401 || deadline - performance.now() < RETRY_PAUSE_MS + RETRY_ANSWER_MS) return ok('authenticate', r);
        await new Promise((resolve) => setTimeout(resolve, RETRY_PAUSE_MS));
      }
    });
  const me = await authenticate(o.recipient);
  await authenticate(o.sender);
  let t = performance.now();
  const reg = await step('register', async () =>
    ok('register', await call(o, o.recipient, 'POST', '/register', { event_types: '["message"]', apply_markdown: 'false' }, left())),
  );
  const register = since(t);
  const nonce = randomBytes(8).toString('hex');
  t = performance.now();
  const sent = await step('send', async () =>
    ok('send', await call(o, o.sender, 'POST', '/messages', { type: 'direct', to: JSON.stringify([me.user_id]), content: `palaver check ${nonce}` }, left())),
  );
  const send = since(t);
  let lastEventId = reg.last_event_id as number;
  let delivery = 0;
  try {
    await step('receive', async () => {
      for (;;) {
        if (performance.now() >= deadline) throw new CheckFailed('receive', `the message did not arrive within ${o.timeoutMs} ms`);
        const r = ok('receive', await call(o, o.recipient, 'GET', '/events', { queue_id: reg.queue_id, last_event_id: String(lastEventId) }, left()));
        for (const e of r.events as { id: number; type: string; message?: { id: number; content: string } }[]) {
          lastEventId = Math.max(lastEventId, e.id);
          if (e.type === 'message' && e.message?.id === sent.id) {
            delivery = since(t);
            return;
          }
        }
      }
    });
  } finally {
    await call(o, o.recipient, 'DELETE', '/events', { queue_id: reg.queue_id }, 5000).catch(() => undefined);
  }
  return { message_id: sent.id, queue_id: reg.queue_id, timings_ms: { register, send, delivery, total: since(started) } };
}

/** `email:api_key` from the command line. */
export function parseCredentials(flag: string, raw: string): CheckCredentials {
  const i = raw.indexOf(':');
  if (i <= 0 || i === raw.length - 1) throw new Error(`--${flag} must be EMAIL:API_KEY`);
  return { email: raw.slice(0, i), apiKey: raw.slice(i + 1) };
}
