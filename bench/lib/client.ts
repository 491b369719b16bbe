// HTTP for load generation: undici keep-alive connections spread over several 127.0.0.x source addresses (one loopback
// source address has about 28,000 ports), Basic auth, form bodies. undici, not node:http: on this 2-core machine the
// load generator's CPU is taken from the server and the database, and a request through undici's dispatcher costs
// about a third of the client CPU of one through node:http (bench/client-cost.ts; bench/README.md, "load generator").
import { readFileSync } from 'node:fs';
import { Agent, type Dispatcher } from 'undici';

export interface Creds {
  email: string;
  apiKey: string;
}

export interface Reply {
  status: number;
  /** The answer parsed as JSON where it is JSON, else its text; null for a request made with `readBody: false`. */
  body: any;
  ms: number;
  /** The body's length in bytes. */
  bytes: number;
}

/**
 * How long an idle keep-alive connection is kept. node:http's agent kept one until the server closed it; uWS closes an
 * idle connection after its 10 s HTTP idle timeout, counted in 4 s ticks (so from about 8 s on), and a request written
 * as it closes fails. Closing first, well before that, keeps the connections of a load that pauses for seconds
 * (`mixed`'s think times) without that race.
 */
const KEEP_ALIVE_MS = 6_000;

/** Each base URL's origin (`http://host:port`), the key of its pool in an agent. */
const origins = new Map<string, string>();

/** As node:http's agent did: no connect timeout, and no response timeout unless a request asks for one (a parked poll
 *  waits for its heartbeat). One request at a time on a connection. */
const OPTIONS = {
  pipelining: 1,
  keepAliveTimeout: KEEP_ALIVE_MS,
  keepAliveMaxTimeout: KEEP_ALIVE_MS,
  headersTimeout: 0,
  bodyTimeout: 0,
  connect: { timeout: 0 },
} satisfies Agent.Options;

/** The pool of requests made without a connection of their own: as many connections as requests in flight. */
let shared: Agent | undefined;

/**
 * A connection of its own for the n-th loop of requests (a sender, a poll loop), 20,000 connections per source
 * address: an agent of one keep-alive connection per origin, whose requests wait their turn on it. (A shared pool
 * would open a second one for a loop's next request: undici frees a connection for reuse one turn of the event loop
 * after its answer, and the loop asks at once.) The first 20,000 connect without an explicit source: the kernel picks
 * 127.0.0.1 and a port at connect() time. Beyond them 127.0.0.2, 127.0.0.3, … are bound explicitly (`localAddress`),
 * which is what lets more than ~28,000 connections reach one server port, but costs: bind() to port 0 searches the
 * ephemeral range for a port no other bound socket of that address holds, so it slows down as the address fills
 * (measured on the reference machine, 10,000 connects bound to 127.0.0.1 took 7.0 s of the client's kernel time, 0.4 s
 * unbound).
 */
export function connectionFor(n: number): Agent {
  const address = Math.floor(n / 20_000);
  return new Agent({ ...OPTIONS, connections: 1, ...(address > 0 ? { localAddress: `127.0.0.${address + 1}` } : {}) });
}

/** This process's open-files limit (the soft `Max open files` of /proc/self/limits; 1024 where unreadable). */
export function openFilesCap(): number {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'));
    const soft = Number(line?.split(/\s{2,}/)[1]);
    return Number.isFinite(soft) ? soft : 1024;
  } catch {
    return 1024;
  }
}

/** The Basic authorization header of each user's credentials, made once (a worker holds the same Creds objects for the
 *  whole run). */
const authHeaders = new WeakMap<Creds, string>();
function authHeader(auth: Creds): string {
  let header = authHeaders.get(auth);
  if (header === undefined) authHeaders.set(auth, (header = 'Basic ' + Buffer.from(`${auth.email}:${auth.apiKey}`).toString('base64')));
  return header;
}

/** Collects one answer: its status and body, timed from `started` to its last byte, or, with `parse`, to its body parsed
 *  as JSON where it is JSON (else kept as text). */
class ReplyHandler implements Dispatcher.DispatchHandler {
  private status = 0;
  private readonly chunks: Buffer[] = [];

  constructor(
    private readonly started: number,
    private readonly parse: boolean,
    private readonly resolve: (r: Reply) => void,
    private readonly reject: (err: Error) => void,
    private readonly onSent?: () => void,
  ) {}

  /** Called just before the request is written on its connection, in the same turn (where node:http had 'finish'). */
  onRequestStart(): void {
    this.onSent?.();
  }

  onResponseStart(_c: Dispatcher.DispatchController, status: number): void {
    this.status = status;
  }

  onResponseData(_c: Dispatcher.DispatchController, chunk: Buffer): void {
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    const raw = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    let body: unknown = null;
    if (this.parse) {
      const text = raw.toString();
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    this.resolve({ status: this.status, body, ms: performance.now() - this.started, bytes: raw.length });
  }

  onResponseError(_c: Dispatcher.DispatchController, err: Error): void {
    this.reject(err);
  }
}

/**
 * One request on `opts.connection` (by default a pool shared by the requests made without one); resolves with any
 * answer, whatever its status, and rejects when no answer came (connection refused or closed, `timeoutMs` without
 * progress). `ms` is from the call to the parsed body, or to the answer's last byte with `readBody: false` (for a loop
 * that needs only the status: the body is counted in `bytes`, neither decoded nor parsed). `form` is the fields of a
 * form body, or the body already encoded (a loop that varies one field encodes the rest once: see `formPrefix`).
 */
export function request(
  base: string,
  method: string,
  path: string,
  opts: {
    auth?: Creds;
    form?: Record<string, string> | string;
    query?: Record<string, string>;
    connection?: Dispatcher;
    timeoutMs?: number;
    onSent?: () => void;
    readBody?: boolean;
  } = {},
): Promise<Reply> {
  const query = opts.query ? '?' + new URLSearchParams(opts.query).toString() : '';
  const body = opts.form === undefined || typeof opts.form === 'string' ? opts.form : new URLSearchParams(opts.form).toString();
  const headers: Record<string, string> = {};
  if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
  if (opts.auth) headers.authorization = authHeader(opts.auth);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    (opts.connection ?? (shared ??= new Agent({ ...OPTIONS, connections: null }))).dispatch(
      {
        origin: origins.get(base) ?? origins.set(base, new URL(base).origin).get(base)!,
        method: method as Dispatcher.HttpMethod,
        path: '/api/v1' + path + query,
        headers,
        body,
        // Keep the connection after a GET with a body too (undici closes it by default; node:http did not).
        reset: false,
        ...(opts.timeoutMs ? { headersTimeout: opts.timeoutMs, bodyTimeout: opts.timeoutMs } : {}),
      },
      new ReplyHandler(started, opts.readBody ?? true, resolve, reject, opts.onSent),
    );
  });
}

/**
 * A form body's encoding up to its last field's value, for a loop whose requests differ only in the end of that value:
 * `formPrefix({ to: 'a b', content: 'load 3-' }) + n` is the encoding of `{ to: 'a b', content: 'load 3-' + n }` where
 * what is appended needs no encoding (digits, letters, '-', '.', '_', '*').
 */
export function formPrefix(fields: Record<string, string>): string {
  return new URLSearchParams(fields).toString();
}

export async function login(base: string, email: string, password: string): Promise<Creds> {
  const r = await request(base, 'POST', '/fetch_api_key', { form: { username: email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${JSON.stringify(r.body)}`);
  return { email, apiKey: r.body.api_key };
}
