// The HTTP ceiling: a bare uWebSockets.js route answering a small JSON body, nothing else. An argument N pads the body
// to N bytes (bench/client-cost.ts answers as a poll answer would).
import { loadUws } from '../src/uws.js';

const { uws } = loadUws(false);
const small = JSON.stringify({ result: 'success', msg: '' });
const pad = Math.max(0, Number(process.argv[2] ?? 0) - small.length - ',"pad":""'.length);
const body = pad > 0 ? JSON.stringify({ result: 'success', msg: '', pad: 'x'.repeat(pad) }) : small;
uws
  .App()
  .any('/*', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end(body));
  })
  .listen('127.0.0.1', 0, (s) => {
    if (!s) process.exit(1);
    process.stdout.write(`ceiling listening on ${uws.us_socket_local_port(s)}\n`);
  });
