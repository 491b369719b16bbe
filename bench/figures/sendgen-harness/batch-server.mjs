// The send loop's client CPU without a server behind it (issue #22, eighth session, lane sendgen; bench/README.md): a bare
// uWS server answering every request, held and answered together every INTERVAL ms as the realm's group commit does.
//   node batch-server.mjs INTERVAL_MS TREE   (prints "batch listening on PORT")
const { loadUws } = await import(`${process.argv[3] ?? process.cwd()}/dist/src/uws.js`);
const { uws } = loadUws(false);
const interval = Number(process.argv[2] ?? 8);
let pending = [];
let id = 0;
uws.App().any('/*', (res) => {
  const r = { res, aborted: false };
  res.onAborted(() => (r.aborted = true));
  res.onData((_chunk, last) => { if (last) pending.push(r); });
}).listen('127.0.0.1', 0, (s) => { process.stdout.write(`batch listening on ${uws.us_socket_local_port(s)}\n`); });
setInterval(() => {
  const p = pending; pending = [];
  for (const r of p) if (!r.aborted) r.res.cork(() => r.res.writeHeader('Content-Type', 'application/json').end(`{"result":"success","msg":"","id":${++id}}`));
}, interval);
