// HTTP for load generation: keep-alive agents spread over several 127.0.0.x source addresses (one loopback
// source address has about 28,000 ports), Basic auth, form bodies.
import { readFileSync } from 'node:fs';
import http from 'node:http';

export interface Creds {
  email: string;
  apiKey: string;
}

export interface Reply {
  status: number;
  body: any;
  ms: number;
  /** The body's length in bytes. */
  bytes: number;
}

const agents: http.Agent[] = [];

/**
 * The agent for the n-th connection, 20,000 connections per source address. The first 20,000 connect without an
 * explicit source: the kernel picks 127.0.0.1 and a port at connect() time. Beyond them 127.0.0.2, 127.0.0.3, … are
 * bound explicitly (`localAddress`), which is what lets more than ~28,000 connections reach one server port, but costs:
 * bind() to port 0 searches the ephemeral range for a port no other bound socket of that address holds, so it slows
 * down as the address fills. Measured on the reference machine, 10,000 connects bound to 127.0.0.1 took 7.0 s of the
 * client's kernel time (0.4 s unbound), and Node makes every bind before it writes any request: a connection then
 * sits open and silent for longer than the server's 10 s idle timeout for connections that send nothing, and is closed.
 */
export function agentFor(n: number): http.Agent {
  const i = Math.floor(n / 20_000);
  while (agents.length <= i) {
    const localAddress = agents.length === 0 ? undefined : `127.0.0.${agents.length + 1}`;
    agents.push(new http.Agent({ keepAlive: true, maxSockets: Infinity, ...(localAddress ? { localAddress } : {}) }));
  }
  return agents[i]!;
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

export function request(
  base: string,
  method: string,
  path: string,
  opts: { auth?: Creds; form?: Record<string, string>; query?: Record<string, string>; agent?: http.Agent; timeoutMs?: number; onSent?: () => void } = {},
): Promise<Reply> {
  const url = new URL('/api/v1' + path, base);
  if (opts.query) for (const [k, v] of Object.entries(opts.query)) url.searchParams.set(k, v);
  const body = opts.form ? new URLSearchParams(opts.form).toString() : undefined;
  const headers: Record<string, string> = {};
  if (body !== undefined) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['content-length'] = String(Buffer.byteLength(body));
  }
  if (opts.auth) headers.authorization = 'Basic ' + Buffer.from(`${opts.auth.email}:${opts.auth.apiKey}`).toString('base64');
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: opts.agent ?? agentFor(0) }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const text = raw.toString();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON: keep the text
        }
        resolve({ status: res.statusCode ?? 0, body: parsed, ms: performance.now() - started, bytes: raw.length });
      });
    });
    req.on('error', reject);
    // 'finish': the whole request has been handed to the connection (after it connected).
    if (opts.onSent) req.once('finish', opts.onSent);
    if (opts.timeoutMs) req.setTimeout(opts.timeoutMs, () => req.destroy(new Error('timeout')));
    if (body !== undefined) req.write(body);
    req.end();
  });
}

export async function login(base: string, email: string, password: string): Promise<Creds> {
  const r = await request(base, 'POST', '/fetch_api_key', { form: { username: email, password } });
  if (r.status !== 200) throw new Error(`login failed: ${JSON.stringify(r.body)}`);
  return { email, apiKey: r.body.api_key };
}
