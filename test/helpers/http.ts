// A plain node:http client for tests: any method, header (Host too), body encoding, over a real socket.
// Every success answer is checked against the reference OpenAPI (./openapi.ts).
import http from 'node:http';
import { checkResponse } from './openapi.js';

export interface Credentials {
  email: string;
  apiKey: string;
}

export interface RequestOptions {
  query?: Record<string, string>;
  /** Sent as application/x-www-form-urlencoded. */
  form?: Record<string, string>;
  /** Sent as multipart/form-data. */
  multipart?: Record<string, string | Blob>;
  body?: string | Buffer;
  headers?: Record<string, string>;
  auth?: Credentials;
  host?: string;
  /** The path is absolute (a page or file outside /api/v1). */
  root?: boolean;
}

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

export function basicAuth(user: string, secret: string): string {
  return 'Basic ' + Buffer.from(`${user}:${secret}`).toString('base64');
}

/** Where every copy of undici (node's own, behind the global fetch, included) keeps the global dispatcher. */
const GLOBAL_DISPATCHER = Symbol.for('undici.globalDispatcher.1');

/**
 * Closes the idle keep-alive connections the test process holds to a server's `ports`: those of this client
 * (node's global agent) and those of the global fetch (undici's dispatcher, which is replaced by a fresh one; the old
 * one closes once the requests it carries are answered). A server that stopped listening still holds its open
 * connections, and uWebSockets.js keeps the process alive while it does: without this a test process lingers until
 * the clients' idle timeouts (4 to 5 s) close them.
 */
export function closeIdleConnections(ports: number[]): void {
  for (const [name, sockets] of Object.entries(http.globalAgent.freeSockets)) {
    if (ports.some((port) => name.startsWith(`127.0.0.1:${port}:`))) for (const socket of sockets ?? []) socket.destroy();
  }
  const global = globalThis as { [GLOBAL_DISPATCHER]?: { close(): Promise<void> } };
  const dispatcher = global[GLOBAL_DISPATCHER];
  if (dispatcher) {
    global[GLOBAL_DISPATCHER] = new (dispatcher.constructor as new () => { close(): Promise<void> })();
    void dispatcher.close().catch(() => undefined);
  }
}

export class Client {
  constructor(readonly port: number, readonly defaults: { host?: string; auth?: Credentials } = {}) {}

  as(auth: Credentials): Client {
    return new Client(this.port, { ...this.defaults, auth });
  }

  withHost(host: string): Client {
    return new Client(this.port, { ...this.defaults, host });
  }

  get(path: string, o: RequestOptions = {}) {
    return this.request('GET', path, o);
  }
  post(path: string, o: RequestOptions = {}) {
    return this.request('POST', path, o);
  }
  patch(path: string, o: RequestOptions = {}) {
    return this.request('PATCH', path, o);
  }
  delete(path: string, o: RequestOptions = {}) {
    return this.request('DELETE', path, o);
  }

  async request(method: string, path: string, o: RequestOptions = {}): Promise<Response> {
    const headers: Record<string, string> = { ...o.headers };
    let body: Buffer | undefined;
    if (o.form) {
      body = Buffer.from(new URLSearchParams(o.form).toString());
      headers['content-type'] ??= 'application/x-www-form-urlencoded';
    } else if (o.multipart) {
      const fd = new FormData();
      for (const [k, v] of Object.entries(o.multipart)) fd.append(k, v);
      const r = new Response(fd);
      body = Buffer.from(await r.arrayBuffer());
      headers['content-type'] ??= r.headers.get('content-type')!;
    } else if (o.body !== undefined) {
      body = Buffer.isBuffer(o.body) ? o.body : Buffer.from(o.body);
    }
    if (body) headers['content-length'] ??= String(body.length);
    const auth = o.auth ?? this.defaults.auth;
    if (auth && headers.authorization === undefined) headers.authorization = basicAuth(auth.email, auth.apiKey);
    const host = o.host ?? this.defaults.host;
    if (host) headers.host = host;
    const qs = o.query ? '?' + new URLSearchParams(o.query).toString() : '';
    const fullPath = o.root || path.startsWith('/api/') || !path.startsWith('/') ? path : '/api/v1' + path;
    return new Promise((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: this.port, method, path: fullPath + qs, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          try {
            checkResponse(method, fullPath + qs, res.statusCode ?? 0, res.headers['content-type'], text);
          } catch (e) {
            reject(e);
            return;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.setTimeout(30_000, () => req.destroy(new Error(`request ${method} ${path} timed out`)));
      if (body) req.write(body);
      req.end();
    });
  }
}
