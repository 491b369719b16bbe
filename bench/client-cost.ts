// The load generator's client CPU per request: the bench's client (bench/lib/client.ts, undici's dispatcher), undici's
// `request()` (a body stream per answer) and node:http as the bench's client was before undici, each in its own
// process in turn (rounds interleaved, so a drift of the machine falls on each alike), against the bare HTTP ceiling
// server answering a body of a poll answer's size. The request is a poll's: a keep-alive GET with a query and Basic
// auth, its JSON answer read and parsed. The CPU is the client process's own (user and kernel) over the timed requests.
//
//   node dist/bench/client-cost.js [--requests 20000] [--concurrency 50] [--rounds 3] [--body-bytes 430]
import { fork } from 'node:child_process';
import http from 'node:http';
import { parseArgs } from 'node:util';
import { request as undiciRequest, type Dispatcher } from 'undici';
import { connectionFor, request, type Creds } from './lib/client.js';
import { startChild } from './scenarios/ceilings.js';

const VARIANTS = ['node:http', 'undici request()', 'bench client (undici dispatch)'] as const;
type Variant = (typeof VARIANTS)[number];

interface Measured {
  variant: Variant;
  /** Client CPU per request, µs: user + kernel, and the kernel part. */
  cpuUs: number;
  kernelUs: number;
  requestsPerSecond: number;
}

const AUTH: Creds = { email: 'bench-user-17@bench.test', apiKey: 'aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI' };
const QUERY = { queue_id: '1732400000000:17', last_event_id: '41' };
const PATH = '/events';

/** node:http as bench/lib/client.ts used it before undici (a keep-alive agent, the answer collected and parsed). */
const nodeAgent = new http.Agent({ keepAlive: true, maxSockets: Infinity });
function nodeHttpGet(base: string): Promise<unknown> {
  const url = new URL('/api/v1' + PATH, base);
  for (const [k, v] of Object.entries(QUERY)) url.searchParams.set(k, v);
  const authorization = 'Basic ' + Buffer.from(`${AUTH.email}:${AUTH.apiKey}`).toString('base64');
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: 'GET', headers: { authorization }, agent: nodeAgent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve(JSON.parse(Buffer.concat(chunks).toString())));
    });
    req.on('error', reject);
    req.end();
  });
}

async function undiciRequestGet(base: string, connection: Dispatcher): Promise<unknown> {
  const authorization = 'Basic ' + Buffer.from(`${AUTH.email}:${AUTH.apiKey}`).toString('base64');
  const r = await undiciRequest(`${base}/api/v1${PATH}?${new URLSearchParams(QUERY)}`, { headers: { authorization }, dispatcher: connection });
  return JSON.parse(await r.body.text());
}

/** One GET of each variant; the undici ones on the loop's own connection, as the scenarios' loops (node:http's agent
 *  was shared by the loops, and reused a connection as soon as its answer was read). */
const GETS: Record<Variant, (base: string, connection: Dispatcher) => Promise<unknown>> = {
  'node:http': nodeHttpGet,
  'undici request()': undiciRequestGet,
  'bench client (undici dispatch)': (base, connection) => request(base, 'GET', PATH, { auth: AUTH, query: QUERY, connection }),
};

/** `count` requests, `concurrency` loops at a time, each on its keep-alive connection. */
async function load(get: (typeof GETS)[Variant], base: string, count: number, concurrency: number): Promise<void> {
  let left = count;
  await Promise.all(
    Array.from({ length: concurrency }, async (_, i) => {
      const connection = connectionFor(i);
      while (left-- > 0) await get(base, connection);
    }),
  );
}

/** In a child process: one variant, warmed up, then timed. */
async function measureHere(variant: Variant, base: string, count: number, concurrency: number): Promise<Measured> {
  const get = GETS[variant];
  await load(get, base, Math.min(count, 5_000), concurrency);
  const cpu = process.cpuUsage();
  const started = performance.now();
  await load(get, base, count, concurrency);
  const used = process.cpuUsage(cpu);
  const seconds = (performance.now() - started) / 1000;
  return { variant, cpuUs: (used.user + used.system) / count, kernelUs: used.system / count, requestsPerSecond: count / seconds };
}

function measureInChild(variant: Variant, base: string, count: number, concurrency: number): Promise<Measured> {
  const child = fork(new URL(import.meta.url).pathname, ['--child', variant, '--base', base, '--requests', String(count), '--concurrency', String(concurrency)]);
  return new Promise((resolve, reject) => {
    child.once('message', (m) => resolve(m as Measured));
    child.once('exit', (code) => reject(new Error(`${variant}: exited (${code}) without a figure`)));
  });
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '3' },
    'body-bytes': { type: 'string', default: '430' },
    child: { type: 'string' },
    base: { type: 'string' },
  },
});
const count = Number(values.requests);
const concurrency = Number(values.concurrency);

if (values.child) {
  process.send!(await measureHere(values.child as Variant, values.base!, count, concurrency));
  process.exit(0);
}

const server = await startChild('dist/bench/ceiling-server.js', 'ceiling', [values['body-bytes']!]);
try {
  const runs = new Map<Variant, Measured[]>(VARIANTS.map((v) => [v, []]));
  for (let round = 1; round <= Number(values.rounds); round++) {
    for (const v of VARIANTS) runs.get(v)!.push(await measureInChild(v, server.base, count, concurrency));
    process.stderr.write(`round ${round} done\n`);
  }
  const base = median(runs.get('node:http')!.map((m) => m.cpuUs));
  process.stdout.write(`${count} requests, ${concurrency} at a time, ${values['body-bytes']}-byte answers; client CPU µs per request (kernel)\n`);
  process.stdout.write('| client | per round | median | / node:http | requests/s (median) |\n| --- | --- | --- | --- | --- |\n');
  for (const [v, ms] of runs) {
    const rounds = ms.map((m) => `${m.cpuUs.toFixed(1)} (${m.kernelUs.toFixed(1)})`).join(', ');
    const cpu = median(ms.map((m) => m.cpuUs));
    process.stdout.write(`| ${v} | ${rounds} | ${cpu.toFixed(1)} | ${(cpu / base).toFixed(2)} | ${Math.round(median(ms.map((m) => m.requestsPerSecond)))} |\n`);
  }
} finally {
  server.stop();
}
