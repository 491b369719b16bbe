// Scratch (lane sendgen): client CPU per send-shaped request for variants (the bench client; undici prepared, status only,
// deprecated handler methods; a hand-written HTTP/1.1 client 'raw'), each in its own process, against the bare ceiling
// server or BASE=http://… (batch-server.mjs). Paths are the lane's worktree's: V=current,noparse,raw ROUNDS=3 node micro.mjs
// scratch: client CPU per send-shaped request, variants
import { fork } from 'node:child_process';
import { Client, Agent } from '/work/wt/sendgen/node_modules/undici/index.js';
const lib = await import('/work/wt/sendgen/dist/bench/lib/client.js');
const { startChild } = await import('/work/wt/sendgen/dist/bench/scenarios/ceilings.js');
const creds = { email: 'bench-snd-17@bench.test', apiKey: 'aB3dE5gH7jK9mN1pQ3sT5vX7zA9cE1gI' };
const to = 'send-mfx1k2-0';
class H {
  constructor(started, resolve, reject, parse) { this.started = started; this.resolve = resolve; this.reject = reject; this.parse = parse; this.status = 0; this.chunks = []; }
  onRequestStart() {}
  onResponseStart(_c, status) { this.status = status; }
  onResponseData(_c, chunk) { this.chunks.push(chunk); }
  onResponseEnd() { const raw = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks); let body = null; if (this.parse) { const t = raw.toString(); try { body = JSON.parse(t) } catch { body = t } } this.resolve({ status: this.status, body, ms: performance.now() - this.started, bytes: raw.length }); }
  onResponseError(_c, e) { this.reject(e); }
}
class L {
  constructor(started, resolve, reject, parse) { this.started = started; this.resolve = resolve; this.reject = reject; this.parse = parse; this.status = 0; this.chunks = []; }
  onConnect() {}
  onHeaders(status) { this.status = status; return true; }
  onData(chunk) { this.chunks.push(chunk); return true; }
  onComplete() { const raw = this.chunks.length === 1 ? this.chunks[0] : Buffer.concat(this.chunks); let body = null; if (this.parse) { const t = raw.toString(); try { body = JSON.parse(t) } catch { body = t } } this.resolve({ status: this.status, body, ms: performance.now() - this.started, bytes: raw.length }); }
  onError(e) { this.reject(e); }
}
const OPTS = { pipelining: 1, keepAliveTimeout: 6000, keepAliveMaxTimeout: 6000, headersTimeout: 0, bodyTimeout: 0, connect: { timeout: 0 } };
const auth = 'Basic ' + Buffer.from(`${creds.email}:${creds.apiKey}`).toString('base64');
const headers = ['content-type', 'application/x-www-form-urlencoded', 'authorization', auth];
function prep(base, i, { client, parse, legacy, tmpl }) {
  const c = client ? new Client(base, OPTS) : lib.connectionFor(i);
  const origin = new URL(base).origin;
  const head = `type=stream&to=${encodeURIComponent(to)}&topic=t${i % 5}&content=load+${i}-`;
  let n = 0;
  const Hd = legacy ? L : H;
  return () => new Promise((res, rej) => c.dispatch({ origin, method: 'POST', path: '/api/v1/messages', headers, body: tmpl ? head + n++ : new URLSearchParams({ type: 'stream', to, topic: `t${i % 5}`, content: `load ${i}-${n++}` }).toString(), reset: false }, new Hd(performance.now(), res, rej, parse)));
}
import net from 'node:net';
function raw(base, i) {
  const u = new URL(base);
  const sock = net.connect(+u.port, u.hostname); sock.setNoDelay(true);
  const head = `type=stream&to=${encodeURIComponent(to)}&topic=t${i % 5}&content=load+${i}-`;
  let n = 0, pending = null, buf = null;
  sock.on('data', (c) => {
    buf = buf ? Buffer.concat([buf, c]) : c;
    const e = buf.indexOf('\r\n\r\n'); if (e < 0) return;
    const h = buf.toString('latin1', 0, e);
    const m = /content-length: *(\d+)/i.exec(h); const len = m ? +m[1] : 0;
    if (buf.length < e + 4 + len) return;
    const status = +h.slice(9, 12); const p = pending; pending = null; buf = null;
    p.resolve({ status, ms: performance.now() - p.started, bytes: len });
  });
  return () => new Promise((resolve, reject) => { const body = head + n++; pending = { resolve, reject, started: performance.now() };
    sock.write(`POST /api/v1/messages HTTP/1.1\r\nhost: ${u.host}\r\nconnection: keep-alive\r\ncontent-type: application/x-www-form-urlencoded\r\nauthorization: ${auth}\r\ncontent-length: ${body.length}\r\n\r\n${body}`); });
}
const V = {
  raw,

  hdrs: (b, i) => prep(b, i, { parse: true }),
  tmpl: (b, i) => prep(b, i, { parse: true, tmpl: true }),
  client: (b, i) => prep(b, i, { parse: true, tmpl: true, client: true }),
  noparse: (b, i) => prep(b, i, { parse: false, tmpl: true, client: true }),
  legacy: (b, i) => prep(b, i, { parse: false, tmpl: true, client: true, legacy: true }),

  current: (base, i) => { const c = lib.connectionFor(i); let n = 0; return () => lib.request(base, 'POST', '/messages', { auth: creds, connection: c, form: { type: 'stream', to, topic: `t${i % 5}`, content: `load ${i}-${n++}` } }); },
};
const [variant, base, count, conc] = process.argv.slice(2);
if (variant) {
  const run = async (k) => { let left = k; await Promise.all(Array.from({ length: +conc }, async (_, i) => { const f = V[variant](base, i); while (left-- > 0) { const r = await f(); if (r.status !== 200) throw new Error('status'); } })); };
  await run(+(process.env.WARM ?? 5000));
  const cpu = process.cpuUsage(); const t = performance.now();
  await run(+count);
  const u = process.cpuUsage(cpu);
  process.send({ variant, us: (u.user + u.system) / count, sys: u.system / count, rps: count / ((performance.now() - t) / 1000) });
  process.exit(0);
}
process.chdir('/work/wt/sendgen');
const server = process.env.BASE ? { base: process.env.BASE, stop() {} } : await startChild('dist/bench/ceiling-server.js', 'ceiling', ['40']);
const names = process.env.V.split(',');
const res = Object.fromEntries(names.map((n) => [n, []]));
for (let r = 0; r < +process.env.ROUNDS; r++) for (const n of names) {
  const c = fork(new URL(import.meta.url).pathname, [n, server.base, process.env.N ?? '30000', process.env.C ?? '16'], { execArgv: process.env.PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROF] : [] });
  res[n].push(await new Promise((ok) => c.once('message', ok)));
}
server.stop();
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const n of names) console.log(n.padEnd(12), res[n].map((m) => `${m.us.toFixed(1)}(${m.sys.toFixed(1)})`).join(' '), 'median', med(res[n].map((m) => m.us)).toFixed(1), 'rps', Math.round(med(res[n].map((m) => m.rps))));
