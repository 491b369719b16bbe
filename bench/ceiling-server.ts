// The HTTP ceiling: a bare uWebSockets.js route answering a small JSON body, nothing else.
import { loadUws } from '../src/uws.js';

const { uws } = loadUws(false);
const body = JSON.stringify({ result: 'success', msg: '' });
uws
  .App()
  .any('/*', (res) => {
    res.cork(() => res.writeHeader('Content-Type', 'application/json').end(body));
  })
  .listen('127.0.0.1', 0, (s) => {
    if (!s) process.exit(1);
    process.stdout.write(`ceiling listening on ${uws.us_socket_local_port(s)}\n`);
  });
