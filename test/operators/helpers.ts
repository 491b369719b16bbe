// Shared by the operator tests: a server with an operator token, the Bearer header, and a parser for the
// Prometheus text format.
import { startTestServer, type TestServer, type TestServerOptions } from '../helpers/server.js';

export const OPERATOR_TOKEN = 'operator-token-for-tests-0123456789';
export const bearer = (token = OPERATOR_TOKEN) => ({ authorization: `Bearer ${token}` });

export function startOperatorServer(opts: TestServerOptions = {}): Promise<TestServer> {
  return startTestServer({ ...opts, env: { OPERATOR_TOKEN, ...opts.env } });
}

/** `name{a="x",b="y"}` → value, labels in the order the server wrote them; also checks every line is well-formed. */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('# HELP ') || line.startsWith('# TYPE ')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*(?:\{[^}]*\})?) (\S+)$/.exec(line);
    if (!m) throw new Error(`malformed metrics line: ${line}`);
    out.set(m[1]!, m[2] === '+Inf' ? Infinity : Number(m[2]));
  }
  return out;
}

/** Sum of every series of `name` whose labels include all of `labels`. */
export function metric(samples: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  let found = false;
  for (const [key, value] of samples) {
    const brace = key.indexOf('{');
    const n = brace < 0 ? key : key.slice(0, brace);
    if (n !== name) continue;
    const text = brace < 0 ? '' : key.slice(brace);
    if (Object.entries(labels).every(([k, v]) => text.includes(`${k}="${v}"`))) {
      sum += value;
      found = true;
    }
  }
  if (!found) throw new Error(`no sample ${name} ${JSON.stringify(labels)}`);
  return sum;
}

export async function scrape(s: TestServer): Promise<Map<string, number>> {
  const r = await s.client.get('/metrics', { root: true, headers: bearer() });
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status} ${r.text}`);
  return parseMetrics(r.text);
}

/** Retries `check` until it returns true (no wall-clock assertion: it only bounds a hang). */
export async function eventually(check: () => boolean | Promise<boolean>, what: string, tries = 200): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`never happened: ${what}`);
}
